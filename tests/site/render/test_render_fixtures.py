"""Rendering fixtures in markdown-it-py's style: Markdown and the expected body HTML side by side.

Each file in render_fixtures/ holds cases of the form

    title
    .
    Markdown input
    .
    expected HTML
    .

The input is rendered as the body of chapter 1 of a site that otherwise holds
the sample content (its glossary, references and figures), so figure numbers
start at 001. `--update-golden` rewrites the expected HTML from the output.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file

from site_testing import RENDER_FIXTURES, render_fragment

# A case with a Python cell runs it in Pyodide under Node (when its output is not cached): marked for `make test-fast`.
CASES = [
    pytest.param(
        path,
        line,
        title,
        source,
        expected,
        id=f"{path.stem}:{line}",
        marks=[pytest.mark.pyodide] if "```{python}" in source else [],
    )
    for path in sorted(RENDER_FIXTURES.glob("*.md"))
    for line, title, source, expected in read_fixture_file(path)
]


def rewrite_expected(path: Path, title: str, actual: str) -> None:
    """Replace the expected HTML of the case with this title (titles are unique within a file)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    start = lines.index(title)
    separators = [i for i in range(start, len(lines)) if lines[i] == "."][:3]
    first, last = separators[1] + 1, separators[2]
    lines[first:last] = actual.rstrip("\n").split("\n")
    path.write_text("\n".join(lines), encoding="utf-8")


@pytest.mark.parametrize("path,line,title,source,expected", CASES)
def test_fixture_renders_expected_html(path, line, title, source, expected, sample, update_golden):
    html, problems = render_fragment(source, *sample)
    assert problems == []
    if update_golden and html != expected:
        rewrite_expected(path, title, html)
        return
    assert html == expected
