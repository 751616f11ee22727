"""Parse each source on its own: Markdown pages, the glossary, references and figures.

`parse_page` is a pure function of one source's text (plus the core's source
for listings), so a watcher can re-parse just the file that changed. Problems
that need no other page (front matter, containers, lab settings, computed
values) are found here; cross-page checks live in validate.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from markdown_it.token import Token

from rollout_lab.widgets import WIDGET_SETTINGS, normalise_settings, render_widget
from sitegen.computed import ComputedValueError, compute_value, split_settings
from sitegen.diagnostics import Diagnostic, report_error, suggest_name
from sitegen.figures import parse_figure
from sitegen.front_matter import read_front_matter
from sitegen.listings import ListingError, extract_listing
from sitegen.load import CHAPTER_FILE
from sitegen.markdown import (
    CONTAINER_CLOSE,
    CONTAINER_OPEN,
    block_line,
    create_markdown,
    iterate_inline_children,
    typeset_plain_text,
)
from sitegen.model import (
    Chapter,
    Figure,
    FigurePlacement,
    Formula,
    InternalLink,
    NameUse,
    Page,
    PageKind,
    Project,
    Reference,
    Source,
    Term,
)
from sitegen.references import parse_references

CONTAINER_KINDS = ("answer", "exercise", "figure", "lab", "listing", "note")
DEFAULT_EXERCISE_TITLE = "Your turn"


@dataclass(frozen=True, eq=False)
class ParsedProject:
    """Every source parsed, with the problems each one has on its own."""

    chapters: tuple[Page, ...]
    index: Page | None
    glossary: Page | None
    references: tuple[Reference, ...]
    figures: tuple[Figure, ...]
    problems: tuple[Diagnostic, ...]
    has_references_file: bool = True
    notation: Page | None = None

    @property
    def pages(self) -> tuple[Page, ...]:
        """Return every Markdown page: contents, chapters in order, glossary, notation."""
        return tuple(p for p in (self.index, *self.chapters, self.glossary, self.notation) if p is not None)


PageParser = Callable[[Source, PageKind, int, dict[str, str]], Page]


def parse_project(project: Project, parse: PageParser | None = None) -> ParsedProject:
    """Parse every source of the project; collect each one's own problems.

    `parse` replaces `parse_page` (the dev server passes one that reuses the
    pages whose text did not change).
    """
    parse_page_text = parse or parse_page
    core = dict(project.core_modules)
    chapter_count = max(len(project.chapters), 1)
    problems: list[Diagnostic] = []
    chapters = [parse_page_text(source, "chapter", chapter_count, core) for source in project.chapters]
    chapters.sort(key=lambda page: (page.chapter.number if page.chapter else 99, page.source.name))
    index = parse_page_text(project.index, "index", chapter_count, core) if project.index else None
    glossary = parse_page_text(project.glossary, "glossary", chapter_count, core) if project.glossary else None
    notation = parse_page_text(project.notation, "notation", chapter_count, core) if project.notation else None
    for stray in project.stray_markdown:
        problems.append(
            report_error(
                stray.at(0),
                "unexpected Markdown file: chapters are named NN-slug.md (e.g. 03-scoring.md); "
                "the other pages are index.md, glossary.md and notation.md",
            )
        )
    if project.index is None:
        problems.append(
            report_error(
                Source(f"{project.content_label}/index.md", "index.md", "").at(0),
                "missing contents page: add index.md with front matter title: and lede:, then the one-paragraph promise",
            )
        )
    references, reference_problems = parse_references(project.references)
    problems += reference_problems
    figures = []
    for source in project.figures:
        figure, figure_problems = parse_figure(source)
        problems += figure_problems
        if figure is not None:
            figures.append(figure)
    for page in (index, *chapters, glossary, notation):
        if page is not None:
            problems += page.problems
    return ParsedProject(
        chapters=tuple(chapters),
        index=index,
        glossary=glossary,
        references=references,
        figures=tuple(figures),
        problems=tuple(problems),
        has_references_file=project.references is not None,
        notation=notation,
    )


def parse_page(source: Source, kind: PageKind, chapter_count: int, core_modules: dict[str, str]) -> Page:
    """Parse one Markdown page and collect what it uses and its own problems."""
    tokens = create_markdown().parse(source.text, {})
    front_matter, problems = read_front_matter(source, tokens, kind, chapter_count)
    title = typeset_plain_text(front_matter.title or "")
    lede = typeset_plain_text(front_matter.lede or "")
    chapter = None
    output_name = {"index": "index.html", "glossary": "glossary.html", "notation": "notation.html"}.get(kind, "")
    if kind == "chapter":
        match = CHAPTER_FILE.match(source.name)
        assert match, "load_project only passes NN-slug.md files as chapters"
        number, slug = int(match.group(1)), match.group(2)
        output_name = f"{match.group(1)}-{slug}.html"
        if front_matter.chapter is not None and front_matter.chapter != number:
            problems.append(
                report_error(
                    source.at(front_matter.chapter_line),
                    f"front matter says chapter {front_matter.chapter} but the file name says {match.group(1)}",
                )
            )
        chapter = Chapter(
            number=front_matter.chapter or number,
            slug=slug,
            title=title,
            lede=lede,
            location=source.at(front_matter.chapter_line),
        )
    collected = collect_page_contents(source, tokens, kind, core_modules)
    return Page(
        kind=kind,
        source=source,
        output_name=output_name,
        title=title,
        lede=lede,
        chapter=chapter,
        tokens=tuple(tokens),
        anchors=frozenset(collected.anchors),
        terms_used=tuple(collected.terms_used),
        citations=tuple(collected.citations),
        figure_references=tuple(collected.figure_references),
        figure_placements=tuple(collected.figure_placements),
        links=tuple(collected.links),
        formulas=tuple(collected.formulas),
        terms=tuple(collected.terms),
        has_lab=collected.lab_count > 0,
        problems=tuple(problems + collected.problems),
    )


class PageContents:
    """What one walk over a page's tokens finds (a scratch pad, filled by collect_page_contents)."""

    def __init__(self) -> None:
        self.anchors: list[str] = []
        self.terms_used: list[NameUse] = []
        self.citations: list[NameUse] = []
        self.figure_references: list[NameUse] = []
        self.figure_placements: list[FigurePlacement] = []
        self.links: list[InternalLink] = []
        self.formulas: list[Formula] = []
        self.terms: list[Term] = []
        self.problems: list[Diagnostic] = []
        self.lab_count = 0
        self.exercise_count = 0


