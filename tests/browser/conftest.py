"""Fixtures for the browser tests: the real site, served locally, in Debian's Chromium.

The site is built once per session by the real pipeline (`build.py build`),
served by the preview server (sitegen.serve.static_server, what `make preview`
runs: the sub-path /rollouts/, the build's `_headers`, the 404 page) on
127.0.0.1, to prove the site works wherever it is hosted, and opened in /usr/bin/chromium
(`playwright install` cannot download browsers here). Every context the tests open goes
through `open_context`, whose guard aborts any request that would leave
127.0.0.1 and records it, together with console errors and uncaught page
errors; a test that caused any of them fails.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Route, WebError, expect

from browser_testing import FAILING_IN_CONTEXT, LIVE_STATUS, LIVE_TIMEOUT_MS, PROJECT_ROOT, SITE_PREFIX
from chromium_settings import chromium_launch_options
from reader_fixtures import open_reader_context, reader_page  # noqa: F401 - the reader tests' fixtures, for every module here
from sitegen.serve.static_server import serve_preview

# ---------------------------------------------------------------- the site


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """Build content/ with the real pipeline into a temporary folder and return it."""
    out_dir = tmp_path_factory.mktemp("browser-site") / "dist"
    build = subprocess.run(
        [sys.executable, "build.py", "build", "--out", str(out_dir)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, f"build.py build failed:\n{build.stderr}"
    return out_dir


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """Serve the built site on 127.0.0.1 (a free port) under /rollouts/ and return its URL."""
    with serve_preview(built_site, SITE_PREFIX) as url:
        yield url


# ---------------------------------------------------------------- the browser


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """Launch Debian's Chromium with nothing that phones home."""
    return {**browser_type_launch_args, **chromium_launch_options(for_tests=True)}


@dataclass
class BrowserGuard:
    """What went wrong in the browser: requests that tried to leave 127.0.0.1, console errors, page errors."""

    problems: list[str] = field(default_factory=list)
    # URLs a test makes fail on purpose (expect_failed_loads): the page's own "Failed to load resource" for them
    # is what a browser says, not a problem. Cleared before each test.
    failing_on_purpose: list[re.Pattern[str]] = field(default_factory=list)

    def watch(self, context: BrowserContext) -> None:
        """Abort and record off-host requests; record console errors and uncaught errors of every page."""
        context.route(MAYBE_OFF_HOST, self.allow_only_local)
        context.on("console", self.record_console_message)
        context.on("weberror", self.record_web_error)

    def allow_only_local(self, route: Route) -> None:
        """Let requests to 127.0.0.1 through; abort and record any other."""
        url = route.request.url
        if urlsplit(url).hostname == "127.0.0.1":
            route.continue_()
        else:
            self.problems.append(f"request left 127.0.0.1: {url}")
            route.abort()

    def record_console_message(self, message: ConsoleMessage) -> None:
        """Record console errors (from pages and their workers)."""
        url = message.location.get("url", "")
        if message.text.startswith("Failed to load resource"):
            context = message.page.context if message.page is not None else None
            expected = [*self.failing_on_purpose, *(FAILING_IN_CONTEXT.get(id(context), []) if context is not None else [])]
            if any(pattern.search(url) for pattern in expected):
                return
        if message.type == "error":
            self.problems.append(f"console error: {message.text} ({message.location.get('url', '')})")

    def record_web_error(self, error: WebError) -> None:
        """Record uncaught exceptions and unhandled rejections."""
        self.problems.append(f"uncaught error: {error.error}")


# Every URL but a plain http://127.0.0.1[:port]/... one: those are decided by allow_only_local. The regular
# expression is matched in Playwright's driver, so the requests the site makes to its own server are let
# through there without a round trip to this process for each (hundreds per page with Pyodide's files).
MAYBE_OFF_HOST = re.compile(r"^(?!http://127\.0\.0\.1(:[0-9]+)?/)")

# One guard per session: every test checks the problems added while it ran,
# including during the set-up of module-scoped pages it uses.
GUARD = BrowserGuard()
_problems_before = pytest.StashKey[int]()


