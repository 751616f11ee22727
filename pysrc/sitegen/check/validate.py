"""Check everything that spans pages: pages, links against pages and anchors, each block kind's and link scheme's.

Pure: takes the parsed project and KaTeX's results, returns every problem
(errors and warnings); the caller decides whether to stop.
"""

from __future__ import annotations

from collections.abc import Mapping

from sitegen.diagnostics import Diagnostic, Location, report, suggest_name
from sitegen.kinds.blocks import KINDS
from sitegen.kinds.links import SCHEMES
from sitegen.messages import (
    DUPLICATE_CHAPTER_NUMBER,
    DUPLICATE_CHAPTER_SLUG,
    EMPTY_FORMULA,
    LINK_TO_MISSING_ANCHOR,
    LINK_TO_MISSING_PAGE,
    MATH_ERROR,
    MISSING_REFERENCES,
)
from sitegen.model import REFERENCES_PAGE, Chapter, MathResult, Page, ParsedProject


def validate_project(
    parsed: ParsedProject, math: Mapping[tuple[str, bool], MathResult], figure_files: Mapping[str, str], content_label: str
) -> list[Diagnostic]:
    """Return every cross-page problem and warning (the per-source problems are in `parsed.problems`)."""
    problems: list[Diagnostic] = []
    problems += check_required_pages(parsed, content_label)
    problems += check_chapters(parsed.chapters)
    for kind in KINDS.values():
        problems += kind.check_across_pages(parsed, figure_files)
    problems += check_links(parsed)
    for scheme in SCHEMES.values():
        problems += scheme.check(parsed, figure_files)
    problems += check_math(parsed.pages, math)
    return problems


def check_required_pages(parsed: ParsedProject, content_label: str) -> list[Diagnostic]:
    """The references must exist: every page links to them (a missing page of a kind is parse.py's to report)."""
    if parsed.has_references_file:
        return []
    return [report(Location(f"{content_label}/references.yaml", 0), MISSING_REFERENCES)]


def check_chapters(chapters: tuple[Page, ...]) -> list[Diagnostic]:
    """Chapter numbers and slugs must be unique."""
    problems = []
    numbers: dict[int, Chapter] = {}
    slugs: dict[str, Page] = {}
    for page in chapters:
        chapter = page.chapter
        assert chapter is not None
        if chapter.number in numbers:
            problems.append(
                report(chapter.location, DUPLICATE_CHAPTER_NUMBER, number=chapter.number, other=numbers[chapter.number].location)
            )
        else:
            numbers[chapter.number] = chapter
        if chapter.slug in slugs:
            problems.append(
                report(page.source.at(1), DUPLICATE_CHAPTER_SLUG, slug=chapter.slug, other=slugs[chapter.slug].source.path)
            )
        else:
            slugs[chapter.slug] = page
    return problems


def check_links(parsed: ParsedProject) -> list[Diagnostic]:
    """Internal links must name an existing page, and an anchor that exists on it."""
    problems = []
    anchors_by_page: dict[str, frozenset[str]] = {}
    for page in parsed.pages:
        anchors_by_page[page.source.name] = page.anchors
        anchors_by_page[page.output_name] = page.anchors
    anchors_by_page[REFERENCES_PAGE] = frozenset(reference.key for reference in parsed.references)
    for page in parsed.pages:
        for link in page.links:
            target = link.page or page.source.name
            if target not in anchors_by_page:
                known = [p.source.name for p in parsed.pages]
                problems.append(
                    report(link.location, LINK_TO_MISSING_PAGE, page=link.page, suggestion=suggest_name(link.page, known))
                )
                continue
            anchors = anchors_by_page[target]
            if link.anchor is not None and link.anchor not in anchors:
                problems.append(
                    report(
                        link.location,
                        LINK_TO_MISSING_ANCHOR,
                        anchor=link.anchor,
                        page=target,
                        suggestion=suggest_name(link.anchor, anchors),
                    )
                )
    return problems


def check_math(pages: tuple[Page, ...], math: Mapping[tuple[str, bool], MathResult]) -> list[Diagnostic]:
    """Report KaTeX's message for each formula it could not render, at the formula's line."""
    problems = []
    for page in pages:
        for formula in page.formulas:
            result = math.get((formula.tex, formula.display))
            if result is not None and result.error:
                problems.append(report(formula.location, MATH_ERROR, problem=result.error))
            elif not formula.tex:
                problems.append(report(formula.location, EMPTY_FORMULA))
    return problems
