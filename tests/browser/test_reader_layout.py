"""Phones and navigation: no sideways scrolling at 320 px, 44 px touch targets, the chapter's contents, the reading position."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from reader_fixtures import CHAPTERS, PAGES

pytestmark = pytest.mark.browser

# Controls a finger must be able to hit (links inside sentences are exempt, as in WCAG 2.5.8).
TOUCH_TARGETS = (
    ".site-name, .site-nav a, #site-search-input, [data-theme-toggle], .breadcrumb a, "
    ".chapter-toc-list a, .pager-link, .toc-link, .lab input[type='text'], .lab button"
)


@pytest.fixture(scope="module")
def phone(open_reader_context) -> Page:
    """A 320 px wide touch screen."""
    return open_reader_context(viewport={"width": 320, "height": 640}, has_touch=True, is_mobile=True).new_page()


def test_no_page_scrolls_sideways_at_320_px(phone: Page, site_url: str):
    too_wide = {}
    for name in PAGES:
        phone.goto(site_url + name)
        width = phone.evaluate("document.documentElement.scrollWidth")
        if width > 320:
            too_wide[name] = width
    assert too_wide == {}


def test_touch_targets_are_at_least_44_px_tall_and_wide_enough(phone: Page, site_url: str):
    small = []
    for name in ["index.html", "03-scoring.html", "04-follow-draw-3.html", "glossary.html"]:
        phone.goto(site_url + name)
        small += phone.evaluate(
            """(selector) => [...document.querySelectorAll(selector)]
                 .filter((element) => element.getClientRects().length > 0)
                 .map((element) => [element, element.getBoundingClientRect()])
                 .filter(([, box]) => box.height < 44 || box.width < 44)
                 .map(([element, box]) => `${location.pathname.split('/').pop()} ${element.outerHTML.slice(0, 60)}: ${Math.round(box.width)}×${Math.round(box.height)}`)""",
            TOUCH_TARGETS,
        )
    assert small == []


def test_each_chapter_lists_its_sections_in_order(phone: Page, site_url: str):
    for name in CHAPTERS:
        phone.goto(site_url + name)
        headings = phone.evaluate(
            "[...document.querySelectorAll('.prose > h2[id], .prose > h3[id]')].map((h) => ['#' + h.id, h.firstChild.textContent.trim()])"
        )
        listed = phone.evaluate(
            "[...document.querySelectorAll('.chapter-toc a')].map((a) => [a.getAttribute('href'), a.textContent])"
        )
        assert listed == headings, name
        expect(phone.get_by_text(f"Chapter {CHAPTERS.index(name) + 1} of {len(CHAPTERS)}")).to_be_visible()


def test_reading_position_follows_the_scroll_without_moving_the_layout(open_reader_context, site_url: str):
    page = open_reader_context(viewport={"width": 1280, "height": 800}).new_page()
    page.goto(site_url + "03-scoring.html")
    bar = page.locator("[data-reading-progress]")
    assert page.evaluate("getComputedStyle(document.querySelector('.reading-progress')).position") == "fixed"
    heading_top = page.evaluate("document.querySelector('h1').getBoundingClientRect().top + scrollY")
    assert bar.evaluate("(element) => element.getBoundingClientRect().width") == 0

    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    # A function, not a bare expression: Playwright re-checks a bare expression
    # with eval(), which the page's CSP forbids once the first check is false.
    page.wait_for_function(
        "() => document.querySelector('[data-reading-progress]').getBoundingClientRect().width === window.innerWidth"
    )
    assert page.evaluate("document.querySelector('h1').getBoundingClientRect().top + scrollY") == heading_top
    # The section scrolled to last is marked in the chapter's contents.
    # The section scrolled to last is marked in the sidebar (and in the folded "In this chapter" list).
    expect(page.locator(".book-nav a[aria-current='location']")).to_have_count(1)
    expect(page.locator(".chapter-toc a[aria-current='location']")).to_have_count(1)


def test_previous_and_next_chain_the_chapters(phone: Page, site_url: str):
    phone.goto(site_url + CHAPTERS[0])
    for following in CHAPTERS[1:]:
        phone.locator("a[rel='next']").click()
        expect(phone).to_have_url(site_url + following)
    expect(phone.locator("a[rel='next']")).to_have_count(0)
    phone.locator("a[rel='prev']").click()
    expect(phone).to_have_url(site_url + CHAPTERS[-2])