@pytest.fixture
def browser_guard() -> BrowserGuard:
    """The session's guard, for a test that makes the browser report problems on purpose and takes them back.

    A fixture, not `from conftest import GUARD`: with tests/site in the same run, that import found tests/site's conftest.
    """
    return GUARD


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    """Remember how many browser problems there were before this test."""
    item.stash[_problems_before] = len(GUARD.problems)
    GUARD.failing_on_purpose.clear()
    return (yield)


@pytest.fixture
def expect_failed_loads() -> Callable[[re.Pattern[str]], None]:
    """Say that this test makes the URLs matching a pattern fail: the page's console errors about loading them are expected.

    The page itself fetches Pyodide's WebAssembly and the snapshot (client/python/python-worker.mjs), and Chromium logs a failed load of a
    page's request as a console error (a worker's it does not).
    """
    return GUARD.failing_on_purpose.append


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Fail the test if the browser recorded a problem while it was set up or ran."""
    OPENED.in_test = True
    try:
        result = yield
    finally:
        OPENED.in_test = False
    new_problems = GUARD.problems[item.stash.get(_problems_before, len(GUARD.problems)) :]
    if new_problems:
        raise AssertionError("the browser reported:\n" + "\n".join(new_problems))
    return result


@dataclass
class OpenedContexts:
    """The guarded contexts still open, by who opened them, so each is closed as soon as nothing can use it.

    A context opened in a test's body is closed when that test ends; one opened
    while fixtures were set up (a module's shared page) when the module's last
    test ends. Left open, every page of the session would stay alive in
    Chromium (Pyodide and all, hundreds of MB each), its renderer still
    taking CPU from the tests that follow, and its late messages blamed on them.
    """

    by_test: list[BrowserContext] = field(default_factory=list)
    by_fixtures: list[BrowserContext] = field(default_factory=list)
    in_test: bool = False

    def add(self, context: BrowserContext) -> None:
        """Remember a context under its owner: the running test, or the fixtures."""
        (self.by_test if self.in_test else self.by_fixtures).append(context)

    @staticmethod
    def close(contexts: list[BrowserContext]) -> None:
        """Close the contexts and forget them.

        A route handler still running as its test ends (serving a worker's late request, say the cells' worker
        started once the lab was live) would fail once the context is gone ("Response has been disposed"), and
        Playwright raises that in the next test's first call: its errors go with the context.
        """
        for context in contexts:
            if context.browser is None or context in context.browser.contexts:  # not closed by its test already
                context.unroute_all(behavior="ignoreErrors")
                context.close()
        contexts.clear()


OPENED = OpenedContexts()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """Close the test's own contexts; once the module's fixtures are torn down too, theirs."""
    OPENED.close(OPENED.by_test)
    result = yield
    if nextitem is None or nextitem.module is not item.module:
        OPENED.close(OPENED.by_fixtures)
    return result


@pytest.fixture(scope="session")
def open_context(browser: Browser):
    """Return a function that opens a guarded browser context (OpenedContexts closes it)."""

    def open_guarded(**options) -> BrowserContext:
        # No service worker: its answers would bypass the guard's routing (test_reader_offline.py lets one run).
        context = browser.new_context(**{"service_workers": "block", **options})
        GUARD.watch(context)
        OPENED.add(context)
        return context

    yield open_guarded
    OPENED.close(OPENED.by_test)
    OPENED.close(OPENED.by_fixtures)


@pytest.fixture(scope="session")
def open_live_page(open_context, site_url: str):
    """Return a function that opens a page of the site in a fresh context and waits until its lab is live."""

    def open_page(path: str) -> Page:
        page = open_context().new_page()
        page.goto(site_url + path)
        # Python starts when a lab comes near the viewport (or at once for a link with lab settings).
        page.locator("section.lab").first.scroll_into_view_if_needed()
        for status in page.locator("[data-lab-status]").all():
            expect(status).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
        return page

    return open_page