def collect_page_contents(source: Source, tokens: list[Token], kind: PageKind, core_modules: dict[str, str]) -> PageContents:
    """Walk the tokens once: check containers and headings, and record every use of a name."""
    found = PageContents()
    lines = source.text.split("\n")
    open_containers: list[Token] = []
    for token in tokens:
        line = block_line(token)
        if token.type == "heading_open":
            if token.tag == "h1":
                found.problems.append(
                    report_error(
                        source.at(line),
                        "use '##' and '###' for headings: the page title (from the front matter) is the page's only h1",
                    )
                )
            anchor = token.attrGet("id")
            if anchor:
                found.anchors.append(str(anchor))
        elif token.type == CONTAINER_OPEN:
            parent = open_containers[-1] if open_containers else None
            check_container(source, token, parent, lines, core_modules, found)
            open_containers.append(token)
        elif token.type == CONTAINER_CLOSE:
            opened = open_containers.pop()
            if opened.meta.get("kind") == "exercise" and opened.meta.get("answers", 0) == 0:
                found.problems.append(
                    report_error(source.at(block_line(opened)), "exercise has no '::: answer' container (the worked answer)")
                )
        elif token.type in ("math_block", "math_block_label"):
            found.formulas.append(Formula(token.content.strip(), True, source.at(line)))
        elif token.type == "sources":
            for citation in token.meta["citations"]:
                found.citations.append(NameUse(citation["key"], source.at(citation["line"]), citation["anchor"]))
        elif token.type == "dt_open" and kind == "glossary":
            found.terms.append(Term(token.meta["key"], token.meta["term"], source.at(line)))
            found.anchors.append(token.meta["key"])
    for _inline, child, line in iterate_inline_children(tokens):
        collect_inline(source, child, line, found)
    check_unique_anchors(source, tokens, found)
    if kind == "glossary":
        check_glossary_terms(found.terms, found.problems)
    return found


