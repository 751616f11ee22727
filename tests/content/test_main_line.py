"""Every chapter's main line stays readable in one sitting: at most 3,000 words before a closing "Going deeper".

The main line is the chapter's Markdown from its front matter to its
`## Going deeper` heading (or its end), without code blocks, display math or
block fences: the prose and tables a reader walks through, counted as read
(a link is its text, not its target; a computed value `{{ … }}` one number). What goes further
(details, code, side roads) belongs under "Going deeper" (issue 58).
"""

import re
from pathlib import Path

import pytest

CONTENT = Path(__file__).resolve().parents[2] / "content"
CHAPTERS = sorted(CONTENT.glob("[0-9][0-9]-*.md"))
LIMIT = 3000
WORD = re.compile(r"[A-Za-z0-9][\w'\u2019.-]*")


def count_main_line_words(markdown: str) -> int:
    """Return the words of a chapter before its `## Going deeper`, code, display math and fences left out."""
    body = markdown.split("\n---\n", 1)[1] if markdown.startswith("---") else markdown
    body = body.split("\n## Going deeper", 1)[0]
    body = re.sub(r"```.*?```", " ", body, flags=re.S)
    body = re.sub(r"\$\$.*?\$\$", " ", body, flags=re.S)
    body = re.sub(r"^:::.*$", " ", body, flags=re.M)
    body = re.sub(r"\]\([^)\s]*\)", "]", body)
    body = re.sub(r"\{\{.*?\}\}", "0", body)
    return len(WORD.findall(body))


def test_there_are_seven_chapters():
    assert [path.name[:2] for path in CHAPTERS] == ["01", "02", "03", "04", "05", "06", "07"]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_the_main_line_is_at_most_3000_words(path: Path):
    assert count_main_line_words(path.read_text(encoding="utf-8")) <= LIMIT


def test_the_count_stops_at_going_deeper_and_skips_code():
    text = "---\ntitle: t\n---\n\none two\n\n```python\nx = 1\n```\n\n$$a b c$$\n\n## Going deeper\n\nfour five"
    assert count_main_line_words(text) == 2


def test_a_link_counts_its_text_and_a_computed_value_one_number():
    text = "---\ntitle: t\n---\n\nThe [learning rate](term:learning-rate) is {{ probability T=1 candidate=0 }}."
    assert count_main_line_words(text) == 5
