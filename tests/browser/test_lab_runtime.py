"""When Python cannot run in the page: the recorded numbers stay, the reader is told, and can retry."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Route, expect

from browser_testing import (
    COMPRESSED_WASM,
    LIVE_STATUS,
    LIVE_TIMEOUT_MS,
    RECORDED_STATUS,
    RUNTIME_WASM,
    SAMPLER,
    SAMPLER_PAGE,
    STARTING_STATUS,
    expect_results,
    sampler_results,
    starting,
)

pytestmark = pytest.mark.browser


def recorded_results(built_site: Path) -> dict:
    """Return what the sampler shows for the recorded run the build wrote."""
    return sampler_results(json.loads((built_site / "lab" / "recorded-run.json").read_text(encoding="utf-8")))


def test_a_failed_start_keeps_the_recorded_numbers_and_offers_a_retry(
    open_context, site_url: str, built_site: Path, expect_failed_loads
):
    context = open_context()
    expect_failed_loads(RUNTIME_WASM)
    # Hold the runtime's .wasm so the loading state can be seen, then make it fail.
    held: list[Route] = []
    failing = False

    def hold_then_abort(route: Route) -> None:
        if failing:
            route.abort()
        else:
            held.append(route)

    # The page's compressed copy, then the plain file it falls back to, then the worker's own try.
    context.route(RUNTIME_WASM, hold_then_abort)
    page = context.new_page()
    page.goto(site_url + SAMPLER_PAGE)
    status = page.locator(f"{SAMPLER} [data-lab-status]")
    page.locator(SAMPLER).scroll_into_view_if_needed()

    expect(status).to_have_text(starting(STARTING_STATUS))
    expect(status.get_by_role("progressbar", name="Starting Python")).to_be_visible()
    expect_results(page, SAMPLER, recorded_results(built_site))
    expect(page.locator(SAMPLER).get_by_label("Temperature", exact=True)).to_be_disabled()
    deadline = time.monotonic() + LIVE_TIMEOUT_MS / 1000
    while not held and time.monotonic() < deadline:
        page.evaluate("() => 0")  # a round trip lets Playwright deliver the pending route
    failing = True
    for route in held:
        route.abort()

    expect(status).to_have_text(
        "Python could not start in your browser (its files could not be downloaded), "
        "so the numbers shown are the ones recorded at build time. Retry",
        timeout=LIVE_TIMEOUT_MS,
    )
    expect_results(page, SAMPLER, recorded_results(built_site))
    expect(page.locator(SAMPLER).get_by_label("Temperature", exact=True)).to_be_disabled()
    # No result of the reader's to share (issue 39): "Copy link" waits with the controls, and says why.
    copy = page.locator(SAMPLER).get_by_role("button", name="Copy link")
    expect(copy).to_be_disabled()
    expect(copy).to_have_accessible_description(
        "Python could not start in your browser (its files could not be downloaded), "
        "so the numbers shown are the ones recorded at build time. Retry"
    )

    context.unroute(RUNTIME_WASM)
    page.locator(SAMPLER).get_by_role("button", name="Retry").click()
    expect(status).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
    expect(status).to_be_focused()
    expect(page.locator(SAMPLER).get_by_label("Temperature", exact=True)).to_be_enabled()
    expect(copy).to_be_enabled()
    expect(copy).not_to_have_attribute("aria-describedby", re.compile(".*"))


def test_a_wrongly_typed_runtime_is_named_at_once(open_context, site_url: str, built_site: Path, expect_failed_loads):
    """Served as anything but application/wasm, Pyodide would wait forever; the lab says why instead.

    Only when the plain file is used: the page compiles the xz copy whatever its type.
    """
    context = open_context()

    def label_wasm_as_octet_stream(route):
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, "content-type": "application/octet-stream"})

    context.route("**/*.wasm", label_wasm_as_octet_stream)
    # The compressed copy the page compiles needs no type: a host that serves only the plain file.
    context.route(COMPRESSED_WASM, lambda route: route.fulfill(status=404, body="gone"))
    expect_failed_loads(COMPRESSED_WASM)
    page = context.new_page()
    page.goto(site_url + SAMPLER_PAGE)
    page.locator(SAMPLER).scroll_into_view_if_needed()

    expect(page.locator(f"{SAMPLER} [data-lab-status]")).to_have_text(
        'Python could not start in your browser (pyodide.asm.wasm is served as "application/octet-stream", '
        'not "application/wasm"), so the numbers shown are the ones recorded at build time. Retry',
        timeout=LIVE_TIMEOUT_MS,
    )
    expect_results(page, SAMPLER, recorded_results(built_site))


def test_without_javascript_the_recorded_results_are_shown(open_context, site_url: str, built_site: Path):
    page = open_context(java_script_enabled=False).new_page()
    page.goto(site_url + SAMPLER_PAGE)

    expect(page.locator(f"{SAMPLER} [data-lab-status]")).to_have_text(RECORDED_STATUS)
    expect_results(page, SAMPLER, recorded_results(built_site))
    expect(page.locator(SAMPLER).get_by_label("Temperature", exact=True)).to_be_disabled()


@pytest.mark.slow
def test_a_start_that_takes_too_long_is_reported_and_may_still_finish(open_context, site_url: str, built_site: Path):
    """A start that hangs must not leave the page silent; one that was only slow still goes live.

    The page's clock is Playwright's: it runs at the real pace, but the test
    jumps it over the 30 seconds instead of waiting them out, and checks that
    one second short of them the lab still says it is starting.
    """
    context = open_context()
    context.clock.install()
    held: list[Route] = []
    released: list[bool] = []
    # Held until released; one asked for after that (a worker slow to get there on a loaded machine) goes through.
    context.route(RUNTIME_WASM, lambda route: route.continue_() if released else held.append(route))
    page = context.new_page()
    page.goto(site_url + SAMPLER_PAGE)
    page.locator(SAMPLER).scroll_into_view_if_needed()
    status = page.locator(f"{SAMPLER} [data-lab-status]")

    expect(status).to_have_text(starting(STARTING_STATUS))
    page.clock.fast_forward("00:29")
    page.evaluate("() => 0")  # one round trip: a timer due now has fired
    expect(status).to_have_text(starting(STARTING_STATUS))
    page.clock.fast_forward("00:01")
    expect(status).to_have_text(
        "Python has not started in your browser after 30 seconds, "
        "so the numbers shown are the ones recorded at build time. Retry",
        timeout=LIVE_TIMEOUT_MS,
    )
    expect_results(page, SAMPLER, recorded_results(built_site))

    released.append(True)
    for route in held:
        route.continue_()
    expect(status).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
    expect(page.locator(SAMPLER).get_by_label("Temperature", exact=True)).to_be_enabled()
