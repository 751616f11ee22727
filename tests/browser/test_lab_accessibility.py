"""axe-core (from npm) finds no serious or critical accessibility violation on any page.

Every built page is scanned in the light and in the dark colour scheme. The
runtime's .wasm is blocked here, so lab pages settle at once in their
failed-start state (status message and Retry button) once scrolled to, instead of starting
Python in the background of every scan; the live lab, with an inline error
showing, is scanned in test_lab_sampler.py on its already-live page.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from browser_testing import LIVE_TIMEOUT_MS, RUNTIME_WASM, find_violations
from reader_fixtures import PAGES, block_python

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module", params=["light", "dark"])
def scan_page(request, open_context) -> Page:
    """One page per colour scheme that visits every page of the site in turn, with Python blocked."""
    return block_python(open_context(color_scheme=request.param)).new_page()


def test_every_built_page_is_scanned(built_site: Path):
    assert sorted(p.name for p in built_site.glob("*.html")) == sorted(PAGES)


@pytest.mark.parametrize("page_name", PAGES)
def test_page_has_no_serious_accessibility_violation(scan_page: Page, site_url: str, page_name: str):
    scan_page.goto(site_url + page_name)
    labs = scan_page.locator("section.lab")
    if labs.count():
        labs.first.scroll_into_view_if_needed()  # Python starts near a lab (and fails here at once)
    for lab in labs.all():
        expect(lab.get_by_role("button", name="Retry")).to_be_visible(timeout=LIVE_TIMEOUT_MS)

    assert find_violations(scan_page) == []


# --- every state at both widths (issue 56: chapter 6 at 390 px before Python was live had a scrollable strip of
# disabled controls that no keyboard could reach) ---------------------------------------------------------------


def scan_labs_settled(page: Page, settled) -> list[str]:
    """Bring the page's first lab into view (Python starts near one), wait until each lab has settled, then scan."""
    labs = page.locator("section.lab")
    if labs.count():
        labs.first.scroll_into_view_if_needed()
    for lab in labs.all():
        expect(settled(lab)).to_be_attached(timeout=LIVE_TIMEOUT_MS)
    return find_violations(page)


@pytest.fixture(scope="module", params=[390, 1280], ids=["390px", "1280px"])
def starting_page(request, open_context) -> Page:
    """A page whose Python never arrives (its .wasm held): every lab stays in its starting state, controls disabled."""
    context = open_context(viewport={"width": request.param, "height": 844 if request.param == 390 else 800})
    context.route(RUNTIME_WASM, lambda route: None)  # held: neither answered nor failed
    return context.new_page()


def test_every_lab_page_while_python_starts_has_no_violation(starting_page: Page, built_site: Path, site_url: str):
    lab_pages = sorted(p.name for p in built_site.glob("*.html") if 'class="lab"' in p.read_text(encoding="utf-8"))
    assert len(lab_pages) >= 6, lab_pages
    found = {}
    for name in lab_pages:
        starting_page.goto(site_url + name)
        found[name] = scan_labs_settled(starting_page, lambda lab: lab.locator("[data-lab-status] .start-progress"))
    assert {name: violations for name, violations in found.items() if violations} == {}


def test_every_page_on_a_phone_with_python_failed_has_no_violation(open_context, site_url: str):
    page = block_python(open_context(viewport={"width": 390, "height": 844})).new_page()
    found = {}
    for name in PAGES:
        page.goto(site_url + name)
        found[name] = scan_labs_settled(page, lambda lab: lab.get_by_role("button", name="Retry"))
    assert {name: violations for name, violations in found.items() if violations} == {}
