"""Compiled templates kept in the tool's cache (render/pages.py): one file per version of a template, never another's."""

from __future__ import annotations

from pathlib import Path

from sitegen.render.pages import create_environment


def render_version(templates: tuple[tuple[str, str], ...], cache: Path) -> str:
    """Render page.html of these templates through a fresh environment over the cache folder."""
    create_environment.cache_clear()
    return create_environment(templates, cache).get_template("page.html").render(title="Rollouts")


def test_two_versions_of_a_template_sharing_the_cache_keep_a_compiled_file_each(tmp_path: Path):
    ours = (("page.html", "<h1>{{ title }}</h1>\n"),)
    another_worktrees = (("page.html", "<h2>{{ title }}</h2>\n"),)
    assert render_version(ours, tmp_path) == "<h1>Rollouts</h1>\n"
    (kept,) = tmp_path.iterdir()
    written = kept.stat().st_mtime_ns
    assert render_version(another_worktrees, tmp_path) == "<h2>Rollouts</h2>\n"
    assert len(list(tmp_path.iterdir())) == 2
    assert render_version(ours, tmp_path) == "<h1>Rollouts</h1>\n"
    assert kept.stat().st_mtime_ns == written  # found and loaded, not compiled and written again
