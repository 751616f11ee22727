"""axe-core (from npm) finds no serious or critical accessibility violation on any page.

The live lab's states (controls enabled, an inline error) are scanned in
test_lab_sampler.py on its already-live page; here every built page is
scanned as it first appears (lab pages start Python in the background).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from browser_testing import find_serious_violations

pytestmark = pytest.mark.browser

PAGES = [
    "index.html",
    "01-rollout.html",
    "02-possibilities.html",
    "03-scoring.html",
    "04-follow-draw-3.html",
    "05-provenance.html",
    "06-learning.html",
    "glossary.html",
    "references.html",
    "404.html",
]


@pytest.fixture(scope="module")
def scan_page(open_context) -> Page:
    """One page that visits every page of the site in turn."""
    return open_context().new_page()


def test_every_built_page_is_scanned(built_site: Path):
    assert sorted(p.name for p in built_site.glob("*.html")) == sorted(PAGES)


@pytest.mark.parametrize("page_name", PAGES)
def test_page_has_no_serious_accessibility_violation(scan_page: Page, site_url: str, page_name: str):
    scan_page.goto(site_url + page_name)

    assert find_serious_violations(scan_page) == []
