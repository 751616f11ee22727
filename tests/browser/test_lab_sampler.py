"""The sampling lab of chapter 4, live in Chromium: every number the core's, every control usable.

One page (one Pyodide start) serves the whole module; each test first puts
the lab into the state it needs through the controls, as a reader would.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from browser_testing import (
    DEFAULT_SAMPLER_SETTINGS,
    LIVE_STATUS,
    SAMPLER,
    SAMPLER_PAGE,
    UPDATE_TIMEOUT_MS,
    expect_results,
    expected_sampler,
    expected_setting_error,
    find_violations,
    sampler_results,
)
from rollout_lab import format_signal, run_lab
from rollout_lab.widgets import render_widget
from rollout_lab.widgets.controls import TEMPERATURE

pytestmark = pytest.mark.browser

LABELS = {"temperature": "Temperature", "group_size": "Group size", "seed": "Seed"}


@pytest.fixture(scope="module")
def sampler_page(open_live_page) -> Page:
    """Chapter 4 with its lab live."""
    return open_live_page(SAMPLER_PAGE)


def control(page: Page, field: str) -> Locator:
    """Return the sampler's text field for a setting, found by its visible label."""
    return page.locator(SAMPLER).get_by_label(LABELS[field], exact=True)


def type_settings(page: Page, temperature: str, group_size: str, seed: str) -> None:
    """Type the three settings into their labelled fields and press Enter.

    Enter commits at once (moving to the next field does too); without it the
    last field would wait for the typing pause, which test_lab_validation.py checks.
    """
    control(page, "temperature").fill(temperature)
    control(page, "group_size").fill(group_size)
    control(page, "seed").fill(seed)
    control(page, "seed").press("Enter")


def enter(page: Page, field: str, value: str) -> None:
    """Type a value into one field and press Enter."""
    control(page, field).fill(value)
    control(page, field).press("Enter")


def reset(page: Page) -> None:
    """Press Reset and wait for the recorded run."""
    page.locator(SAMPLER).get_by_role("button", name="Reset").click()
    expect_results(page, SAMPLER, expected_sampler(**DEFAULT_SAMPLER_SETTINGS))


def test_live_lab_shows_exactly_the_recorded_run(sampler_page: Page, built_site: Path):
    record = json.loads((built_site / "lab" / "recorded-run.json").read_text(encoding="utf-8"))
    section = sampler_page.locator(SAMPLER)

    expect(section.locator("[data-lab-status]")).to_have_text(LIVE_STATUS)
    expect_results(sampler_page, SAMPLER, sampler_results(record))
    for field in LABELS:
        expect(control(sampler_page, field)).to_be_enabled()
    expect(section.get_by_role("button", name="Reset")).to_be_enabled()


@pytest.mark.parametrize(
    ("temperature", "group_size", "seed"),
    [
        ("2", "8", "20260903"),
        ("0.5", "3", "7"),
        ("0.05", "1", "0"),
        ("20", "64", "4294967295"),
        ("1.5", "12", "123456789"),
        ("0.25", "6", "20260903"),
        ("5", "10", "42"),
        ("1", "6", "20260903"),
    ],
)
def test_settings_typed_into_the_controls_give_the_cores_record(sampler_page: Page, temperature, group_size, seed):
    type_settings(sampler_page, temperature, group_size, seed)

    expect_results(sampler_page, SAMPLER, expected_sampler(temperature, group_size, seed))
    announcement = render_widget("sampler", {"temperature": temperature, "group_size": group_size, "seed": seed})["announcement"]
    expect(sampler_page.locator(f"{SAMPLER} [data-lab-announce]")).to_have_text(announcement)


@pytest.mark.parametrize("group_size", ["3", "6", "8"])
def test_draw_3_is_marked_and_compared_with_the_mean(sampler_page: Page, group_size: str):
    record = run_lab("1", group_size, "20260903")
    reward, mean = record["draws"][2]["reward"], record["mean"]
    sign = "+" if reward > mean else "\u2212" if reward < mean else ""

    type_settings(sampler_page, "1", group_size, "20260903")

    expect_results(sampler_page, SAMPLER, sampler_results(record))
    followed = sampler_page.locator(f"{SAMPLER} tr.draw-3")
    expect(followed).to_have_count(1)
    expect(followed.locator(".follow-marker")).to_have_text("followed")
    signal = followed.locator('[data-field="signal"]').text_content()
    assert signal == format_signal(record["draws"][2]["signal"])
    assert signal.startswith(sign) and (sign or signal == "0")


def test_reset_returns_to_the_recorded_settings_and_clears_errors(sampler_page: Page, site_url: str):
    type_settings(sampler_page, "3", "9", "11")
    expect_results(sampler_page, SAMPLER, expected_sampler("3", "9", "11"))
    enter(sampler_page, "seed", "abc")
    expect(control(sampler_page, "seed")).to_have_attribute("aria-invalid", "true")

    reset(sampler_page)

    for field, value in DEFAULT_SAMPLER_SETTINGS.items():
        expect(control(sampler_page, field)).to_have_value(value)
        expect(control(sampler_page, field)).not_to_have_attribute("aria-invalid", "true")
        expect(sampler_page.locator(f'{SAMPLER} [data-error-for="{field}"]')).to_be_hidden()
    expect(sampler_page.locator(f'{SAMPLER} input[name="temperature-slider"]')).to_have_value(
        str(TEMPERATURE.slider_position("1"))
    )
    assert sampler_page.url == site_url + SAMPLER_PAGE


