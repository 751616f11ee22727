"""Print: no controls, every worked answer printed at the end of its chapter, every cited source's URL written out."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

CHAPTER = "04-follow-draw-3.html"  # a lab, an exercise, sources
CONTROLS = [
    "#site-search-input",
    "[data-theme-toggle]",
    ".lab-controls",
    ".lab-status",
    ".pager",
    ".chapter-toc",
    ".site-nav",
    "details.answer",
    ".reading-progress",
]


@pytest.fixture(scope="module")
def printed(reader_page: Page, site_url: str) -> Page:
    """Chapter 4 as printed."""
    reader_page.goto(site_url + CHAPTER)
    reader_page.emulate_media(media="print")
    yield reader_page
    reader_page.emulate_media(media="screen")


def test_no_control_is_printed(printed: Page):
    for selector in CONTROLS:
        controls = printed.locator(selector)
        # A selector that matches nothing would pass whatever print does: the chapter must have the control.
        expect(controls, f"chapter 4 has no {selector}").not_to_have_count(0)
        for element in controls.all():
            expect(element).to_be_hidden()


def test_each_answer_is_printed_at_the_end_of_the_chapter(printed: Page):
    # The same HTML as the answer behind "Reveal the worked answer", which itself is not printed.
    answers = printed.evaluate(
        "[...document.querySelectorAll('.prose details.answer .answer-body')].map((a) => a.innerHTML.trim())"
    )
    assert answers, "chapter 4 has an exercise"
    printed_answers = printed.locator(".printed-answers")
    expect(printed_answers).to_be_visible()
    expect(printed_answers.locator("h2")).to_have_text("Worked answers")
    assert (
        printed.evaluate(
            """[...document.querySelectorAll('.printed-answer')].map((item) => {
          const copy = item.cloneNode(true);
          copy.querySelector('.printed-answer-title').remove();
          return copy.innerHTML.trim();
        })"""
        )
        == answers
    )
    expect(printed.locator(".printed-answer-title")).to_have_text(printed.locator(".prose .exercise-title").all_inner_texts())
    # After the chapter's text, before the end of the article.
    assert printed.evaluate(
        "document.querySelector('.prose').compareDocumentPosition(document.querySelector('.printed-answers')) & Node.DOCUMENT_POSITION_FOLLOWING"
    )


def test_every_cited_source_is_printed_with_its_url(printed: Page, site_url: str):
    cited = printed.evaluate(
        "[...new Set([...document.querySelectorAll('.prose .sources a')].map((a) => a.getAttribute('href')))]"
    )
    sources = printed.locator(".printed-sources li")
    expect(printed.locator(".printed-sources")).to_be_visible()
    printed_texts = sources.all_inner_texts()
    references = printed.context.new_page()
    references.goto(site_url + "references.html")
    urls = [references.locator(f"[id='{href.partition('#')[2]}'] .reference-link").inner_text() for href in cited]
    references.close()
    assert [text.rsplit(" ", 1)[1] for text in printed_texts] == urls


def test_on_screen_the_printed_sections_are_absent(reader_page: Page, site_url: str):
    reader_page.emulate_media(media="screen")
    reader_page.goto(site_url + CHAPTER)
    expect(reader_page.locator(".printed-answers")).to_be_hidden()
    expect(reader_page.locator(".printed-sources")).to_be_hidden()
