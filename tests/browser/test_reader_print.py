"""Print: no controls, every worked answer printed at the end of its chapter, every cited source's URL written out;
chapter 5 on at most 9 A4 pages, code lines whole, figures sized for paper (issue 56)."""

from __future__ import annotations

import re
from pathlib import Path

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
    # The same HTML as the answer behind "Reveal the worked answer", which itself is not printed, but for its ids: a
    # page holds each once (the first link to a glossary term, in an answer, carries one).
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


# A4's printable width under the stylesheet's @page margins (210 mm − 2 × 13 mm), in CSS pixels (96 per inch).
A4_MEASURE = round((210 - 26) / 25.4 * 96)
FIGURE_HEIGHT = 6.5 / 2.54 * 96  # the tallest a printed figure may be: 6.5 cm
PRINTED_CHAPTERS = sorted(f"{path.stem}.html" for path in (Path(__file__).parents[2] / "content").glob("[0-9][0-9]-*.md"))


@pytest.fixture(scope="module")
def paper(open_reader_context) -> Page:
    """A page as wide as A4's printable measure, in print."""
    page = open_reader_context(viewport={"width": A4_MEASURE, "height": 1000}, color_scheme="light").new_page()
    page.emulate_media(media="print")
    return page


def test_chapter_5_prints_on_at_most_9_a4_pages(paper: Page, site_url: str):
    paper.goto(site_url + "05-provenance.html")
    pages = len(re.findall(rb"/Type\s*/Page\b(?!s)", paper.pdf(format="A4")))
    assert 1 < pages <= 9


@pytest.mark.parametrize("name", PRINTED_CHAPTERS)
def test_printed_code_keeps_every_line_whole_and_figures_fit_paper(paper: Page, site_url: str, name: str):
    """No code line is wrapped or cut (so its indentation stays as written), and no figure is taller than 6.5 cm."""
    paper.goto(site_url + name)
    cut = paper.evaluate(
        "[...document.querySelectorAll('pre')].filter((pre) => pre.getClientRects().length > 0)"
        ".filter((pre) => pre.scrollWidth > pre.clientWidth + 1).map((pre) => pre.textContent.slice(0, 60))"
    )
    assert cut == [], f"{name} prints code lines wider than A4's measure"
    wrapping = paper.evaluate(
        "[...new Set([...document.querySelectorAll('pre')].map((pre) => getComputedStyle(pre).whiteSpace))]"
    )
    assert wrapping in ([], ["pre"]), f"{name} prints code that may wrap: {wrapping}"
    heights = paper.evaluate(
        "[...document.querySelectorAll('.figure-art svg, .figure-art img')].map((art) => art.getBoundingClientRect().height)"
    )
    assert [height for height in heights if height > FIGURE_HEIGHT + 0.5] == [], f"{name} prints a figure taller than 6.5 cm"
