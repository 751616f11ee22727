"""The dev server's reload script in a real Chromium: it loads under the pages' CSP, reloads after an edit, shows and clears the error overlay.

Uses Debian's Chromium through Playwright (like tests/browser), on a page
without a lab so the test does not wait for Pyodide. Requests that would
leave 127.0.0.1 are aborted and fail the test, as are console errors (a CSP
violation is one).
"""

from __future__ import annotations

import signal

import pytest
from playwright.sync_api import expect

from chromium_settings import chromium_launch_options
from serve_testing import ServeProcess
from site_testing import copy_sample

pytestmark = pytest.mark.browser

TIMEOUT_MS = 30_000


@pytest.fixture
def server(tmp_path):
    """A dev server over a copy of the sample content; always stopped at the end."""
    serving = ServeProcess(copy_sample(tmp_path), tmp_path / "dist")
    try:
        yield serving
    finally:
        serving.stop(signal.SIGKILL if serving.process.poll() is None else None)


@pytest.fixture
def chromium(browser_type):
    """Debian's Chromium (playwright install cannot download browsers here)."""
    browser = browser_type.launch(**chromium_launch_options(for_tests=True))
    try:
        yield browser
    finally:
        browser.close()


def test_the_page_reloads_after_an_edit_and_shows_then_clears_build_errors(server, chromium, tmp_path):
    context = chromium.new_context()
    outside: list[str] = []
    console_errors: list[str] = []

    def allow_only_local(route):
        if route.request.url.startswith(f"http://127.0.0.1:{server.port}/"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", allow_only_local)
    page = context.new_page()
    page.on("console", lambda message: console_errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(str(error)))
    page.goto(f"http://127.0.0.1:{server.port}/01-rollout.html")
    expect(page.locator("h1")).to_have_text("What was the rollout?")
    page.wait_for_function("() => document.querySelector('link[href=\"/__rollouts__/reload.css\"]') !== null")

    chapter = tmp_path / "content/01-rollout.md"
    good = chapter.read_text(encoding="utf-8")
    chapter.write_text(
        good.replace("## The context grows", "A sentence typed just now.\n\n## The context grows", 1), encoding="utf-8"
    )
    expect(page.locator("main")).to_contain_text("A sentence typed just now.", timeout=TIMEOUT_MS)

    chapter.write_text(good.replace("[rollout](term:)", "[rollout](term:rollot)", 1), encoding="utf-8")
    overlay = page.locator(".rollouts-dev-overlay")
    expect(overlay).to_be_visible(timeout=TIMEOUT_MS)
    expect(overlay.locator("h2")).to_have_text("The build failed")
    expect(overlay.locator("li").first).to_have_text(
        "content/01-rollout.md:6: unknown glossary term 'rollot' (did you mean 'rollout'?)"
    )
    expect(page.locator("main")).to_contain_text("A sentence typed just now.")  # the last good page stays

    chapter.write_text(good, encoding="utf-8")
    expect(overlay).to_have_count(0, timeout=TIMEOUT_MS)
    expect(page.locator("main")).not_to_contain_text("A sentence typed just now.", timeout=TIMEOUT_MS)
    context.close()
    assert outside == []
    assert console_errors == []


def test_the_dev_server_registers_no_service_worker(server, chromium):
    # Offline reading must never serve an author a page from a cache: under `serve`, offline.js stays out.
    context = chromium.new_context(service_workers="allow")
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{server.port}/01-rollout.html")
    expect(page.locator("h1")).to_have_text("What was the rollout?")
    page.wait_for_load_state("load")
    expect(page.locator("[data-offline]")).to_be_hidden()
    page.wait_for_timeout(1000)  # time for a registration, had one been made
    # tests/browser/test_reader_offline.py shows the same pages, published, do register one.
    assert page.evaluate("navigator.serviceWorker.getRegistrations().then((all) => all.length)") == 0
