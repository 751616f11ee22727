"""Sharing exactly what one saw: the sampler's settings live in the page address."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from browser_testing import (
    LIVE_STATUS,
    LIVE_TIMEOUT_MS,
    SAMPLER,
    SAMPLER_PAGE,
    expect_results,
    expected_sampler,
    expected_setting_error,
    sampler_results,
)
from rollout_lab.widgets.controls import TEMPERATURE

pytestmark = pytest.mark.browser


def test_an_address_with_settings_opens_that_run_and_follows_changes(open_live_page, site_url: str):
    page = open_live_page(SAMPLER_PAGE + "?T=2&K=8&seed=20260903")
    section = page.locator(SAMPLER)

    expect_results(page, SAMPLER, expected_sampler("2", "8", "20260903"))
    expect(section.get_by_label("Temperature", exact=True)).to_have_value("2")
    expect(section.locator('input[name="temperature-slider"]')).to_have_value(str(TEMPERATURE.slider_position("2")))
    expect(section.get_by_label("Group size", exact=True)).to_have_value("8")
    expect(section.get_by_label("Seed", exact=True)).to_have_value("20260903")

    section.get_by_label("Seed", exact=True).fill("31")
    expect_results(page, SAMPLER, expected_sampler("2", "8", "31"))
    expect(page).to_have_url(site_url + SAMPLER_PAGE + "?T=2&K=8&seed=31#lab-1")


def test_a_bad_value_in_the_address_is_explained_and_the_recorded_run_kept(open_live_page, built_site: Path):
    record = json.loads((built_site / "lab" / "recorded-run.json").read_text(encoding="utf-8"))
    page = open_live_page(SAMPLER_PAGE + "?K=65")
    section = page.locator(SAMPLER)
    _, message = expected_setting_error(group_size="65")

    expect(section.locator('[data-error-for="group_size"]')).to_have_text(message)
    expect(section.get_by_label("Group size", exact=True)).to_have_attribute("aria-invalid", "true")
    expect(section.get_by_label("Group size", exact=True)).to_have_value("65")
    expect_results(page, SAMPLER, sampler_results(record))


# A phone and a laptop, as the reader review measured (the lab sat 4 to 12 screens below the page's top).
SCREENS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
SHARED_LINKS = {
    "sampler, copied": SAMPLER_PAGE + "?T=2&K=8&seed=31#lab-1",
    "sampler, an old link without a fragment": SAMPLER_PAGE + "?T=2&K=8&seed=31",
    "training, copied": "06-learning.html?R=3&K=8&seed=20260903&lr=1&E=2&eps=0.2&beta=0&rule=mean#lab-1",
    "training, an old link without a fragment": "06-learning.html?R=3&E=2",
}


@pytest.mark.parametrize("screen", sorted(SCREENS))
@pytest.mark.parametrize("link", sorted(SHARED_LINKS))
def test_a_shared_link_opens_at_its_lab_with_its_settings_said_near_it(open_context, site_url: str, link: str, screen: str):
    page = open_context(viewport=SCREENS[screen]).new_page()
    page.goto(site_url + SHARED_LINKS[link])
    section = page.locator("section.lab[data-lab-address]")
    status = section.locator("[data-lab-status]")
    expect(status).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
    page.wait_for_load_state("load")
    expect(section.locator("h3")).to_be_in_viewport()
    expect(status).to_be_in_viewport()
    expect(section.get_by_label("Group size" if "K=" in SHARED_LINKS[link] else "Epochs", exact=True)).to_be_in_viewport()
