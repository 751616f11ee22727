"""Explorable prose: a link in the text (`[set T = 2](lab:sampler?T=2)`) sets its lab, brings it into view and computes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from browser_testing import (
    CALCULATOR,
    CALCULATOR_PAGE,
    LIVE_STATUS,
    LIVE_TIMEOUT_MS,
    PROBABILITIES,
    PROBABILITIES_PAGE,
    SAMPLER,
    SAMPLER_PAGE,
    expect_results,
    expected_calculator,
    expected_probabilities,
    expected_sampler,
    open_live_lab,
    restore_sampler,
)

pytestmark = pytest.mark.browser

SCREENS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}


@pytest.fixture(scope="module")
def sampler_page(open_context, site_url: str) -> Page:
    """Chapter 4 with its lab live (one Python start for the module's tests that need no start of their own)."""
    return open_live_lab(open_context, site_url + SAMPLER_PAGE, SAMPLER)


def mark_the_document(page: Page) -> None:
    """Leave a mark on the page's window: it is gone if following a link reloads the page."""
    page.evaluate("() => { window.notReloaded = true; }")


def expect_not_reloaded(page: Page) -> None:
    assert page.evaluate("() => window.notReloaded === true"), "following the link reloaded the page"


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_a_link_in_the_text_sets_the_live_lab_brings_it_into_view_and_computes(sampler_page: Page, site_url: str, screen: str):
    page = sampler_page
    restore_sampler(page, site_url, SCREENS[screen])
    section = page.locator(SAMPLER)
    link = page.locator('a.lab-link[href="?T=2#lab-1"]')
    link.scroll_into_view_if_needed()
    expect(section.locator("h3")).not_to_be_in_viewport()
    mark_the_document(page)

    link.click()

    expect_results(page, SAMPLER, expected_sampler("2", "6", "20260903"))
    expect(section.get_by_label("Temperature", exact=True)).to_have_value("2")
    expect(section.locator("h3")).to_be_in_viewport()
    expect(section.locator("[data-lab-announce]")).not_to_have_text("")
    # The lab mirrors its settings in the address as always, so the page can be shared as it is now.
    expect(page).to_have_url(site_url + SAMPLER_PAGE + "?T=2&K=6&seed=20260903#lab-1")
    expect_not_reloaded(page)


def test_links_set_only_the_settings_they_name_and_follow_one_another(sampler_page: Page, site_url: str):
    page = sampler_page
    restore_sampler(page, site_url, SCREENS["desktop"])
    section = page.locator(SAMPLER)
    section.get_by_label("Seed", exact=True).fill("31")
    section.get_by_label("Seed", exact=True).press("Enter")
    expect_results(page, SAMPLER, expected_sampler("1", "6", "31"))

    page.locator('a.lab-link[href="?K=3#lab-1"]').click()
    expect_results(page, SAMPLER, expected_sampler("1", "3", "31"))
    page.locator('a.lab-link[href="?K=8#lab-1"]').click()
    expect_results(page, SAMPLER, expected_sampler("1", "8", "31"))


def test_a_link_followed_before_python_is_live_is_computed_once_it_is(open_context, site_url: str):
    page = open_context().new_page()
    page.goto(site_url + PROBABILITIES_PAGE)
    mark_the_document(page)

    page.locator('a.lab-link[href="?T=4#lab-1"]').click()

    section = page.locator(PROBABILITIES)
    expect(section.get_by_label("Temperature", exact=True)).to_have_value("4")
    expect(section.locator("[data-lab-status]")).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
    expect_results(page, PROBABILITIES, expected_probabilities("4"))
    expect(section.locator("h3")).to_be_in_viewport()
    expect_not_reloaded(page)


def test_a_link_sets_a_lab_whose_settings_are_not_in_the_address(open_context, site_url: str):
    page = open_live_lab(open_context, site_url + CALCULATOR_PAGE, CALCULATOR)

    page.locator('a.lab-link[href="?rewards=1,1,1,0#lab-1"]').click()

    expect_results(page, CALCULATOR, expected_calculator("1,1,1,0"))
    expect(page.locator(CALCULATOR).get_by_label("Rewards (comma-separated)", exact=True)).to_have_value("1,1,1,0")


def test_without_javascript_a_link_still_leads_to_its_lab(open_context, site_url: str):
    page = open_context(java_script_enabled=False, viewport=SCREENS["phone"]).new_page()
    page.goto(site_url + SAMPLER_PAGE)

    page.locator('a.lab-link[href="?T=2#lab-1"]').click()

    expect(page).to_have_url(site_url + SAMPLER_PAGE + "?T=2#lab-1")
    expect(page.locator(f"{SAMPLER} h3")).to_be_in_viewport()


def test_every_chapter_with_a_lab_has_links_that_set_it(built_site: Path):
    links_per_chapter = {}
    for chapter in sorted(built_site.glob("0*.html")):
        html = chapter.read_text(encoding="utf-8")
        if 'section class="lab"' in html:
            links_per_chapter[chapter.name] = len(re.findall(r'<a class="lab-link" href="\?[^"]+#lab-\d+"', html))
    assert len(links_per_chapter) >= 5, links_per_chapter
    assert all(count >= 1 for count in links_per_chapter.values()), links_per_chapter
    assert sum(links_per_chapter.values()) >= 6, links_per_chapter
