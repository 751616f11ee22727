"""The Markdown dialect's bounds and heading ids: nesting up to markdown-it's limit keeps every line, one level more
is reported; every heading gets an id of its own, in linear time."""

from __future__ import annotations

import re

import pytest

from site_testing import FIXTURE_FRONT_MATTER, render_fragment
from sitegen.check.parse import parse_page
from sitegen.model import Source

FRONT_MATTER_LINES = FIXTURE_FRONT_MATTER.count("\n")


def nested_list(depth: int) -> str:
    return "".join("  " * level + f"- level {level + 1}\n" for level in range(depth))


def parse_chapter(body: str) -> tuple[list[str], str]:
    """Return a chapter's problems and all the text its tokens hold."""
    page = parse_page(Source("content/01-fixture.md", "01-fixture.md", FIXTURE_FRONT_MATTER + body), "chapter", 6, {})
    text = " ".join(token.content for token in page.tokens if token.type == "inline")
    return [problem.format() for problem in page.problems], text


@pytest.mark.parametrize(
    "body",
    [
        nested_list(9) + "\nThe end.\n",
        "> " * 19 + "deep quote\n\nThe end.\n",
        "::: note N\n" + "> " * 18 + "deep quote\n:::\n\nThe end.\n",
    ],
    ids=["list-9-deep", "quote-19-deep", "quote-18-deep-in-a-note"],
)
def test_nesting_up_to_the_limit_keeps_every_line(body):
    problems, text = parse_chapter(body)
    assert problems == []
    assert "The end." in text and ("level 9" in text or "deep quote" in text)


@pytest.mark.parametrize(
    ("body", "first", "last"),
    [
        (nested_list(10) + "\n## After\n\nThe end.\n", 10, 14),
        ("Intro.\n\n" + nested_list(12), 12, 14),
        ("> " * 20 + "deep quote\n\nThe end.\n", 1, 1),
        ("::: note N\n" + "> " * 19 + "deep quote\n:::\n\nThe end.\n", 2, 2),
    ],
    ids=["list-10-deep-mid-page", "list-12-deep-at-the-end", "quote-20-deep", "quote-19-deep-in-a-note"],
)
def test_nesting_past_the_limit_is_reported_at_its_line_with_the_lines_lost(body, first, last):
    problems, _text = parse_chapter(body)
    first, last = first + FRONT_MATTER_LINES, last + FRONT_MATTER_LINES  # lines of the file
    lost = f"line {first}" if first == last else f"lines {first} to {last}"
    assert problems[0] == (
        f"content/01-fixture.md:{first}: nested too deeply: the Markdown parser stops at 20 levels "
        f"(a list level counts 2, a quote or container 1) and would drop {lost}; flatten this list or quote"
    )


def heading_ids(body: str) -> list[str]:
    page = parse_page(Source("content/01-fixture.md", "01-fixture.md", FIXTURE_FRONT_MATTER + body), "chapter", 6, {})
    return [str(token.attrGet("id")) for token in page.tokens if token.type == "heading_open"]


@pytest.mark.parametrize(
    ("body", "ids"),
    [
        ("## !!!\n\n## 🎉\n\n## Section\n", ["section", "section-1", "section-2"]),
        ("## Main\n\n## Main\n", ["main-section", "main-section-1"]),  # the template's id="main" stays its own
        ("## Same\n\n## Same 1\n\n## Same\n\n## Same\n", ["same", "same-1", "same-2", "same-3"]),
        ("## Same 1\n\n## Same\n\n## Same\n\n### Same 1\n", ["same-1", "same", "same-2", "same-1-1"]),
        # a chapter's first link to a term carries id="use-verifier": the heading takes the next free one
        ("## Use verifier\n\nA [verifier](term:) checks.\n\n## Use verifier\n", ["use-verifier-1", "use-verifier-2"]),
        ("## Use verifier\n\nNo term link here.\n", ["use-verifier"]),
    ],
    ids=["no-text", "reserved", "repeats", "repeats-after-a-number", "term-first-use", "no-term-use"],
)
def test_heading_ids_are_never_empty_and_unique_against_every_id_the_page_carries(body, ids):
    assert heading_ids(body) == ids


def test_forty_thousand_equal_headings_are_numbered_in_order():
    assert heading_ids("## Again\n\n" * 40_000)[-3:] == ["again-39997", "again-39998", "again-39999"]


def test_a_rendered_chapter_carries_each_id_once_when_a_heading_reads_like_a_term_s_first_use(sample):
    html, problems = render_fragment("## Use verifier\n\nA [verifier](term:) checks.\n\n## !!!\n\n## 🎉\n", *sample)
    assert problems == []
    ids = re.findall(r'\bid="([^"]*)"', html)
    assert sorted(ids) == ["section", "section-1", "use-verifier", "use-verifier-1"]
