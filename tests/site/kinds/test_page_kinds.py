"""The registry of page kinds: a kind is one module and one template, and adding one touches nothing else.

The `colophon` kind below exists for this test only, the way
test_block_registry.py adds the `shout` block: colophon.md, when the content
folder has one, is read, its front matter checked, its Markdown parsed and
checked with every other page's, and it is written as colophon.html through its
own template.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import pytest

from site_testing import PROJECT_ROOT, copy_sample
from sitegen.context import SiteContext
from sitegen.diagnostics import Message
from sitegen.kinds.pages import PAGE_KINDS
from sitegen.kinds.pages.base import PageKind
from sitegen.model import Page
from sitegen.pipeline import check_project, make_site
from sitegen.read.load import load_project


class ColophonKind(PageKind):
    """colophon.md: how the book was made, for this test only."""

    name = "colophon"
    source_name = "colophon.md"
    output_name = "colophon.html"
    template = "colophon.html"
    missing = Message(
        "colophon-missing", "Files and folders", "missing colophon: add colophon.md with front matter title: and lede:"
    )

    def template_context(self, page: Page, site: SiteContext) -> Mapping[str, object]:
        return {"description": page.lede, "chapter_count": len(site.chapters)}


TEMPLATE = (
    "colophon.html",
    "<title>{{ page.title }}</title>\n<p>{{ description }} ({{ chapter_count }} chapters)</p>\n{{ body }}",
)
COLOPHON = "---\ntitle: Colophon\nlede: How this was made.\n---\n\nSet in [reward](term:) with care.\n"


@pytest.fixture
def colophon(monkeypatch):
    monkeypatch.setitem(PAGE_KINDS, "colophon", ColophonKind())


def load_sample(tmp_path, colophon_text: str | None):
    """Return the sample project with colophon.md (when given) and the kind's template."""
    content = copy_sample(tmp_path)
    if colophon_text is not None:
        (content / "colophon.md").write_text(colophon_text, encoding="utf-8")
    project = load_project(PROJECT_ROOT, content)
    return content, replace(project, templates=(*project.templates, TEMPLATE))


def test_the_registry_holds_the_four_kinds_the_tutorial_uses_in_reading_order():
    assert list(PAGE_KINDS) == ["index", "chapter", "glossary", "notation"]


def test_a_registered_kind_is_read_checked_and_rendered_through_its_template(colophon, tmp_path):
    _content, project = load_sample(tmp_path, COLOPHON)
    checked = check_project(project)
    assert [d.format() for d in checked.diagnostics] == []
    assert checked.parsed.pages[-1].kind == "colophon"
    files = make_site(checked)
    assert files["colophon.html"] == (
        b"<title>Colophon</title>\n<p>How this was made. (3 chapters)</p>\n"
        b'<p>Set in <a href="glossary.html#reward" class="term">reward</a> with care.</p>\n'
    )


def test_a_registered_kind_has_its_front_matter_and_its_absence_checked(colophon, tmp_path):
    content, project = load_sample(tmp_path, "---\ntitle: Colophon\n---\n\nText.\n")
    assert [d.format() for d in check_project(project).diagnostics] == [
        f"{content}/colophon.md:1: missing front matter field 'lede'"
    ]
    content, project = load_sample(tmp_path / "without", None)
    assert [d.format() for d in check_project(project).diagnostics] == [
        f"{content}/colophon.md: missing colophon: add colophon.md with front matter title: and lede:"
    ]


def test_without_the_kind_its_file_is_an_unexpected_one(tmp_path):
    content, project = load_sample(tmp_path, COLOPHON)
    assert [d.format() for d in check_project(project).diagnostics] == [
        f"{content}/colophon.md: unexpected Markdown file: chapters are named NN-slug.md (e.g. 03-scoring.md); "
        "the other pages are index.md, glossary.md and notation.md"
    ]
