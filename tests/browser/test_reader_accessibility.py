"""axe-core finds no violation of any impact with the reader's own choice of colour scheme, or with search and previews open.

test_lab_accessibility.py scans every page as the system's scheme shows it;
here the toggle's choice goes the other way (dark chosen on a light system,
light on a dark one), which exercises the data-theme palettes, and the two
popups are scanned while open.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from browser_testing import LIVE_TIMEOUT_MS, find_violations
from reader_fixtures import PAGES, THEME_KEY

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module", params=[("light", "dark"), ("dark", "light")], ids=["dark-chosen", "light-chosen"])
def chosen_scheme_page(request, open_reader_context) -> Page:
    """A page whose reader chose the scheme opposite to the system's."""
    system, chosen = request.param
    context = open_reader_context(color_scheme=system)
    # Only on the site's pages: about:blank has no storage.
    context.add_init_script(f"if (location.protocol === 'http:') localStorage.setItem('{THEME_KEY}', '{chosen}')")
    page = context.new_page()
    page.chosen = chosen
    return page


@pytest.mark.parametrize("page_name", PAGES)
def test_page_in_the_chosen_scheme_has_no_violation(chosen_scheme_page: Page, site_url: str, page_name: str):
    chosen_scheme_page.goto(site_url + page_name)
    # The scheme is set by the head script, inline on every page (the 404 page's too).
    expect(chosen_scheme_page.locator("html")).to_have_attribute("data-theme", chosen_scheme_page.chosen)
    labs = chosen_scheme_page.locator("section.lab")
    if labs.count():
        labs.first.scroll_into_view_if_needed()  # Python starts near a lab (and, blocked here, fails at once)
    for lab in labs.all():
        expect(lab.get_by_role("button", name="Retry")).to_be_visible(timeout=LIVE_TIMEOUT_MS)
    assert find_violations(chosen_scheme_page) == []


def test_open_search_results_and_preview_have_no_violation(chosen_scheme_page: Page, site_url: str):
    chosen_scheme_page.goto(site_url + "01-rollout.html")
    search = chosen_scheme_page.locator("#site-search-input")
    search.fill("rollout")
    search.press("ArrowDown")
    expect(chosen_scheme_page.locator("#site-search-results")).to_be_visible()
    assert find_violations(chosen_scheme_page) == []

    search.press("Escape")
    chosen_scheme_page.locator("main a.term").first.hover()
    expect(chosen_scheme_page.locator("#reader-preview")).to_be_visible()
    assert find_violations(chosen_scheme_page) == []


def test_a_cell_with_its_editor_open_has_no_violation(chosen_scheme_page: Page, site_url: str):
    # CodeMirror's scroller scrolls a long line sideways; its focusable content (the contenteditable, given a
    # tabindex so axe's scrollable-region-focusable sees it) is what the keyboard reaches, so the rule holds.
    chosen_scheme_page.goto(site_url + "02-possibilities.html")
    cell = chosen_scheme_page.locator(".cell").first
    cell.get_by_role("button", name="Edit").click()
    editor = cell.get_by_role("textbox", name="Python code")
    expect(editor).to_be_focused(timeout=LIVE_TIMEOUT_MS)
    assert find_violations(chosen_scheme_page) == []
    assert editor.get_attribute("tabindex") == "0"
