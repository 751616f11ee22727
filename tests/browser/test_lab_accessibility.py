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

from browser_testing import LIVE_TIMEOUT_MS, find_violations
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
