"""Colour schemes: the system setting by default, and a toggle whose choice lasts across pages without a flash."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from reader_fixtures import THEME_KEY

pytestmark = pytest.mark.browser

LIGHT_PAPER = "rgb(251, 248, 242)"
DARK_PAPER = "rgb(22, 24, 28)"
TOGGLE = "[data-theme-toggle]"

# Records the colour scheme <html> has at the moment <body> is created, before any of the body is painted.
RECORD_FIRST_PAINT_THEME = """
new MutationObserver((changes, observer) => {
  if (document.body) {
    window.themeAtBody = document.documentElement.dataset.theme ?? "system";
    observer.disconnect();
  }
}).observe(document, { childList: true, subtree: true });
"""


def read_background(page: Page) -> str:
    """Return the page's background colour as computed."""
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


def test_the_system_setting_decides_until_the_reader_chooses(open_reader_context, site_url: str):
    for scheme, paper, pressed in (("light", LIGHT_PAPER, "false"), ("dark", DARK_PAPER, "true")):
        page = open_reader_context(color_scheme=scheme).new_page()
        page.goto(site_url + "index.html")
        assert read_background(page) == paper
        expect(page.get_by_role("button", name="Dark theme")).to_have_attribute("aria-pressed", pressed)


def test_the_chosen_theme_persists_across_pages_without_a_flash(open_reader_context, site_url: str):
    context = open_reader_context(color_scheme="light")
    context.add_init_script(RECORD_FIRST_PAINT_THEME)
    page = context.new_page()
    page.goto(site_url + "index.html")
    page.locator(TOGGLE).click()
    expect(page.locator(TOGGLE)).to_have_attribute("aria-pressed", "true")
    assert read_background(page) == DARK_PAPER
    assert page.evaluate(f"localStorage.getItem('{THEME_KEY}')") == "dark"

    page.goto(site_url + "03-scoring.html")
    assert page.evaluate("window.themeAtBody") == "dark"
    assert read_background(page) == DARK_PAPER
    expect(page.locator(TOGGLE)).to_have_attribute("aria-pressed", "true")

    # Choosing what the system shows anyway hands the choice back to the system.
    page.locator(TOGGLE).click()
    expect(page.locator(TOGGLE)).to_have_attribute("aria-pressed", "false")
    assert page.evaluate(f"localStorage.getItem('{THEME_KEY}')") is None
    page.goto(site_url + "glossary.html")
    assert page.evaluate("window.themeAtBody") == "system"
    assert read_background(page) == LIGHT_PAPER


def test_a_light_choice_overrides_a_dark_system(open_reader_context, site_url: str):
    page = open_reader_context(color_scheme="dark").new_page()
    page.goto(site_url + "02-possibilities.html")
    page.locator(TOGGLE).click()
    assert read_background(page) == LIGHT_PAPER
    page.reload()
    assert read_background(page) == LIGHT_PAPER
    # The lab's chart follows the page's scheme: its bars use the light palette's colour.
    assert page.evaluate("getComputedStyle(document.querySelector('.chart-bar')).fill") == "rgb(107, 143, 179)"


THEME_COLOURS = "[...document.querySelectorAll('meta[name=\"theme-color\"]')].map((meta) => [meta.media, meta.content])"
SYSTEM_COLOURS = [["(prefers-color-scheme: light)", "#fbf8f2"], ["(prefers-color-scheme: dark)", "#16181c"]]


def test_the_browsers_bar_follows_the_chosen_theme(open_reader_context, site_url: str):
    """Issue 39: theme-color shows the scheme the reader chose, from the first paint of the next page on too."""
    page = open_reader_context(color_scheme="light").new_page()
    page.goto(site_url + "index.html")
    assert page.evaluate(THEME_COLOURS) == SYSTEM_COLOURS
    page.locator(TOGGLE).click()
    assert page.evaluate(THEME_COLOURS) == [[media, "#16181c"] for media, _ in SYSTEM_COLOURS]
    page.goto(site_url + "glossary.html")
    assert page.evaluate(THEME_COLOURS) == [[media, "#16181c"] for media, _ in SYSTEM_COLOURS]
    # Handing the choice back to the system gives each meta its own colour again.
    page.locator(TOGGLE).click()
    assert page.evaluate(THEME_COLOURS) == SYSTEM_COLOURS
    # And a light choice on a dark system.
    dark = open_reader_context(color_scheme="dark").new_page()
    dark.goto(site_url + "index.html")
    dark.locator(TOGGLE).click()
    assert dark.evaluate(THEME_COLOURS) == [[media, "#fbf8f2"] for media, _ in SYSTEM_COLOURS]
