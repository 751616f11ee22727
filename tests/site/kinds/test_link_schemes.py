"""The registry of link schemes: a scheme is one module, and adding one touches nothing else.

The `chapter:` scheme below exists for this test only, the way
test_block_registry.py adds the `shout` block: `[the start](chapter:1)` links to
chapter 1's page. Registered, it is classified while a page is parsed, its uses
are collected on the page, checked across the site (an unknown chapter is a
problem at its line), written by its own `render_open` and previewed by its
own `previews` (the chapter's title in a popover).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape

import pytest
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup

from site_testing import PROJECT_ROOT, copy_sample, render_fragment
from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic, Location, Message, report
from sitegen.kinds.links import SCHEMES
from sitegen.kinds.links.base import LinkScheme, Preview, RenderTokens, list_uses, site_of
from sitegen.model import NameUse, ParsedProject
from sitegen.pipeline import check_project, make_site
from sitegen.read.load import load_project

# A scheme's problems are catalogue entries like the build's own (sitegen/messages.py).
NO_CHAPTER = Message("chapter-link-unknown", "Links", "no chapter {number}")


class ChapterScheme(LinkScheme):
    """`[text](chapter:N)`: a link to chapter N's page, for this test only."""

    name = "chapter"

    def classify(self, link: Token, target: str, siblings: Sequence[Token]) -> None:
        link.meta["key"] = target

    def check(self, parsed: ParsedProject, figure_files: Mapping[str, str]) -> Iterable[Diagnostic]:
        numbers = {str(page.chapter.number) for page in parsed.chapters if page.chapter}
        return [
            report(use.location, NO_CHAPTER, number=use.key)
            for _page, use in list_uses(parsed.pages, self.name)
            if use.key not in numbers
        ]

    def render_open(self, renderer: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
        key = tokens[index].meta["key"]
        page = next((p for p in site_of(env).chapters if p.chapter and str(p.chapter.number) == key), None)
        return f'<a class="chapter-ref" href="{escape(page.output_name if page else "#")}">'

    def previews(self, keys: Sequence[str], site: SiteContext, render_tokens: RenderTokens) -> list[Preview]:
        chapters = {str(p.chapter.number): p for p in site.chapters if p.chapter}
        return [
            Preview(chapters[key].output_name, "Chapter", chapters[key].title, Markup("<p>Chapter {}</p>").format(key))
            for key in keys
            if key in chapters
        ]


@pytest.fixture
def chapter_scheme(monkeypatch):
    monkeypatch.setitem(SCHEMES, "chapter", ChapterScheme())


def test_the_registry_holds_the_five_schemes_the_tutorial_uses():
    assert sorted(SCHEMES) == ["cite", "figure", "lab", "recorded", "term"]
    assert all(scheme.prefix == f"{name}:" for name, scheme in SCHEMES.items())


def test_a_registered_scheme_is_collected_and_rendered_by_its_module(chapter_scheme, sample):
    html, problems = render_fragment("Back to [the start](chapter:1), on to [the end](chapter:9).\n", *sample)
    assert problems == []
    assert html == (
        '<p>Back to <a class="chapter-ref" href="01-fixture.html">the start</a>, '
        'on to <a class="chapter-ref" href="#">the end</a>.</p>\n'
    )


def test_a_registered_scheme_checks_its_uses_across_the_site(chapter_scheme, tmp_path):
    content = copy_sample(tmp_path)
    chapter = content / "03-scoring.md"
    lines = chapter.read_text(encoding="utf-8").split("\n")
    chapter.write_text("\n".join([*lines, "", "Back to [the start](chapter:1), on to [the end](chapter:9)."]), encoding="utf-8")
    checked = check_project(load_project(PROJECT_ROOT, content))
    [page] = [page for page in checked.parsed.chapters if page.output_name == "03-scoring.html"]
    path = f"{content}/03-scoring.md"
    assert page.uses_of("chapter") == (
        NameUse("1", Location(path, len(lines) + 2), "", "chapter"),
        NameUse("9", Location(path, len(lines) + 2), "", "chapter"),
    )
    assert [d.format() for d in checked.diagnostics] == [f"{path}:{len(lines) + 2}: no chapter 9"]


def test_a_registered_scheme_previews_what_its_links_name(chapter_scheme, tmp_path):
    content = copy_sample(tmp_path)
    chapter = content / "03-scoring.md"
    chapter.write_text(
        chapter.read_text(encoding="utf-8") + "\nBack to [the start](chapter:1), [again](chapter:1).\n", encoding="utf-8"
    )
    checked = check_project(load_project(PROJECT_ROOT, content))
    [first] = [page for page in checked.parsed.chapters if page.chapter and page.chapter.number == 1]
    html = make_site(checked)["03-scoring.html"]
    assert isinstance(html, bytes)
    expected = (
        f'<template data-preview="{first.output_name}">\n<p class="preview-kind">Chapter</p>\n'
        f'<p class="preview-title">{escape(first.title)}</p>\n<div class="preview-body"><p>Chapter 1</p></div>\n</template>'
    )
    assert html.decode().count(expected) == 1


def test_without_the_scheme_its_addresses_are_refused_like_any_unknown_one(sample):
    _html, problems = render_fragment("Back to [the start](chapter:1).\n", *sample)
    assert problems == [
        "content/01-fixture.md:6: links may only be web addresses (http://, https://), mailto:, or pages and anchors of this site"
    ]
