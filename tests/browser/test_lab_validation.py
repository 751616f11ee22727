"""Validation that waits for the reader: checked on commit (Enter, leaving the field, a pause in typing), announced
once, invalid fields that look invalid next to their message, results marked stale; shared links with bad settings;
the "Copy link" control."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from browser_testing import (
    CALCULATOR,
    CALCULATOR_PAGE,
    DEFAULT_SAMPLER_SETTINGS,
    LIVE_STATUS,
    LIVE_TIMEOUT_MS,
    SAMPLER,
    SAMPLER_PAGE,
    UPDATE_TIMEOUT_MS,
    expect_results,
    expected_calculator,
    expected_sampler,
    expected_setting_error,
    paused_clock,
    sampler_results,
)
from rollout_lab.widgets import render_widget

pytestmark = pytest.mark.browser

KEY_DELAY_MS = 250  # 4 keys a second: a slow typist
PAUSE_MS = 1500  # a reader's pause: past the lab's typing pause (800 ms, client/lab/widget.mjs)
RECORDED = "T = 1; K = 6; seed = 20260903"

# Records every text the widget's live region is given from now on, and whether any field was ever marked
# invalid; an earlier test's watch on the same page is stopped first.
WATCH_WIDGET = """(selector) => {
  for (const observer of window.watchers ?? []) observer.disconnect();
  const section = document.querySelector(selector);
  window.said = [];
  window.everInvalid = false;
  const region = section.querySelector('[data-lab-announce]');
  const announcements = new MutationObserver(() => window.said.push(region.textContent));
  announcements.observe(region, { childList: true, characterData: true, subtree: true });
  const invalid = new MutationObserver(() => { window.everInvalid ||= section.querySelector('[aria-invalid="true"]') !== null; });
  invalid.observe(section, { attributes: true, subtree: true, attributeFilter: ['aria-invalid'] });
  window.watchers = [announcements, invalid];
}"""


def open_live(open_context, url: str, **options) -> Page:
    page = open_context(**options).new_page()
    page.goto(url)
    page.locator("section.lab").first.scroll_into_view_if_needed()
    for status in page.locator("[data-lab-status]").all():
        expect(status).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
    return page


@pytest.fixture(scope="module")
def sampler_page(open_context, site_url: str) -> Page:
    """Chapter 4 with its lab live (one Pyodide start), for the tests that open it without settings."""
    return open_live(open_context, site_url + SAMPLER_PAGE)


def recorded_sampler(page: Page, scheme: str = "light") -> Page:
    """Bring the shared page back to the recorded run, nothing invalid, in the given colour scheme."""
    page.emulate_media(color_scheme=scheme)
    page.locator(SAMPLER).get_by_role("button", name="Reset").click()
    expect_results(page, SAMPLER, expected_sampler(**DEFAULT_SAMPLER_SETTINGS))
    expect(page.locator(f"{SAMPLER} [aria-invalid]")).to_have_count(0)
    expect(page.locator(f"{SAMPLER} [data-lab-pending]")).to_be_hidden()
    return page


def settle(page: Page) -> None:
    """Wait past the typing pause, so anything that would be committed has been."""
    page.wait_for_timeout(1500)


def type_slowly(page: Page, field: Locator, text: str) -> None:
    """Type `text` into `field` a key at a time, KEY_DELAY_MS of the page's time after each key (paused_clock).

    Timed in the page's time, not the machine's: under load, a real gap between two keys could outlast the typing
    pause and commit a half-typed value.
    """
    for key in text:
        field.press_sequentially(key)
        page.clock.run_for(KEY_DELAY_MS)


def pause(page: Page) -> None:
    """Let the page's time pass a reader's pause, past the typing pause (under paused_clock)."""
    page.clock.run_for(PAUSE_MS)


def test_typing_is_checked_and_announced_once_when_the_reader_pauses(open_context, site_url: str):
    page = open_live(open_context, site_url + CALCULATOR_PAGE)
    page.evaluate(WATCH_WIDGET, CALCULATOR)
    field = page.locator(CALCULATOR).get_by_label("Rewards (comma-separated)", exact=True)
    with paused_clock(page):
        field.fill("")
        type_slowly(page, field, "1, 0.75, 0")
        assert page.evaluate("window.said") == []  # nothing checked while the reader types
        pause(page)
        expect_results(page, CALCULATOR, expected_calculator("1, 0.75, 0"))
        field.press("Enter")  # committed already by the pause: nothing new to say
        field.blur()
        pause(page)
    assert page.evaluate("window.said") == [render_widget("calculator", {"rewards": "1, 0.75, 0"})["announcement"]]
    assert page.evaluate("window.everInvalid") is False


def test_a_temperature_typed_slowly_is_never_checked_half_typed(sampler_page: Page):
    page = recorded_sampler(sampler_page)
    page.evaluate(WATCH_WIDGET, SAMPLER)
    field = page.locator(SAMPLER).get_by_label("Temperature", exact=True)
    with paused_clock(page):
        field.fill("")
        type_slowly(page, field, "0.25")
        assert page.evaluate("window.said") == []
        pause(page)
        expect_results(page, SAMPLER, expected_sampler("0.25", "6", "20260903"))
        pause(page)
    assert page.evaluate("window.said") == [render_widget("sampler", {"temperature": "0.25"})["announcement"]]
    assert page.evaluate("window.everInvalid") is False


def rgb(colour: str) -> tuple[float, ...]:
    """The red, green and blue of a computed colour, "rgb(37, 99, 235)"."""
    return tuple(float(part) for part in colour[colour.index("(") + 1 : colour.index(")")].split(",")[:3])


def contrast(page: Page, first: str, second: str) -> float:
    return page.evaluate(
        """([first, second]) => {
      const luminance = (colour) => {
        const [r, g, b] = colour.match(/[\\d.]+/g).map(Number).map((c) => (c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const [a, b] = [luminance(first), luminance(second)];
      return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    }""",
        [first, second],
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_an_invalid_field_looks_invalid_next_to_its_message_and_the_results_say_they_are_stale(sampler_page: Page, scheme: str):
    page = recorded_sampler(sampler_page, scheme)
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
    section = page.locator(SAMPLER)
    seed = section.get_by_label("Seed", exact=True)
    valid_border = seed.evaluate("(input) => getComputedStyle(input).borderTopColor")
    page.evaluate(WATCH_WIDGET, SAMPLER)
    _, message = expected_setting_error(seed="abc")

    seed.fill("abc")
    seed.press("Enter")

    error = section.locator('[data-error-for="seed"]')
    expect(error).to_have_text(message, timeout=UPDATE_TIMEOUT_MS)
    expect(seed).to_have_attribute("aria-invalid", "true")
    # Next to the field: the message follows the field's own row, within a few pixels.
    field_box = section.locator(".lab-field-stepper:has(#" + seed.get_attribute("id") + ") .lab-stepper").first.bounding_box()
    error_box = error.bounding_box()
    assert 0 <= error_box["y"] - (field_box["y"] + field_box["height"]) <= 12
    # Visibly invalid: a thicker border in the error colour, at 3:1 or more against the lab's background.
    style = seed.evaluate("(input) => { const s = getComputedStyle(input); return [s.borderTopColor, s.borderTopWidth]; }")
    background = section.evaluate("(lab) => getComputedStyle(lab).backgroundColor")
    assert style[0] != valid_border and style[1] == "2px"
    assert contrast(page, style[0], background) >= 3
    assert contrast(page, error.evaluate("(e) => getComputedStyle(e).color"), background) >= 4.5
    # A focused valid field does not look invalid (issue 39): the focus ring's colour is neither the invalid
    # border's nor the message's, and it stands out from the lab's background too.
    slider = section.get_by_label("Temperature slider", exact=True)
    slider.focus()
    ring = slider.evaluate("(s) => { const c = getComputedStyle(s); return [c.outlineColor, c.outlineStyle, c.outlineWidth]; }")
    assert ring[1:] == ["solid", "3px"], ring
    assert ring[0] not in {style[0], error.evaluate("(e) => getComputedStyle(e).color")}, (ring, style)
    assert contrast(page, ring[0], background) >= 3
    # Told apart by hue: the ring is blue, the invalid border red.
    (ring_red, _, ring_blue), (error_red, _, error_blue) = (rgb(ring[0]), rgb(style[0]))
    assert ring_blue > ring_red and error_red > error_blue, (ring, style)
    # The results are the last good run's, and say so.
    stale = f"Not updated: the results below are for {RECORDED}, the last settings accepted."
    expect(section.locator("[data-lab-pending]")).to_have_text(stale)
    expect(section.locator("[data-lab-results]")).to_have_class("lab-results lab-results-stale")
    seed.blur()
    settle(page)
    assert page.evaluate("window.said") == [f"{message}. {stale}"]

    seed.fill("99")
    expect_results(page, SAMPLER, expected_sampler("1", "6", "99"))
    expect(error).to_be_hidden()
    expect(section.locator("[data-lab-pending]")).to_be_hidden()
    expect(section.locator("[data-lab-results]")).to_have_class("lab-results")


@pytest.mark.parametrize(
    ("query", "bad"),
    [("?T=abc&K=999", {"temperature": "abc", "group_size": "999"}), ("?K=999", {"group_size": "999"})],
)
def test_a_shared_link_with_bad_settings_names_each_and_is_not_stuck(
    open_context, site_url: str, built_site: Path, query: str, bad: dict
):
    record = json.loads((built_site / "lab" / "recorded-run.json").read_text(encoding="utf-8"))
    page = open_live(open_context, site_url + SAMPLER_PAGE + query)
    section = page.locator(SAMPLER)
    messages = []
    for field, value in bad.items():
        error_field, message = expected_setting_error(**{field: value})
        assert error_field == field
        messages.append(message)
        expect(section.locator(f'[data-error-for="{field}"]')).to_have_text(message, timeout=UPDATE_TIMEOUT_MS)
        expect(section.locator(f'input[name="{field}"]')).to_have_attribute("aria-invalid", "true")
        expect(section.locator(f'input[name="{field}"]')).to_have_value(value)
    stale = f"Not updated: the results below are for {RECORDED}, the last settings accepted."
    expect(section.locator("[data-lab-pending]")).to_have_text(stale)
    expect(section.locator("[data-lab-results]")).to_have_class("lab-results lab-results-stale")
    expect(section.locator("[data-lab-announce]")).to_have_text(". ".join(messages) + f". {stale}")
    expect_results(page, SAMPLER, sampler_results(record))
    # Not stuck: mending the fields shows their run.
    for field in bad:
        section.locator(f'input[name="{field}"]').fill({"temperature": "2", "group_size": "8"}[field])
    expect_results(page, SAMPLER, expected_sampler("2" if "temperature" in bad else "1", "8", "20260903"))
    expect(section.locator("[data-lab-pending]")).to_be_hidden()
    for field in bad:
        expect(section.locator(f'input[name="{field}"]')).not_to_have_attribute("aria-invalid", "true")


def test_a_shared_links_result_is_announced_and_copy_link_copies_the_address(open_context, site_url: str):
    page = open_live(
        open_context, site_url + SAMPLER_PAGE + "?T=2&K=8&seed=20260903", permissions=["clipboard-read", "clipboard-write"]
    )
    section = page.locator(SAMPLER)
    expect_results(page, SAMPLER, expected_sampler("2", "8", "20260903"))
    expect(section.locator("[data-lab-announce]")).to_have_text(
        render_widget("sampler", {"temperature": "2", "group_size": "8", "seed": "20260903"})["announcement"]
    )
    section.get_by_label("Seed", exact=True).fill("31")
    expect(page).to_have_url(site_url + SAMPLER_PAGE + "?T=2&K=8&seed=31#lab-1", timeout=UPDATE_TIMEOUT_MS)
    section.get_by_role("button", name="Copy link").click()
    copy = section.locator(".lab-copy-link")  # by class: its name changes
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == site_url + SAMPLER_PAGE + "?T=2&K=8&seed=31#lab-1"
    expect(copy).to_have_text("Copy link")


# The two ways a clipboard refuses: a browser that denies the write (Firefox and Safari without a gesture they
# accept, or a reader who said no), and a page served over plain HTTP from another host, where it is missing.
REFUSING_CLIPBOARDS = {
    "denied": "if (self.Clipboard) Clipboard.prototype.writeText = () => "
    "Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'));",
    "missing": "if (self.Navigator) Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined });",
}


@pytest.mark.parametrize("refusal", sorted(REFUSING_CLIPBOARDS))
def test_when_the_clipboard_refuses_copy_link_says_so_and_offers_the_link_selected(open_context, site_url: str, refusal: str):
    context = open_context()
    context.add_init_script(REFUSING_CLIPBOARDS[refusal])
    page = context.new_page()
    page.goto(site_url + SAMPLER_PAGE + "?T=2&K=8&seed=31#lab-1")
    section = page.locator(SAMPLER)
    expect_results(page, SAMPLER, expected_sampler("2", "8", "31"))
    section.get_by_role("button", name="Copy link").click()
    expect(section.locator(".lab-copy-link")).to_have_text("Copy failed")
    field = section.get_by_label("Link to these settings", exact=True)
    expect(field).to_have_value(site_url + SAMPLER_PAGE + "?T=2&K=8&seed=31#lab-1")
    expect(field).to_be_focused()
    assert field.evaluate("(input) => input.value.slice(input.selectionStart, input.selectionEnd)") == field.input_value()
    expect(section.locator(".lab-copy-link")).to_have_text("Copy link")
    # A second refusal after another change reuses the field, with the new address.
    section.get_by_label("Seed", exact=True).fill("32")
    expect(page).to_have_url(site_url + SAMPLER_PAGE + "?T=2&K=8&seed=32#lab-1", timeout=UPDATE_TIMEOUT_MS)
    section.get_by_role("button", name="Copy link").click()
    expect(field).to_have_value(site_url + SAMPLER_PAGE + "?T=2&K=8&seed=32#lab-1")
    expect(section.locator(".lab-link-to-copy")).to_have_count(1)