def check_unique_anchors(source: Source, tokens: list[Token], found: PageContents) -> None:
    """A heading must not take an anchor that a figure, lab or exercise on the same page already has."""
    generated = {anchor for anchor in found.anchors if found.anchors.count(anchor) > 1}
    for token in tokens:
        anchor = token.attrGet("id") if token.type == "heading_open" else None
        if anchor in generated:
            found.problems.append(
                report_error(
                    source.at(block_line(token)),
                    f"heading anchor '{anchor}' is also the anchor of a figure, lab or exercise on this page; rename the heading",
                )
            )


def collect_inline(source: Source, child: Token, line: int, found: PageContents) -> None:
    """Record one inline token's use of a term, source, figure, page or formula; compute values."""
    location = source.at(line)
    if child.type == "link_open":
        kind = child.meta.get("kind")
        if kind == "term":
            found.terms_used.append(NameUse(child.meta["key"], location))
        elif kind == "cite":
            found.citations.append(NameUse(child.meta["key"], location, child.meta["anchor"]))
        elif kind == "figure":
            found.figure_references.append(NameUse(child.meta["key"], location))
        elif kind == "internal":
            found.links.append(InternalLink(child.meta["page"], child.meta["anchor"], location))
    elif child.type == "image":
        found.problems.append(
            report_error(location, "images are not supported in the prose; use a '::: figure NAME' container with an SVG")
        )
    elif child.type == "math_inline":
        found.formulas.append(Formula(child.content.strip(), False, location))
    elif child.type == "computed_value":
        try:
            child.meta["text"] = compute_value(child.content)
        except ComputedValueError as error:
            found.problems.append(report_error(location, str(error)))
    elif child.type == "text" and "{{" in child.content:
        found.problems.append(report_error(location, "unclosed computed value: '{{' without '}}' on the same line"))


