"""The lab on one screen: while the reader uses a control, it stays in view with draw 3's row and the strip it changes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from browser_testing import (
    DEFAULT_SAMPLER_SETTINGS,
    SAMPLER,
    SAMPLER_PAGE,
    UPDATE_TIMEOUT_MS,
    expect_results,
    expected_sampler,
    open_live_lab,
    restore_sampler,
)
from rollout_lab.widgets import render_widget
from rollout_lab.widgets.controls import TEMPERATURE

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def sampler_page(open_context, site_url: str) -> Page:
    """Chapter 4 with its lab live (one Pyodide start for the module); each test resizes the window and restores it."""
    return open_live_lab(open_context, site_url + SAMPLER_PAGE, SAMPLER)


# Where the slider, draw 3's row and the strip are in the window, and what is painted at the slider's centre.
MEASURE = """(selector) => {
  const lab = document.querySelector(selector);
  const box = (element) => { const r = element.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; };
  const slider = lab.querySelector('input[type="range"]');
  const r = slider.getBoundingClientRect();
  const header = document.querySelector('.site-header').getBoundingClientRect();
  // What sticks: the whole form on wide screens, the field in use on phones.
  let stuck = slider;
  while (stuck && getComputedStyle(stuck).position !== 'sticky') stuck = stuck.parentElement;
  return {
    height: window.innerHeight,
    header: header.bottom,
    controls: stuck && box(stuck),
    slider: box(slider),
    sliderOnTop: document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === slider,
    draw3: box(lab.querySelector('tr.draw-3')),
    strip: box(lab.querySelector('svg.draw-rule')),
  };
}"""


def scroll_until_the_strip_shows(page: Page) -> None:
    """Scroll down as a reader would to the strip the slider changes, until its bottom is in view."""
    page.evaluate(
        "(selector) => { const strip = document.querySelector(selector + ' svg.draw-rule'); window.scrollBy(0, strip.getBoundingClientRect().bottom - window.innerHeight + 8); }",
        SAMPLER,
    )


@pytest.mark.parametrize("viewport", [{"width": 390, "height": 844}, {"width": 1280, "height": 800}], ids=["390px", "1280px"])
def test_the_slider_draw_3_and_the_strip_are_on_screen_together(sampler_page: Page, site_url: str, viewport: dict):
    page = sampler_page
    restore_sampler(page, site_url, viewport)
    section = page.locator(SAMPLER)
    section.scroll_into_view_if_needed()
    slider = section.get_by_label("Temperature slider", exact=True)
    slider.focus()
    page.keyboard.press("ArrowRight")  # the slider moves; its results change under it
    moved_to = TEMPERATURE.slider_value(TEMPERATURE.slider_position("1") + 1)
    announcement = render_widget("sampler", {"temperature": moved_to})["announcement"]
    expect(section.locator("[data-lab-announce]")).to_have_text(announcement, timeout=UPDATE_TIMEOUT_MS)
    # The reader scrolls down to the strip the slider changed, until its bottom is in view.
    scroll_until_the_strip_shows(page)
    at = page.evaluate(MEASURE, SAMPLER)
    assert at["sliderOnTop"], at
    assert at["header"] <= at["controls"]["top"] and at["slider"]["bottom"] <= at["height"], at
    # Draw 3's row and the strip: below the controls (not covered by them) and within the window.
    for part in ("draw3", "strip"):
        assert at["controls"]["bottom"] <= at[part]["top"] and at[part]["bottom"] <= at["height"], (part, at)
    # Reading on, with no control in use, nothing sticks over the text.
    page.evaluate("document.activeElement.blur()")
    for element in (section.locator("[data-lab-controls]"), section.locator(".lab-field-log-slider")):
        assert element.evaluate("(e) => getComputedStyle(e).position") == "static"


def test_the_not_updated_note_is_not_under_the_sticky_form(sampler_page: Page, site_url: str):
    """Issue 39: on a desktop the form sticks over the results while in use; a refused value's note stays in sight."""
    page = sampler_page
    restore_sampler(page, site_url, {"width": 1280, "height": 800})
    section = page.locator(SAMPLER)
    section.scroll_into_view_if_needed()
    field = section.get_by_label("Temperature", exact=True)
    field.focus()
    # The reader has scrolled down to the strip, the form stuck under the header, and types a value that is refused.
    scroll_until_the_strip_shows(page)
    field.fill("abc")
    field.press("Enter")
    note = section.locator("[data-lab-pending]")
    expect(note).to_have_text(re.compile("^Not updated: "), timeout=UPDATE_TIMEOUT_MS)
    at = note.evaluate(
        """(note) => { const r = note.getBoundingClientRect(); const x = r.left + r.width / 2, y = r.top + r.height / 2;
        const onTop = document.elementFromPoint(x, y);
        return { top: r.top, bottom: r.bottom, height: innerHeight, onTop: onTop !== null && note.contains(onTop),
                 header: document.querySelector('.site-header').getBoundingClientRect().bottom }; }"""
    )
    assert at["header"] <= at["top"] and at["bottom"] <= at["height"] and at["onTop"], at
    expect(field).to_be_focused()


# A window 560 px tall: a phone held sideways, or a 1280 × 1120 laptop window at 200 % zoom (640 × 560 CSS px).
@pytest.mark.parametrize("viewport", [{"width": 640, "height": 560}, {"width": 390, "height": 560}], ids=["zoomed", "sideways"])
def test_in_a_short_window_the_control_in_use_does_not_stick(sampler_page: Page, site_url: str, viewport: dict):
    """Issue 56: at 200 % zoom chapter 4's sticky controls covered about 70 % of the screen."""
    page = sampler_page
    restore_sampler(page, site_url, viewport)
    section = page.locator(SAMPLER)
    section.scroll_into_view_if_needed()
    section.get_by_label("Temperature", exact=True).focus()
    for element in (section.locator("[data-lab-controls]"), section.locator(".lab-field-log-slider")):
        assert element.evaluate("(e) => getComputedStyle(e).position") == "static"


def test_reset_just_under_the_header_resets_at_the_first_click(sampler_page: Page, site_url: str):
    """Scrolled until the form's last row is just under the header, a press on Reset focused the form, which stuck
    under the header and moved away from the pointer: the mouse went up over another element and the click was lost."""
    page = sampler_page
    restore_sampler(page, site_url, {"width": 1280, "height": 800})
    section = page.locator(SAMPLER)
    section.get_by_label("Temperature", exact=True).fill("2")
    section.get_by_label("Temperature", exact=True).press("Enter")
    expect_results(page, SAMPLER, expected_sampler("2", "6", "20260903"))
    page.evaluate("() => document.activeElement.blur()")
    reset = section.get_by_role("button", name="Reset")
    reset.evaluate(
        "(button) => window.scrollBy(0, button.getBoundingClientRect().top - document.querySelector('.site-header').getBoundingClientRect().bottom - 4)"
    )
    box = reset.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect_results(page, SAMPLER, expected_sampler(**DEFAULT_SAMPLER_SETTINGS))
