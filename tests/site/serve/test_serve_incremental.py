"""Incremental rebuilds (the dev server's) produce exactly the bytes of a full build, and re-render only what changed.

Each test edits a copy of the sample content (and, for template changes, a
copy of the templates under a scratch project root), rebuilds with one
long-lived SiteSession, and compares every output file with a full build of
the same sources from scratch.
"""

from __future__ import annotations

import shutil
from dataclasses import fields, replace
from pathlib import Path

import pytest

from site_testing import PROJECT_ROOT, SAMPLE_CONTENT, share_python_snapshot, snapshot_folder
from sitegen.check.formulas import KatexProcess
from sitegen.context import RuntimeUrls, SiteContext
from sitegen.diagnostics import BuildFailed
from sitegen.model import Page
from sitegen.pipeline import check_project, make_site
from sitegen.publish.write import update_site, write_site
from sitegen.read.load import load_project
from sitegen.render.pages import render_page
from sitegen.serve.incremental import (
    SiteSession,
    describe_render_inputs,
    list_fields_read_in_parts,
    list_render_inputs_providers,
)

CHAPTER_PAGES = ("01-rollout.html", "02-possibilities.html", "03-scoring.html")


@pytest.fixture
def scratch_root(tmp_path) -> Path:
    """A project root of its own: copied templates and content, the real core and front-end packages linked."""
    root = tmp_path / "project"
    root.mkdir()
    shutil.copytree(PROJECT_ROOT / "site_templates", root / "site_templates")
    shutil.copytree(PROJECT_ROOT / "client", root / "client")
    shutil.copytree(SAMPLE_CONTENT, root / "content")
    (root / "pysrc").symlink_to(PROJECT_ROOT / "pysrc")
    (root / "node_modules").symlink_to(PROJECT_ROOT / "node_modules")
    if (PROJECT_ROOT / ".cache" / "math.json").is_file():  # only saves KaTeX time
        (root / ".cache").mkdir()
        shutil.copy(PROJECT_ROOT / ".cache" / "math.json", root / ".cache" / "math.json")
    share_python_snapshot(root)
    return root


@pytest.fixture
def session(scratch_root):
    """A dev-server session over the scratch project, with one KaTeX process for its whole life."""
    with KatexProcess(
        PROJECT_ROOT / "node_modules/katex/dist/katex.js", scratch_root / ".cache" / "math.json", start_now=False
    ) as katex:
        yield SiteSession(scratch_root, None, katex)


def build_in_full(root: Path) -> dict[str, bytes | Path]:
    """Return every output file of a full build of root/content from scratch."""
    return make_site(check_project(load_project(root, None)))


