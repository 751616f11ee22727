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

from dataclasses import replace
from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file

from site_testing import PROJECT_ROOT, SAMPLE_CONTENT, SITE_TESTS
from sitegen.formulas import KatexProcess
from sitegen.load import load_project
from sitegen.model import Source
from sitegen.parse import parse_page
from sitegen.pipeline import check_project, create_site_context
from sitegen.render import find_term_users, number_figures, render_markdown

FIXTURES = SITE_TESTS / "render_fixtures"
FRONT_MATTER = "---\ntitle: Fixture\nlede: A fixture page.\nchapter: 1\n---\n"
CASES = [
    pytest.param(path, line, title, source, expected, id=f"{path.stem}:{line}")
    for path in sorted(FIXTURES.glob("*.md"))
    for line, title, source, expected in read_fixture_file(path)
]


@pytest.fixture(scope="module")
def sample():
    """The checked sample project (its glossary, references and figures) and a KaTeX process."""
    project = load_project(PROJECT_ROOT, SAMPLE_CONTENT)
    checked = check_project(project)
    assert not checked.diagnostics, [d.format() for d in checked.diagnostics]
    with KatexProcess(project.katex_script) as katex:
        yield checked, katex


def render_fragment(markdown: str, checked, katex) -> tuple[str, list[str]]:
    """Render Markdown as chapter 1's body; return the HTML and the page's own problems."""
    source = Source("content/01-fixture.md", "01-fixture.md", FRONT_MATTER + markdown)
    page = parse_page(source, "chapter", 6, dict(checked.project.core_modules))
    math = katex.render((f.tex, f.display) for f in page.formulas)
    errors = [
        f"{f.location}: math error: {math[(f.tex, f.display)].error}" for f in page.formulas if math[(f.tex, f.display)].error
    ]
    site = replace(
        create_site_context(checked),
        chapters=(page,),
        figure_numbers=number_figures([page]),
        term_users=find_term_users([page]),
        math={**checked.math, **math},
    )
    return render_markdown(page.tokens, page, site), [d.format() for d in page.problems] + errors


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
