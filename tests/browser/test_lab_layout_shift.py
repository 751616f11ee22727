"""A lab coming alive moves nothing on the page (issue 56): cumulative layout shift < 0.005 on a 4x-slowed phone (and desktop).

The page is opened at a lab, as a reader arrives at it (by the contents, or by a shared link with settings), on a
390 px phone whose page thread runs 4x slower (CDP throttling: the workers run at the machine's speed, so Python's
start is not slowed, only the page's own scripts). Every layout shift from the navigation until the lab has computed
live is counted as the Layout Instability API reports it (shifts just after the reader's input excluded, as in CLS;
these tests give none). What used to move: the status line growing to hold "Starting Python…" and its bar and
shrinking back; the code blocks' and cells' buttons, "More settings" and "Copy link" added by scripts; the
"Shown until then" note of a shared link pushing the results down, then up.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from browser_testing import LIVE_STATUS, LIVE_TIMEOUT_MS

pytestmark = pytest.mark.browser

RECORD_SHIFTS = """
window.layoutShifts = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (!entry.hadRecentInput) {
      const moved = (entry.sources || []).map((source) => source.node ? source.node.nodeName + "." + String(source.node.className?.baseVal ?? source.node.className ?? "") : "?");
      window.layoutShifts.push({ value: entry.value, at: Math.round(entry.startTime), moved });
    }
  }
}).observe({ type: "layout-shift", buffered: true });
"""

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}

LIMIT = 0.005


@pytest.mark.parametrize(
    ("screen", "address"),
    [
        (PHONE, "01-rollout.html#lab-1"),  # the token lab, code blocks above it
        (PHONE, "04-follow-draw-3.html?T=2#lab-1"),  # a shared link: its settings load while the recorded run is shown
        (PHONE, "06-learning.html#lab-1"),  # the training lab under a Python cell, with "More settings"
        (PHONE, "07-signal.html?lam=0#lab-2"),  # the credit lab, second of the page's labs, by a shared link
        # A desktop: the status line holds its text and bar on one line; the training lab's two columns.
        (DESKTOP, "06-learning.html?R=5&K=8&seed=3#lab-1"),
    ],
    ids=["phone-tokens", "phone-sampler-link", "phone-training", "phone-credit-link", "desktop-training-link"],
)
def test_a_lab_coming_alive_shifts_nothing(open_context, site_url: str, screen: dict, address: str):
    context = open_context(**screen)
    context.add_init_script(RECORD_SHIFTS)
    page = context.new_page()
    context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.goto(site_url + address)
    lab = page.locator("#" + address.split("#")[1])
    expect(lab.locator("[data-lab-status]")).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
    expect(lab.locator("[data-lab-results]")).not_to_have_class(re.compile("lab-results-recorded"))
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")  # reported
    shifts = page.evaluate("window.layoutShifts")
    assert sum(shift["value"] for shift in shifts) < LIMIT, shifts


@pytest.mark.parametrize("address", ["04-follow-draw-3.html", "06-learning.html"])
def test_without_javascript_no_control_that_needs_it_shows_and_every_field_does(open_context, site_url: str, address: str):
    """The build writes the controls scripts connect (so nothing moves when they do); without JavaScript none shows."""
    page = open_context(java_script_enabled=False, **PHONE).new_page()
    page.goto(site_url + address)
    for selector in (".code-tools", ".cell-toolbar", ".lab-copy-link", ".lab-more-toggle"):
        shown = page.locator(selector).evaluate_all(
            "(elements) => elements.filter((element) => element.checkVisibility()).length"
        )
        assert shown == 0, selector
    fields = page.locator(".lab .lab-field")
    assert fields.count() > 0
    assert fields.evaluate_all("(elements) => elements.filter((element) => !element.checkVisibility()).length") == 0
