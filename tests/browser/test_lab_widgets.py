"""The probability table (chapter 2) and the group calculator (chapter 3), live in Chromium."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from browser_testing import (
    CALCULATOR,
    CALCULATOR_PAGE,
    PROBABILITIES,
    PROBABILITIES_PAGE,
    UPDATE_TIMEOUT_MS,
    expect_results,
    expected_calculator,
    expected_probabilities,
)
from rollout_lab import SettingError, group_statistics
from rollout_lab.widgets import render_widget
from rollout_lab.widgets.controls import TEMPERATURE

pytestmark = pytest.mark.browser


def test_the_probability_table_follows_the_temperature_field_and_slider(open_live_page):
    page = open_live_page(PROBABILITIES_PAGE)
    section = page.locator(PROBABILITIES)
    field = section.get_by_label("Temperature", exact=True)
    slider = section.get_by_label("Temperature slider", exact=True)
    expect_results(page, PROBABILITIES, expected_probabilities("1"))

    field.fill("0.5")
    expect_results(page, PROBABILITIES, expected_probabilities("0.5"))
    expect(slider).to_have_value(str(TEMPERATURE.slider_position("0.5")))

    slider.focus()
    page.keyboard.press("ArrowRight")
    expect(field).to_have_value("0.55")
    expect_results(page, PROBABILITIES, expected_probabilities("0.55"))

    page.keyboard.press("End")
    expect(field).to_have_value("20")
    expect_results(page, PROBABILITIES, expected_probabilities("20"))

    field.fill("2")
    announcement = render_widget("probabilities", {"temperature": "2"})["announcement"]
    expect(section.locator("[data-lab-announce]")).to_have_text(announcement)
    assert "The answer is 5. has probability" in announcement

    field.fill("0")
    error = section.locator('[data-error-for="temperature"]')
    expect(error).to_be_visible(timeout=UPDATE_TIMEOUT_MS)
    assert error.text_content() == "Temperature must be a number from 0.05 to 20; 0 is too low"
    expect(field).to_have_attribute("aria-invalid", "true")
    expect_results(page, PROBABILITIES, expected_probabilities("2"))


def test_the_calculator_gives_chapter_6s_exercise_group(open_live_page):
    page = open_live_page(CALCULATOR_PAGE)
    section = page.locator(CALCULATOR)
    field = section.get_by_label("Rewards (comma-separated)", exact=True)
    expect_results(page, CALCULATOR, expected_calculator("1, 0.75, 0, 1"))

    field.fill("1, 0, 0.5")
    expect(section.locator("[data-lab-announce]")).to_have_text("Group mean 0.5; signals +0.5, \u22120.5, 0")

    field.fill("1, 0.6, 0, 1")
    expect_results(page, CALCULATOR, expected_calculator("1, 0.6, 0, 1"))
    assert page.locator(f"{CALCULATOR} [data-value=mean]").text_content() == "0.65"
    signals = page.locator(f'{CALCULATOR} [data-field="signal"]').all_text_contents()
    assert signals == ["+0.35", "\u22120.05", "\u22120.65", "+0.35"]
    expect(section.locator("[data-lab-announce]")).to_have_text("Group mean 0.65; signals +0.35, \u22120.05, \u22120.65, +0.35")

    field.fill("1,,0")
    with pytest.raises(SettingError) as bad_rewards:
        group_statistics("1,,0")
    error = section.locator('[data-error-for="rewards"]')
    expect(error).to_be_visible(timeout=UPDATE_TIMEOUT_MS)
    assert error.text_content() == str(bad_rewards.value)
    expect(field).to_have_attribute("aria-invalid", "true")
    expect_results(page, CALCULATOR, expected_calculator("1, 0.6, 0, 1"))

    # Enter in this one-field form must not submit it (CSP would log a blocked navigation).
    field.fill("0.5, 1")
    field.press("Enter")
    expect_results(page, CALCULATOR, expected_calculator("0.5, 1"))
    expect(error).to_be_hidden()


LAB_PAGES = ("01-rollout.html", "06-learning.html")


@pytest.mark.parametrize("name", LAB_PAGES)
def test_every_disclosure_in_a_lab_shows_its_marker_turned_by_its_state(open_context, site_url: str, name: str):
    page = open_context().new_page()
    page.goto(site_url + name)
    summaries = page.locator("section.lab details > summary")
    assert summaries.count() > 0
    for summary in summaries.all():
        marker = summary.evaluate(
            "(s) => { const m = getComputedStyle(s, '::before'); return [m.content, m.display, m.transform]; }"
        )
        assert marker[0] == '"▸"' and marker[1] != "none" and marker[2] == "none", marker
        summary.click()
        # Open, the marker points down: turned a quarter (after its short transition).
        page.wait_for_function(
            "(s) => { const t = getComputedStyle(s, '::before').transform; return t !== 'none' && new DOMMatrix(t).b > 0.99; }",
            arg=summary.element_handle(),
            timeout=5_000,
        )
