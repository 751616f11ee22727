"""When Python starts: near the lab, on interaction, at once for a shared link; and what a shared link shows meanwhile."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from playwright.sync_api import Page, Request, Route, expect

from browser_testing import (
    LIVE_STATUS,
    LIVE_TIMEOUT_MS,
    RECORDED_STATUS,
    RUNTIME_WASM,
    SAMPLER,
    SAMPLER_PAGE,
    expect_results,
    expected_sampler,
    sampler_results,
    starting,
)

pytestmark = pytest.mark.browser

# The lab's own scripts are on every lab page; these are what starting Python fetches.
RUNTIME_FILES = ("lab-worker.", "/pyodide/", "rollout_lab.")


def watch_runtime_requests(page: Page) -> list[str]:
    requests: list[str] = []

    def record(request: Request) -> None:
        if any(part in request.url for part in RUNTIME_FILES):
            requests.append(request.url)

    page.on("request", record)
    return requests


def recorded_results(built_site: Path) -> dict:
    return sampler_results(json.loads((built_site / "lab" / "recorded-run.json").read_text(encoding="utf-8")))


def test_python_starts_only_when_the_lab_nears_the_viewport(open_context, site_url: str):
    page = open_context(viewport={"width": 1280, "height": 700}).new_page()
    requests = watch_runtime_requests(page)
    page.goto(site_url + SAMPLER_PAGE)
    page.wait_for_load_state("networkidle")

    assert requests == []
    expect(page.locator(f"{SAMPLER} [data-lab-status]")).to_have_text(RECORDED_STATUS)
    head_links = page.evaluate("() => [...document.head.querySelectorAll('link[rel]')].map((link) => link.rel + ' ' + link.href)")
    assert not [link for link in head_links if any(part in link for part in RUNTIME_FILES)]
    # Only the math's fonts are fetched ahead (base.html): nothing of Python's.
    assert [link for link in head_links if "preload" in link and not link.endswith(".woff2")] == []

    page.locator(SAMPLER).scroll_into_view_if_needed()
    expect(page.locator(f"{SAMPLER} [data-lab-status]")).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
    assert requests


def test_saving_data_starts_python_only_on_interaction(open_context, site_url: str):
    context = open_context()
    # Chromium has no switch for Save-Data; the page reads navigator.connection.saveData.
    context.add_init_script("Object.defineProperty(navigator.connection, 'saveData', { get: () => true })")
    page = context.new_page()
    requests = watch_runtime_requests(page)
    page.goto(site_url + SAMPLER_PAGE)
    section = page.locator(SAMPLER)
    section.scroll_into_view_if_needed()
    page.wait_for_load_state("networkidle")

    assert requests == []
    # The build's own count of what a start downloads (the runtime block's data-download-bytes), in whole MB rounded up.
    downloads = int(page.locator("#rollouts-lab").get_attribute("data-download-bytes"))
    assert 5e6 < downloads < 12e6
    start = section.get_by_role("button", name=f"Run it live in your browser (downloads about {math.ceil(downloads / 1e6)} MB)")
    expect(start).to_be_visible()
    start.click()
    expect(section.locator("[data-lab-status]")).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
    assert requests


def test_a_shared_link_says_its_settings_are_loading_then_shows_them(open_context, site_url: str, built_site: Path):
    context = open_context(viewport={"width": 1280, "height": 700})
    held: list[Route] = []
    released = False

    def hold_until_released(route: Route) -> None:
        if released:
            route.continue_()
        else:
            held.append(route)

    # Python's .wasm is held so the loading state stays on screen long enough to be read.
    context.route(RUNTIME_WASM, hold_until_released)
    page = context.new_page()
    page.goto(site_url + SAMPLER_PAGE + "?T=2&K=8")  # the lab is far below the fold
    section = page.locator(SAMPLER)
    status = section.locator("[data-lab-status]")

    expect(status).to_have_text(starting("Loading your settings (T = 2, K = 8)\u2026"))
    expect(section.locator("[data-lab-pending]")).to_have_text(
        "Shown until then: the recorded run (T = 1, K = 6, seed = 20260903)."
    )
    expect(section.locator("[data-lab-results]")).to_have_class("lab-results lab-results-recorded")
    expect(section.get_by_label("Temperature", exact=True)).to_have_value("2")
    expect(section.get_by_label("Group size", exact=True)).to_have_value("8")
    expect_results(page, SAMPLER, recorded_results(built_site))

    released = True
    for route in held:
        route.continue_()
    expect(status).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
    expect_results(page, SAMPLER, expected_sampler("2", "8", "20260903"))
    expect(section.locator("[data-lab-pending]")).to_be_hidden()
    expect(section.locator("[data-lab-results]")).to_have_class("lab-results")


def test_without_javascript_a_shared_link_says_its_settings_were_not_applied(open_context, site_url: str, built_site: Path):
    page = open_context(java_script_enabled=False).new_page()
    page.goto(site_url + SAMPLER_PAGE + "?T=2&K=8")
    section = page.locator(SAMPLER)

    expect(section.locator(".lab-note", has_text="Settings in a link")).to_have_text(
        "Settings in a link (such as ?T=2&K=8) need JavaScript; the numbers below are the recorded run."
    )
    expect_results(page, SAMPLER, recorded_results(built_site))


@pytest.mark.parametrize("page_name", ["02-possibilities.html", "04-follow-draw-3.html"])
def test_chart_text_is_at_least_12_px_on_a_phone(open_context, site_url: str, page_name: str):
    page = open_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(site_url + page_name)
    sizes = page.evaluate(
        """() => [...document.querySelectorAll('section.lab svg text, figure svg.draw-rule text')]
             .map((text) => parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a)"""
    )
    assert sizes and min(sizes) >= 12
