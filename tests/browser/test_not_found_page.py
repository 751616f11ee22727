"""The 404 page served at a missing address three folders deep, with and without base_url, JavaScript on and off.

The preview server answers /rollouts/a/b/c.html with dist/404.html (status
404), as GitHub Pages does. Without base_url the page's inline script finds
the site's root by its marker file and repoints links, stylesheet and scripts;
with base_url every link already starts at the base URL's path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from browser_testing import PROJECT_ROOT, SITE_PREFIX
from sitegen.serve.static_server import serve_preview

pytestmark = pytest.mark.browser

DEEP = "a/b/c.html"
CONTENTS_TITLE = "Rollouts"


@pytest.fixture(scope="module")
def site_with_base_url(tmp_path_factory) -> Iterator[str]:
    """The tutorial built with ROLLOUTS_BASE_URL (a published address under /rollouts/), served by the preview."""
    out_dir = tmp_path_factory.mktemp("site-with-base-url") / "dist"
    environment = {**os.environ, "ROLLOUTS_BASE_URL": "https://example.org/rollouts"}
    build = subprocess.run(
        [sys.executable, "build.py", "build", "--out", str(out_dir)],
        cwd=PROJECT_ROOT,
        env=environment,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    with serve_preview(out_dir, SITE_PREFIX) as url:
        yield url


NOT_FOUND = "console error: Failed to load resource: the server responded with a status of 404 (Not Found) ({})"


def accept_not_found(problems: list[str], before: int, urls: list[str]) -> None:
    """Check that the browser's only problems since `before` are these 404s (Chromium logs each), and clear them."""
    assert sorted(problems[before:]) == sorted(NOT_FOUND.format(url) for url in urls)
    del problems[before:]


def open_missing_page(open_context, url: str, javascript: bool) -> Page:
    page = open_context(java_script_enabled=javascript).new_page()
    response = page.goto(url + DEEP)
    assert response is not None and response.status == 404
    expect(page.locator("h1")).to_have_text("This page does not exist")
    return page


def expect_styled(page: Page) -> None:
    """The site's stylesheet applies: the skip link is moved off-screen, as site.css does."""
    expect(page.locator(".skip-link")).not_to_be_in_viewport()


def follow_contents_link(page: Page, site_url: str) -> None:
    page.get_by_role("link", name="contents", exact=True).click()
    expect(page).to_have_url(site_url + "index.html")
    expect(page.locator("h1")).to_be_visible()


def test_without_base_url_the_script_finds_the_root_and_the_links_lead_there(open_context, site_url, browser_guard):
    before = len(browser_guard.problems)
    page = open_missing_page(open_context, site_url, javascript=True)
    expect(page.locator("html")).to_have_attribute("data-site-root", SITE_PREFIX)
    # The page itself, and the marker looked for in the two folders that do not exist, nearest first.
    accept_not_found(
        browser_guard.problems, before, [site_url + DEEP, site_url + "a/b/rollouts-root.txt", site_url + "a/rollouts-root.txt"]
    )
    for href in page.locator("main a, .site-header a").evaluate_all("links => links.map(a => a.getAttribute('href'))"):
        assert href.startswith(site_url), href
    expect_styled(page)
    expect(page.locator("html")).to_have_attribute("style", "")  # shown again (hidden only while the root was looked for)
    assert page.locator("[data-search]").get_attribute("data-index") == site_url + "search-index.json"
    assert page.locator("[data-search]").get_attribute("data-engine").startswith(site_url + "assets/minisearch.")
    # reader.js, loaded from the root, runs: the theme toggle works.
    page.locator("[data-theme-toggle]").click()
    expect(page.locator("[data-theme-toggle]")).to_have_attribute("aria-pressed", "true")
    follow_contents_link(page, site_url)


def test_without_base_url_and_without_javascript_the_page_says_where_the_contents_are(open_context, site_url, browser_guard):
    before = len(browser_guard.problems)
    page = open_missing_page(open_context, site_url, javascript=False)
    hint = page.locator(".not-found-hint")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("the contents page is index.html in the folder the tutorial is published at")
    # Three folders deep the links and the stylesheet are relative to a folder that does not exist: the hint says so.
    expect(page.get_by_role("link", name="contents", exact=True)).to_have_attribute("href", "index.html")
    # The stylesheet's address gets the 404 page (text/html); Chromium refuses it, and logs that only sometimes before the test ends.
    refused = [p for p in browser_guard.problems[before:] if p.startswith("console error: Refused to apply style from ")]
    assert all(f"'{site_url}a/b/assets/site." in p for p in refused), refused
    browser_guard.problems[before:] = [p for p in browser_guard.problems[before:] if p not in refused]
    accept_not_found(browser_guard.problems, before, [site_url + DEEP])


def test_one_folder_deep_without_javascript_the_relative_links_work(open_context, site_url, browser_guard):
    before = len(browser_guard.problems)
    page = open_context(java_script_enabled=False).new_page()
    response = page.goto(site_url + "missing.html")
    assert response is not None and response.status == 404
    expect_styled(page)
    accept_not_found(browser_guard.problems, before, [site_url + "missing.html"])
    follow_contents_link(page, site_url)


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_with_base_url_the_links_start_at_its_path(open_context, site_with_base_url, browser_guard, javascript):
    before = len(browser_guard.problems)
    page = open_missing_page(open_context, site_with_base_url, javascript)
    accept_not_found(browser_guard.problems, before, [site_with_base_url + DEEP])
    expect(page.locator(".not-found-hint")).to_have_count(0)
    for href in page.locator("main a").evaluate_all("links => links.map(a => a.getAttribute('href'))"):
        assert href.startswith(SITE_PREFIX), href
    expect_styled(page)
    follow_contents_link(page, site_with_base_url)