def edit(path: Path, old: str, new: str) -> None:
    """Replace one exact piece of text in a file (it must be there)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_the_first_build_renders_every_page_and_equals_a_full_build(session, scratch_root):
    rebuild = session.rebuild()
    assert set(rebuild.rendered) == {"index.html", *CHAPTER_PAGES, "glossary.html"}
    assert rebuild.files == build_in_full(scratch_root)


def test_a_rebuild_without_changes_renders_nothing(session, scratch_root):
    first = session.rebuild()
    again = session.rebuild()
    assert again.rendered == ()
    assert again.files == first.files


def test_a_prose_edit_renders_only_that_chapter(session, scratch_root):
    session.rebuild()
    edit(scratch_root / "content/02-possibilities.md", "## ", "A new sentence in the prose.\n\n## ")
    rebuild = session.rebuild()
    assert rebuild.rendered == ("02-possibilities.html",)
    assert rebuild.files == build_in_full(scratch_root)
    assert b"A new sentence in the prose." in rebuild.files["02-possibilities.html"]


def test_a_new_term_use_also_renders_the_glossary(session, scratch_root):
    session.rebuild()
    edit(scratch_root / "content/02-possibilities.md", "## ", "The [reward](term:) of a draw.\n\n## ")
    rebuild = session.rebuild()
    assert sorted(rebuild.rendered) == ["02-possibilities.html", "glossary.html"]
    assert rebuild.files == build_in_full(scratch_root)


@pytest.mark.parametrize(
    ("file", "old", "new"),
    [
        pytest.param("02-possibilities.md", "title: ", "title: Renamed ", id="chapter-title"),
        pytest.param("03-scoring.md", "lede: ", "lede: A new lede. ", id="chapter-lede"),
        pytest.param("glossary.md", ": ", ": Redefined. ", id="glossary-definition"),
        pytest.param("references.yaml", "short: ", "short: X", id="reference-short-name"),
        pytest.param("index.md", "title: ", "title: Start, ", id="contents-title"),
        pytest.param("01-rollout.md", "$$\n", "$$\n\\sum_{i=1}^{K} r_i +\n", id="new-display-math"),
        pytest.param("01-rollout.md", "## The context grows", "## The context grows longer", id="heading"),
    ],
)
def test_edits_to_any_source_give_the_full_build_bytes(session, scratch_root, file, old, new):
    session.rebuild()
    edit(scratch_root / "content" / file, old, new)
    assert session.rebuild().files == build_in_full(scratch_root)


@pytest.mark.parametrize(
    ("file", "old", "new", "early"),
    [
        pytest.param("02-possibilities.md", "## ", "A new sentence.\n\n## ", ["02-possibilities.html"], id="prose"),
        pytest.param("01-rollout.md", "## The context grows", "## The context grows longer", ["01-rollout.html"], id="heading"),
        # A formula KaTeX draws with a class no page used: the pages point at another stylesheet, not yet written.
        pytest.param("01-rollout.md", "$$\n", "$$\n\\mathfrak{R} +\n", [], id="math-with-new-styles"),
        # Every page lists the chapters' titles: each is rendered afresh, and each goes early.
        pytest.param("02-possibilities.md", "title: ", "title: Renamed ", None, id="title"),
    ],
)
def test_a_content_edits_pages_are_published_as_rendered_when_they_point_at_the_same_assets(
    session, scratch_root, file, old, new, early
):
    published: list[tuple[str, bytes]] = []
    session.rebuild(publish=lambda name, data: published.append((name, data)))
    assert published == []  # the first build: nothing on disk is known yet
    edit(scratch_root / "content" / file, old, new)
    rebuild = session.rebuild(publish=lambda name, data: published.append((name, data)))
    assert [name for name, _data in published] == (list(rebuild.rendered) if early is None else early)
    assert all(rebuild.files[name] == data for name, data in published)  # the very bytes the rebuild then writes
    assert rebuild.files == build_in_full(scratch_root)


def test_after_a_template_change_no_page_goes_early(session, scratch_root):
    session.rebuild()
    edit(scratch_root / "site_templates/chapter.html", "<article", "<!-- edited -->\n<article")
    published: list[str] = []
    session.rebuild(reload_everything=True, publish=lambda name, data: published.append(name))
    assert published == []


def test_a_figure_edit_gives_the_full_build_bytes(session, scratch_root):
    session.rebuild()
    figure = next((scratch_root / "content/figures").glob("*.svg"))
    edit(figure, "</desc>", " (edited)</desc>")
    assert session.rebuild().files == build_in_full(scratch_root)


def test_adding_and_removing_a_chapter_gives_the_full_build_bytes(session, scratch_root):
    session.rebuild()
    content = scratch_root / "content"
    (content / "04-extra.md").write_text(
        "---\ntitle: Extra\nlede: One more.\nchapter: 4\n---\nMore about the [reward](term:).\n", encoding="utf-8"
    )
    added = session.rebuild()
    assert "04-extra.html" in added.files
    assert added.files == build_in_full(scratch_root)
    (content / "04-extra.md").unlink()
    removed = session.rebuild()
    assert "04-extra.html" not in removed.files
    assert removed.files == build_in_full(scratch_root)


def test_a_template_change_renders_every_page(session, scratch_root):
    session.rebuild()
    edit(scratch_root / "site_templates/chapter.html", "<article", "<!-- edited -->\n<article")
    not_reloaded = session.rebuild()
    assert not_reloaded.rendered == ()  # a content-only reload does not read templates
    rebuild = session.rebuild(reload_everything=True)
    assert set(CHAPTER_PAGES) <= set(rebuild.rendered)
    assert rebuild.files == build_in_full(scratch_root)
    assert b"<!-- edited -->" in rebuild.files["01-rollout.html"]


def test_a_failed_rebuild_raises_and_the_next_good_one_recovers(session, scratch_root):
    session.rebuild()
    chapter = scratch_root / "content/03-scoring.md"
    good = chapter.read_text(encoding="utf-8")
    edit(chapter, "[reward](term:)", "[reward](term:rewrd)")
    with pytest.raises(BuildFailed) as failure:
        session.rebuild()
    assert [d.format() for d in failure.value.diagnostics if not d.is_warning] == [
        "content/03-scoring.md:6: unknown glossary term 'rewrd' (did you mean 'reward'?)"
    ]
    chapter.write_text(good, encoding="utf-8")
    rebuild = session.rebuild()
    assert rebuild.rendered == ()  # back to the text of the last good build: nothing to render again
    assert rebuild.files == build_in_full(scratch_root)


def test_updating_the_output_in_place_gives_the_same_folder_as_a_full_write(session, scratch_root, tmp_path):
    served, fresh = tmp_path / "served", tmp_path / "fresh"
    first = session.rebuild()
    assert update_site(first.files, served) == sorted(first.files)
    edit(scratch_root / "content/01-rollout.md", "## The context grows", "## The context keeps growing")
    second = session.rebuild()
    changed = update_site(second.files, served, first.files)
    write_site(build_in_full(scratch_root), fresh)
    assert snapshot_folder(served) == snapshot_folder(fresh)
    # The heading is in the search index, which pages reach by a stable name: only the page and the index change,
    # and the service worker's manifest, which holds every page's hash (offline.json: its sizes).
    assert changed == ["01-rollout.html", "offline.json", "search-index.json", "sw.js"]
    assert update_site(second.files, served, second.files) == []


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        pytest.param("{{ no_such_value }}", "'no_such_value' is undefined", id="undefined"),
        pytest.param("{% if %}", "Expected an expression, got 'end of statement block'", id="syntax"),
    ],
)
def test_a_template_error_is_one_line_naming_the_template_and_line(session, scratch_root, broken, message):
    session.rebuild()
    template = scratch_root / "site_templates/chapter.html"
    lines = template.read_text(encoding="utf-8").split("\n")
    line = lines.index("{% block main %}") + 2  # the line after it, counting from 1
    lines.insert(line - 1, broken)
    template.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(BuildFailed) as failure:
        session.rebuild(reload_everything=True)
    assert [d.format() for d in failure.value.diagnostics] == [f"site_templates/chapter.html:{line}: template error: {message}"]


def test_edits_to_the_real_tutorial_give_the_full_build_bytes(tmp_path):
    content = tmp_path / "content"
    shutil.copytree(PROJECT_ROOT / "content", content)
    chapters = sorted(content.glob("0[1-6]-*.md"))

    def build_real_in_full() -> dict[str, bytes | Path]:
        return make_site(check_project(load_project(PROJECT_ROOT, content)))

    edits = [
        (chapters[2], "title: ", "title: Renamed "),
        (chapters[3], "\n## ", "\nA new paragraph about the [reward](term:).\n\n## "),
        (content / "glossary.md", "\n: ", "\n: Changed. "),
        (content / "references.yaml", "short: ", "short: Z"),
        (chapters[0], "\n## ", "\nA formula $y_{12}$ no page had.\n\n## "),
    ]
    with KatexProcess(
        PROJECT_ROOT / "node_modules/katex/dist/katex.js", PROJECT_ROOT / ".cache" / "math.json", start_now=False
    ) as katex:
        session = SiteSession(PROJECT_ROOT, content, katex)
        session.rebuild()
        for path, old, new in edits:
            edit(path, old, new)
            assert session.rebuild().files == build_real_in_full(), path.name


@pytest.mark.parametrize("field", [field.name for field in fields(RuntimeUrls)])
def test_every_runtime_url_is_an_input_of_a_lab_page(scratch_root, field):
    # Read from the one shape of the runtime's URLs: the snapshot's, once left out, counts too.
    rendered: list[tuple[Page, SiteContext]] = []

    def remember(page: Page, site: SiteContext) -> str:
        rendered.append((page, site))
        return render_page(page, site)

    make_site(check_project(load_project(scratch_root, None)), remember)
    lab_pages = [(page, site) for page, site in rendered if page.has_lab]
    assert lab_pages
    for page, site in lab_pages:
        assert site.lab is not None
        moved = replace(site.lab.runtime, **{field: "elsewhere/" + getattr(site.lab.runtime, field)})
        other = replace(site, lab=replace(site.lab, runtime=moved))
        assert describe_render_inputs(page, other) != describe_render_inputs(page, site)


def test_every_kind_declares_only_fields_the_site_context_has():
    # A misspelt field would leave the real one compared whole (never stale, only slower): this keeps the
    # declarations true. The page's own reads and the kinds' together are what describe_render_inputs reads in parts.
    names = {field.name for field in fields(SiteContext)}
    declared = {kind.name: kind.site_fields for kind in list_render_inputs_providers() if kind.site_fields}
    assert all(declared_fields <= names for declared_fields in declared.values()), declared
    assert list_fields_read_in_parts() == frozenset(
        {"chapters", "math", "assets", "lab", "cell_assets", "term_users", "figures", "figure_numbers", "references", "cells"}
    )
