"""The front doors stay short: README fits a screenful or two, and the benchmarks page tells today's figures only.

Figures and the history of how they were reached belong in docs/benchmarks.md
and its dated log (docs/log/), not in README; a limit here is a prompt to move
text, not to squeeze it.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def paragraph_starting(text: str, opening: str) -> list[str]:
    """Return the lines of the first paragraph (blank-line separated) that starts with `opening`."""
    for paragraph in text.split("\n\n"):
        if paragraph.startswith(opening):
            return paragraph.splitlines()
    raise AssertionError(f"no paragraph starts with {opening!r}")


def test_readme_is_at_most_120_lines():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 120


def test_no_readme_line_is_over_160_characters():
    long = [number for number, line in enumerate(README.read_text(encoding="utf-8").splitlines(), 1) if len(line) > 160]
    assert long == []


def test_the_readme_test_paragraph_is_at_most_four_lines():
    assert len(paragraph_starting(README.read_text(encoding="utf-8"), "`make test` ")) <= 4


def test_benchmarks_page_is_at_most_300_lines():
    assert len((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").splitlines()) <= 300