def check_container(
    source: Source,
    token: Token,
    parent: Token | None,
    lines: list[str],
    core_modules: dict[str, str],
    found: PageContents,
) -> None:
    """Check one `:::` container (kind, closing marker, arguments) and store what render needs in its meta."""
    location = source.at(block_line(token))
    words = token.info.split()
    kind = words[0] if words else ""
    token.meta["kind"] = kind
    if not kind:
        found.problems.append(report_error(location, "stray ':::' (a closing marker with no container open)"))
        return
    closing_line = token.map[1] if token.map else len(lines)
    closed = closing_line < len(lines) and re.fullmatch(rf":{{{len(token.markup)},}}\s*", lines[closing_line].strip() or "-")
    if not closed:
        found.problems.append(report_error(location, f"unclosed container '{kind}': add a line '{token.markup}' where it ends"))
    if kind not in CONTAINER_KINDS:
        found.problems.append(
            report_error(
                location,
                f"unknown container kind '{kind}'{suggest_name(kind, CONTAINER_KINDS)}; "
                f"known kinds: {', '.join(CONTAINER_KINDS)}",
            )
        )
        return
    arguments = words[1:]
    if kind == "figure":
        if len(arguments) != 1:
            found.problems.append(
                report_error(location, "figure container takes one figure name, e.g. '::: figure context-growth'")
            )
            return
        token.meta["figure"] = arguments[0]
        found.figure_placements.append(FigurePlacement(arguments[0], location))
        found.anchors.append(f"figure-{arguments[0]}")
    elif kind == "exercise":
        found.exercise_count += 1
        token.meta["title"] = " ".join(arguments) or DEFAULT_EXERCISE_TITLE
        token.meta["id"] = f"exercise-{found.exercise_count}"
        found.anchors.append(token.meta["id"])
    elif kind == "answer":
        if parent is None or parent.meta.get("kind") != "exercise":
            found.problems.append(report_error(location, "an 'answer' container belongs inside an 'exercise' container"))
        else:
            parent.meta["answers"] = parent.meta.get("answers", 0) + 1
            if parent.meta["answers"] > 1:
                found.problems.append(report_error(location, "exercise has more than one 'answer' container"))
    elif kind == "note":
        token.meta["title"] = " ".join(arguments)
    elif kind == "lab":
        check_lab(location, token, arguments, found)
    elif kind == "listing":
        if not arguments:
            found.problems.append(
                report_error(
                    location,
                    "listing container needs a file and function names, e.g. '::: listing rollout_lab/sampling.py next_state'",
                )
            )
            return
        try:
            token.meta["code"] = extract_listing(core_modules, arguments[0], tuple(arguments[1:]))
            token.meta["file"] = arguments[0]
            token.meta["names"] = tuple(arguments[1:])
        except ListingError as error:
            found.problems.append(report_error(location, str(error)))


def check_lab(location, token: Token, arguments: list[str], found: PageContents) -> None:
    """Check a lab slot's widget and settings with the core; pre-render its results into the token."""
    if not arguments:
        found.problems.append(report_error(location, f"lab container needs a widget name: {', '.join(sorted(WIDGET_SETTINGS))}"))
        return
    widget, words = arguments[0], arguments[1:]
    if widget not in WIDGET_SETTINGS:
        found.problems.append(
            report_error(
                location,
                f"unknown lab widget '{widget}'{suggest_name(widget, WIDGET_SETTINGS)}; "
                f"known widgets: {', '.join(sorted(WIDGET_SETTINGS))}",
            )
        )
        return
    settings, malformed = split_settings(words)
    if malformed:
        found.problems.append(report_error(location, f"bad lab parameter '{malformed[0]}': write settings as key=value"))
        return
    for key in settings:
        if key not in WIDGET_SETTINGS[widget]:
            allowed = ", ".join(WIDGET_SETTINGS[widget])
            found.problems.append(
                report_error(
                    location,
                    f"bad lab parameter '{key}' for the {widget} widget{suggest_name(key, WIDGET_SETTINGS[widget])}; "
                    f"settings: {allowed}",
                )
            )
            return
    try:
        rendered = render_widget(widget, normalise_settings(widget, settings))
    except ValueError as error:  # SettingError: the core's own message, as the browser shows it
        found.problems.append(report_error(location, f"bad lab parameter: {error}"))
        return
    found.lab_count += 1
    token.meta["widget"] = widget
    token.meta["rendered"] = rendered
    token.meta["id"] = f"lab-{found.lab_count}"
    found.anchors.append(token.meta["id"])


def check_glossary_terms(terms: list[Term], problems: list[Diagnostic]) -> None:
    """Glossary keys must be unique and the entries alphabetical, so readers can scan them."""
    seen: dict[str, Term] = {}
    for term in terms:
        if term.key in seen:
            problems.append(
                report_error(
                    term.location,
                    f"duplicate glossary term key '{term.key}' (first at line {seen[term.key].location.line})",
                )
            )
        else:
            seen[term.key] = term
    for previous, term in zip(terms, terms[1:]):
        if term.text.casefold() < previous.text.casefold():
            problems.append(
                report_error(
                    term.location,
                    f"glossary terms must be in alphabetical order: '{term.text}' comes after '{previous.text}'",
                )
            )