def test_changed_settings_are_written_into_the_address(sampler_page: Page, site_url: str):
    reset(sampler_page)
    type_settings(sampler_page, "2", "8", "20260903")
    expect_results(sampler_page, SAMPLER, expected_sampler("2", "8", "20260903"))

    expect(sampler_page).to_have_url(site_url + SAMPLER_PAGE + "?T=2&K=8&seed=20260903#lab-1")


def test_the_lab_works_from_the_keyboard_alone(sampler_page: Page, site_url: str):
    reset(sampler_page)
    keyboard = sampler_page.keyboard
    control(sampler_page, "temperature").focus()

    keyboard.press("Control+A")
    keyboard.type("2")
    expect_results(sampler_page, SAMPLER, expected_sampler("2", "6", "20260903"))
    slider = sampler_page.locator(f'{SAMPLER} input[name="temperature-slider"]')
    expect(slider).to_have_value(str(TEMPERATURE.slider_position("2")))

    keyboard.press("Tab")
    expect(slider).to_be_focused()
    keyboard.press("ArrowRight")
    expect(control(sampler_page, "temperature")).to_have_value("2.2")
    expect_results(sampler_page, SAMPLER, expected_sampler("2.2", "6", "20260903"))

    for _ in TEMPERATURE.presets:  # Tab passes the presets
        keyboard.press("Tab")
    keyboard.press("Tab")  # the group size's − button
    keyboard.press("Tab")
    expect(control(sampler_page, "group_size")).to_be_focused()
    keyboard.press("ArrowUp")
    keyboard.press("ArrowUp")
    expect(control(sampler_page, "group_size")).to_have_value("8")
    keyboard.press("Tab")  # + button
    keyboard.press("Tab")  # the seed's − button
    keyboard.press("Tab")
    expect(control(sampler_page, "seed")).to_be_focused()
    keyboard.press("Control+A")
    keyboard.type("5")
    expect_results(sampler_page, SAMPLER, expected_sampler("2.2", "8", "5"))

    keyboard.press("Tab")  # + button
    keyboard.press("Tab")  # New seed
    keyboard.press("Tab")
    reset_button = sampler_page.locator(SAMPLER).get_by_role("button", name="Reset")
    expect(reset_button).to_be_focused()
    keyboard.press("Enter")
    expect_results(sampler_page, SAMPLER, expected_sampler(**DEFAULT_SAMPLER_SETTINGS))
    expect(control(sampler_page, "temperature")).to_have_value("1")


BAD_INPUTS = [
    ("temperature", ""),
    ("temperature", "abc"),
    ("temperature", "0"),
    ("temperature", "-1"),
    ("group_size", "0"),
    ("group_size", "65"),
    ("group_size", "2.5"),
    ("seed", "4294967296"),
]


@pytest.mark.parametrize(("field", "value"), BAD_INPUTS)
def test_a_bad_value_is_explained_next_to_its_control(sampler_page: Page, field: str, value: str):
    type_settings(sampler_page, "2", "5", "99")
    expect_results(sampler_page, SAMPLER, expected_sampler("2", "5", "99"))
    results = sampler_page.locator(f"{SAMPLER} [data-lab-results]")
    good_results = results.inner_html()
    error_field, message = expected_setting_error(**{field: value})
    assert error_field == field
    error = sampler_page.locator(f'{SAMPLER} [data-error-for="{field}"]')

    enter(sampler_page, field, value)

    expect(error).to_be_visible(timeout=UPDATE_TIMEOUT_MS)
    assert error.text_content() == message
    expect(control(sampler_page, field)).to_have_attribute("aria-invalid", "true")
    # Said once: the message, then which settings the results still shown are for.
    expect(sampler_page.locator(f"{SAMPLER} [data-lab-announce]")).to_have_text(
        f"{message}. Not updated: the results below are for T = 2; K = 5; seed = 99, the last settings accepted."
    )
    assert results.inner_html() == good_results

    enter(sampler_page, field, {"temperature": "2", "group_size": "5", "seed": "99"}[field])
    expect(error).to_be_hidden()
    expect(control(sampler_page, field)).not_to_have_attribute("aria-invalid", "true")


def test_the_live_lab_showing_an_error_passes_axe(sampler_page: Page):
    type_settings(sampler_page, "2", "5", "99")
    enter(sampler_page, "seed", "-5")
    expect(sampler_page.locator(f'{SAMPLER} [data-error-for="seed"]')).to_be_visible(timeout=UPDATE_TIMEOUT_MS)

    assert find_violations(sampler_page) == []
