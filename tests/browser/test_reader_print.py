"""Print: no controls, every worked answer printed at the end of its chapter, every cited source's URL written out."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from reader_fixtures import THEME_KEY

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
    ".code-tools",
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
    # But for its ids: a page holds each once (the first link to a glossary term, in an answer, carries one).
    answers = printed.evaluate(
        """[...document.querySelectorAll('.prose details.answer .answer-body')].map((a) => {
          const copy = a.cloneNode(true);
          copy.querySelectorAll('[id]').forEach((element) => element.removeAttribute('id'));
          return copy.innerHTML.trim();
        })"""
    )
    assert printed.locator(".printed-answers [id]:not(#printed-answers-title)").count() == 0
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


# Every text node's colour inside code against the background it is painted on, as a WCAG contrast ratio.
MEASURE_CODE_CONTRAST = """
() => {
  const channels = (colour) => colour.match(/[\\d.]+/g).map(Number);
  const luminance = ([r, g, b]) => {
    const linear = (c) => (c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  };
  const background = (element) => {
    for (let node = element; node; node = node.parentElement) {
      const colour = channels(getComputedStyle(node).backgroundColor);
      if (colour.length < 4 || colour[3] > 0) return colour;
    }
    return [255, 255, 255];
  };
  const worst = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    const element = text.parentElement;
    if (!text.data.trim() || !element.closest("pre, .cell-output") || element.getClientRects().length === 0) continue;
    const [fore, back] = [luminance(channels(getComputedStyle(element).color)), luminance(background(element))];
    const ratio = (Math.max(fore, back) + 0.05) / (Math.min(fore, back) + 0.05);
    worst.push({ text: text.data.trim().slice(0, 20), ratio: Math.round(ratio * 100) / 100 });
  }
  return worst;
}
"""

CODE_PAGES = ["02-possibilities.html", "04-follow-draw-3.html"]  # a cell and its output; the core's listing


@pytest.mark.parametrize("scheme", ["light", "dark", "dark chosen"])
def test_printed_code_keeps_4_5_to_1_in_both_schemes(open_reader_context, site_url: str, scheme: str):
    page = open_reader_context(color_scheme="light" if scheme == "light" else "dark").new_page()
    if scheme == "dark chosen":  # the reader's toggle, not the system, chose dark
        page.add_init_script(f"localStorage.setItem('{THEME_KEY}', 'dark')")
    for name in CODE_PAGES:
        page.goto(site_url + name)
        page.emulate_media(media="print")
        measured = page.evaluate(MEASURE_CODE_CONTRAST)
        assert len(measured) > 20, f"{name} prints code"
        low = [item for item in measured if item["ratio"] < 4.5]
        assert low == [], f"{name} ({scheme}) prints code below 4.5:1: {low[:10]}"
    page.close()


# A4's width between the print margins (210 mm less 2 × 14 mm), in CSS px.
A4_TEXT_WIDTH = round((210 - 28) / 25.4 * 96)


def test_chapter_5_prints_on_9_a4_pages_or_fewer(open_reader_context, site_url: str):
    """Issue 56: chapter 5 took 13 A4 pages."""
    page = open_reader_context().new_page()
    page.goto(site_url + "05-provenance.html")
    pdf = page.pdf(format="A4")
    pages = re.findall(rb"/Type\s*/Page[^s]", pdf)
    assert 5 <= len(pages) <= 9, len(pages)
    page.close()


# Each indented code line that wraps: where each of its rows begins on the left.
WRAPPED_ROWS = """() => [...document.querySelectorAll('.code-line')]
  .filter((line) => (line.querySelector('.code-indent')?.textContent ?? '').length > 0)
  .map((line) => {
    const range = document.createRange();
    range.selectNodeContents(line.querySelector('.code-text'));
    const rows = new Map();
    for (const rect of range.getClientRects()) if (!rows.has(Math.round(rect.top))) rows.set(Math.round(rect.top), rect.left);
    return [line.textContent.trim().slice(0, 40), [...rows.values()]];
  })
  .filter(([, lefts]) => lefts.length > 1)"""


def test_printed_code_wraps_under_its_own_indentation_and_figures_fit_a_quarter_page(open_reader_context, site_url: str):
    page = open_reader_context(viewport={"width": A4_TEXT_WIDTH, "height": 1000}).new_page()
    page.emulate_media(media="print")
    page.goto(site_url + "04-follow-draw-3.html")
    wrapped = page.evaluate(WRAPPED_ROWS)
    assert wrapped, "chapter 4 has no indented line long enough to wrap on paper"
    # Every row of an indented line starts at or right of its first character: the indentation stays visible.
    assert [(text, lefts) for text, lefts in wrapped if min(lefts) < lefts[0]] == []
    page.goto(site_url + "05-provenance.html")
    heights = page.locator(".figure-art svg, .figure-art img").evaluate_all(
        "(all) => all.map((f) => f.getBoundingClientRect().height)"
    )
    assert heights and max(heights) <= 6.5 / 2.54 * 96 + 0.5, heights
    page.close()
