"""Fixtures for the browser tests: the real site, served locally, in Debian's Chromium.

The site is built once per session by the real pipeline (`build.py build`),
served by http.server on 127.0.0.1 under a sub-path (/rollouts/) to prove the
site works wherever it is hosted, and opened in /usr/bin/chromium (`playwright
install` cannot download browsers here). Every context the tests open goes
through `open_context`, whose guard aborts any request that would leave
127.0.0.1 and records it, together with console errors and uncaught page
errors; a test that caused any of them fails.
"""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Route, WebError, expect

from browser_testing import LIVE_STATUS, LIVE_TIMEOUT_MS, PROJECT_ROOT, SITE_PREFIX

CHROMIUM = "/usr/bin/chromium"

# Explicit types: Python's mimetypes table depends on the machine, and
# Pyodide needs application/wasm to compile while streaming.
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
}


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


class SiteRequestHandler(http.server.SimpleHTTPRequestHandler):
    """Serve the built site under SITE_PREFIX only, with explicit content types."""

    extensions_map = CONTENT_TYPES

    def send_head(self):
        """Serve paths under the prefix from the site folder; everything else is 404."""
        if not self.path.startswith(SITE_PREFIX):
            self.send_error(404, "outside the site's sub-path")
            return None
        self.path = "/" + self.path[len(SITE_PREFIX) :]
        return super().send_head()

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        """Stay quiet: pytest output is for failures."""


class QuietServer(http.server.ThreadingHTTPServer):
    """A threading server that does not print tracebacks when the browser drops a connection."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        """Ignore connections the browser closed mid-transfer (page closed, worker terminated)."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture(scope="session")
def site_url(built_site: Path) -> Iterator[str]:
    """Serve the built site on 127.0.0.1 (a free port) under /rollouts/ and return its URL."""
    handler = functools.partial(SiteRequestHandler, directory=str(built_site))
    server = QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}{SITE_PREFIX}"
    server.shutdown()
    server.server_close()


# ---------------------------------------------------------------- the browser


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """Launch Debian's Chromium with nothing that phones home (we run as root, hence no sandbox)."""
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@dataclass
class BrowserGuard:
    """What went wrong in the browser: requests that tried to leave 127.0.0.1, console errors, page errors."""

    problems: list[str] = field(default_factory=list)

    def watch(self, context: BrowserContext) -> None:
        """Abort and record off-host requests; record console errors and uncaught errors of every page."""
        context.route("**/*", self.allow_only_local)
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
        if message.type == "error":
            self.problems.append(f"console error: {message.text} ({message.location.get('url', '')})")

    def record_web_error(self, error: WebError) -> None:
        """Record uncaught exceptions and unhandled rejections."""
        self.problems.append(f"uncaught error: {error.error}")


# One guard per session: every test checks the problems added while it ran,
# including during the set-up of module-scoped pages it uses.
GUARD = BrowserGuard()
_problems_before = pytest.StashKey[int]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    """Remember how many browser problems there were before this test."""
    item.stash[_problems_before] = len(GUARD.problems)
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Fail the test if the browser recorded a problem while it was set up or ran."""
    result = yield
    new_problems = GUARD.problems[item.stash.get(_problems_before, len(GUARD.problems)) :]
    if new_problems:
        raise AssertionError("the browser reported:\n" + "\n".join(new_problems))
    return result



@pytest.fixture(scope="session")
def open_context(browser: Browser):
    """Return a function that opens a guarded browser context (closed at the end of the session)."""
    contexts: list[BrowserContext] = []

    def open_guarded(**options) -> BrowserContext:
        context = browser.new_context(**options)
        GUARD.watch(context)
        contexts.append(context)
        return context

    yield open_guarded
    for context in contexts:
        context.close()


@pytest.fixture(scope="session")
def open_live_page(open_context, site_url: str):
    """Return a function that opens a page of the site in a fresh context and waits until its lab is live."""

    def open_page(path: str) -> Page:
        page = open_context().new_page()
        page.goto(site_url + path)
        for status in page.locator("[data-lab-status]").all():
            expect(status).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
        return page

    return open_page
