"""Offline reading: after one visit and one start of Python, the whole site reads offline; a new build is offered, then served whole.

These contexts let service workers run (every other browser test blocks
them) and are not routed by the session's network guard: Playwright bypasses
a service worker for a routed context, and a worker's answers never reach the
guard anyway. Offline means the HTTP server itself is stopped. Console errors
and uncaught errors still fail the test.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, Route, expect

from browser_testing import (
    KEEP_TIMEOUT_MS,
    KEPT_ALL,
    LIVE_STATUS,
    LIVE_TIMEOUT_MS,
    PROJECT_ROOT,
    SAMPLER,
    SAMPLER_PAGE,
    SITE_PREFIX,
    LoggingServer,
    expect_results,
    expected_sampler,
    sampler_results,
)
from chromium_settings import chromium_launch_options
from sitegen.serve.static_server import SubPathServer

pytestmark = pytest.mark.browser

KEPT_PAGES = "The pages are kept for offline reading."


@contextmanager
def serving(folder: Path) -> Iterator[tuple[SubPathServer, str]]:
    server = SubPathServer(folder, SITE_PREFIX)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server, f"http://127.0.0.1:{server.server_address[1]}{SITE_PREFIX}"
    finally:
        stop(server)


def stop(server: SubPathServer) -> None:
    """Stop answering: from now on, every request that reaches the network fails, as offline."""
    if server.socket.fileno() != -1:
        server.shutdown()
        server.server_close()


@pytest.fixture
def watched_context(browser: Browser) -> Iterator[tuple[BrowserContext, list[str]]]:
    context = browser.new_context(service_workers="allow")
    problems: list[str] = []
    context.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    context.on("weberror", lambda error: problems.append(str(error.error)))
    try:
        yield context, problems
    finally:
        context.close()


def go_live(page: Page) -> None:
    page.locator(SAMPLER).scroll_into_view_if_needed()
    expect(page.locator(f"{SAMPLER} [data-lab-status]")).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)


def test_after_one_visit_and_one_start_of_python_everything_reads_offline(watched_context, built_site: Path):
    context, problems = watched_context
    recorded = json.loads((built_site / "lab/recorded-run.json").read_text(encoding="utf-8"))
    pages = sorted(p.name for p in built_site.glob("*.html") if p.name not in {"404.html", "offline.html"})
    with serving(built_site) as (server, url):
        page = context.new_page()
        page.goto(url + "index.html")
        status = page.locator("[data-offline-status]")
        expect(status).to_contain_text(KEPT_PAGES, timeout=KEEP_TIMEOUT_MS)
        expect(page.get_by_role("button", name="Keep for offline reading")).to_be_visible()
        page.goto(url + SAMPLER_PAGE)
        go_live(page)
        expect(page.locator("[data-offline-status]")).to_contain_text(KEPT_ALL, timeout=KEEP_TIMEOUT_MS)
        stop(server)

        for name in pages:
            page.goto(url + name)
            expect(page.locator("main h1")).to_be_visible()
            assert "offline" not in page.title().lower(), name
        # Search: its index and engine come from the cache.
        page.goto(url + "index.html")
        page.get_by_role("combobox", name="Search the tutorial").fill("temperature")
        expect(page.locator("#site-search-results li").first).to_be_visible(timeout=LIVE_TIMEOUT_MS)
        # The lab: recorded numbers at first paint, then Python from the cache, then a changed setting.
        page.goto(url + SAMPLER_PAGE)
        expect_results(page, SAMPLER, sampler_results(recorded))
        go_live(page)
        page.locator(SAMPLER).get_by_label("Seed", exact=True).fill("31")
        expect_results(page, SAMPLER, expected_sampler("1", "6", "31"))
        # A cell: its worker restored from the cached snapshot; its first run imports the core afresh, whose
        # standard-library files come from a part fetched while Python imports (a worker's synchronous
        # request, answered by the cache too), as does a module no page imported before.
        page.goto(url + "06-learning.html")
        cell = page.locator("[data-cell]").first
        recorded_output = cell.locator("[data-cell-output]").inner_html()
        cell.get_by_role("button", name="Run").click()
        expect(cell.locator("[data-cell-status]")).to_have_text(re.compile(r"^Ran in your browser"), timeout=LIVE_TIMEOUT_MS)
        assert cell.locator("[data-cell-output]").inner_html() == recorded_output
        cell.get_by_role("button", name="Edit").click()
        expect(cell.get_by_role("textbox", name="Python code")).to_be_focused(timeout=LIVE_TIMEOUT_MS)
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.insert_text("import xml.dom.minidom\nprint(xml.dom.minidom.parseString('<a/>').documentElement.tagName)\n")
        cell.get_by_role("button", name="Run").click()
        expect(cell.locator("[data-cell-output]")).to_have_text(re.compile(r"^a\s*$"), timeout=LIVE_TIMEOUT_MS)
        # A page the build never had: the offline page, with links to what is kept.
        page.goto(url + "no-such-page.html")
        expect(page.locator("h1")).to_have_text("You are offline, and this page was not kept")
        expect(page.get_by_role("link", name="Glossary").last).to_be_visible()
    assert problems == []


def build(content: Path, out: Path) -> None:
    result = subprocess.run(
        [sys.executable, "build.py", "build", "--content", str(content), "--out", str(out)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_a_new_build_is_offered_and_then_served_whole(watched_context, tmp_path: Path):
    context, problems = watched_context
    content, site = tmp_path / "content", tmp_path / "site"
    shutil.copytree(PROJECT_ROOT / "content", content)
    build(content, site)
    first_version = json.loads((site / "offline.json").read_text(encoding="utf-8"))["version"]
    with serving(site) as (_server, url):
        page = context.new_page()
        page.goto(url + "01-rollout.html")
        expect(page.locator("[data-offline-status]")).to_contain_text(KEPT_PAGES, timeout=KEEP_TIMEOUT_MS)

        chapter = content / "01-rollout.md"
        chapter.write_text(
            chapter.read_text(encoding="utf-8").replace("\n## ", "\nA sentence of the new build.\n\n## ", 1), encoding="utf-8"
        )
        build(content, site)
        new_version = json.loads((site / "offline.json").read_text(encoding="utf-8"))["version"]
        assert new_version != first_version

        # The old build still serves the page (whole), while the new one installs beside it.
        page.goto(url + "01-rollout.html")
        expect(page.locator("main")).not_to_contain_text("A sentence of the new build.")
        banner = page.locator("[data-update-banner]")
        expect(banner).to_have_text("A new version is available. Reload", timeout=KEEP_TIMEOUT_MS)
        banner.get_by_role("button", name="Reload").click()
        expect(page.locator("main")).to_contain_text("A sentence of the new build.", timeout=KEEP_TIMEOUT_MS)
        expect(banner).to_be_empty()
        # The old build's cache is gone; the page and its assets are the new build's.
        names = page.evaluate("caches.keys()")
        assert sorted(names) == [f"rollouts:{SITE_PREFIX}:{new_version}", f"rollouts:{SITE_PREFIX}:wishes"]
        stylesheet = page.evaluate("document.querySelector('link[rel=stylesheet][href*=\"site.\"]').getAttribute('href')")
        assert (site / stylesheet).is_file()
    assert problems == []


def save_data(page: Page) -> None:
    """Turn the page's Save-Data preference on (navigator.connection.saveData), as a reader's browser setting does."""
    page.context.new_cdp_session(page).send("Emulation.setDataSaverOverride", {"dataSaverEnabled": True})


def registrations(page: Page) -> int:
    return page.evaluate("navigator.serviceWorker.getRegistrations().then((all) => all.length)")


def test_with_save_data_nothing_is_downloaded_ahead_until_the_reader_asks(watched_context, built_site: Path):
    context, problems = watched_context
    sizes = json.loads((built_site / "offline.json").read_text(encoding="utf-8"))
    with serving(built_site) as (server, url):
        page = context.new_page()
        save_data(page)
        page.goto(url + SAMPLER_PAGE)
        status = page.locator("[data-offline-status]")
        expect(status).to_have_text("Save-Data is on, so nothing is downloaded ahead of time.")
        keep = page.get_by_role(
            "button", name=f"Keep for offline reading ({(sizes['shellBytes'] + sizes['runtimeBytes']) / 1e6:.1f} MB)"
        )
        expect(keep).to_be_visible()
        run_live(page)  # starting Python keeps nothing either
        page.wait_for_timeout(1000)
        assert registrations(page) == 0

        keep.click()
        expect(status).to_contain_text(KEPT_ALL, timeout=KEEP_TIMEOUT_MS)
        assert registrations(page) == 1
        stop(server)
        page.goto(url + SAMPLER_PAGE)
        run_live(page)
    assert problems == []


def run_live(page: Page) -> None:
    """With Save-Data, the lab starts Python only when the reader asks."""
    page.locator(SAMPLER).get_by_role("button", name=re.compile(r"^Run it live in your browser")).click()
    go_live(page)


def test_a_first_visit_that_starts_python_downloads_each_runtime_file_once(playwright: Playwright, built_site: Path, tmp_path):
    """The page is not controlled until the worker installs; keeping the runtime then reads the browser's HTTP cache.

    A profile with a disk cache, as a reader's browser has (the session's
    contexts are off the record), and the logging server of test_runtime_start.
    """
    server = LoggingServer(built_site, SITE_PREFIX)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}{SITE_PREFIX}"
    context = playwright.chromium.launch_persistent_context(tmp_path / "profile", **chromium_launch_options(for_tests=True))
    problems: list[str] = []
    context.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    try:
        page = context.new_page()
        page.goto(url + SAMPLER_PAGE)
        go_live(page)
        expect(page.locator("[data-offline-status]")).to_contain_text(KEPT_ALL, timeout=KEEP_TIMEOUT_MS)
        first_visit = len(server.sent)
        # A second visit: the gzip copy is kept, and the page reads it from the keep (the page's own list of what it
        # fetched tells).
        page.reload()
        go_live(page)
        fetched = page.evaluate("() => performance.getEntriesByType('resource').map((entry) => entry.name)")
    finally:
        context.close()
        stop(server)
    assert problems == []
    sent = Counter(path for path, status in server.sent[:first_visit] if status == 200)
    assert sent[f"/{SAMPLER_PAGE}"] >= 1  # the server logs paths below its prefix
    # The keep keeps the gzip copy the page compiled; the plain WebAssembly (the fallback) is neither needed nor kept.
    assert any(re.search(r"/pyodide\.asm\.wasm\.gz\.[0-9a-f]{8}\.bin$", path) for path in sent)
    assert not any(path.endswith("/pyodide.asm.wasm") for path in sent)
    assert {path: count for path, count in sent.items() if count > 1 and ("/pyodide/" in path or "/lab/" in path)} == {}
    assert [path for path, _status in server.sent[first_visit:] if "/pyodide/" in path or "/lab/" in path] == []
    assert [re.sub(r".*/", "", name) for name in fetched if "pyodide.asm.wasm" in name] == [
        next(re.sub(r".*/", "", path) for path in sent if re.search(r"/pyodide\.asm\.wasm\.gz\.[0-9a-f]{8}\.bin$", path))
    ]


def test_the_offline_keep_waits_for_the_first_start(watched_context, built_site: Path):
    """Nothing of the offline keep is downloaded while Python starts: on a phone's link it would delay the lab.

    The snapshot is held, so the lab cannot go live; meanwhile the page loads,
    goes idle, and no service worker is registered and no page of the site
    but this one is fetched. Released, the lab goes live and the keep follows.
    """
    context, problems = watched_context
    held: list[Route] = []
    releasing = threading.Event()

    def hold(route: Route) -> None:
        if releasing.is_set():
            route.continue_()
        else:
            held.append(route)

    with serving(built_site) as (_server, url):
        requested: list[str] = []
        context.on("request", lambda request: requested.append(request.url.removeprefix(url)))
        context.route(re.compile(r"/lab/python-snapshot\.[0-9a-f]{8}\.bin$"), hold)
        page = context.new_page()
        # Settings in the address start Python at once, before the page has loaded.
        page.goto(url + SAMPLER_PAGE + "?T=1")
        deadline = time.monotonic() + LIVE_TIMEOUT_MS / 1000
        while not held and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        assert held  # the lab's start is under way, and cannot finish
        page.wait_for_timeout(3000)  # idle well past the keep's wait for an idle page (2 s at most)

        assert registrations(page) == 0
        assert "sw.js" not in requested
        assert [name for name in requested if name.endswith(".html") and not name.startswith(SAMPLER_PAGE)] == []

        releasing.set()
        for route in held:
            route.continue_()
        expect(page.locator(f"{SAMPLER} [data-lab-status]")).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
        expect(page.locator("[data-offline-status]")).to_contain_text(KEPT_ALL, timeout=KEEP_TIMEOUT_MS)
        assert registrations(page) == 1
    assert problems == []


OFFLINE_RUN = re.compile(r"^You are offline, and Python was not kept for offline reading")


def test_offline_without_python_kept_run_keeps_the_output_and_says_so(watched_context, built_site: Path):
    # The reader review: Run erased the recorded output and said "Python could not start: Failed to fetch" in
    # small grey type. The output stays, the reason is said plainly, and the button that keeps Python is there.
    context, _problems = watched_context  # a failed fetch is the subject here: the console may say so
    with serving(built_site) as (server, url):
        page = context.new_page()
        page.goto(url + "06-learning.html")
        expect(page.locator("[data-offline-status]")).to_contain_text(KEPT_PAGES, timeout=KEEP_TIMEOUT_MS)
        stop(server)

        page.reload()
        cell = page.locator("[data-cell]").first
        recorded_output = cell.locator("[data-cell-output]").inner_html()
        assert recorded_output
        cell.get_by_role("button", name="Run").click()
        status = cell.locator("[data-cell-status]")
        expect(status).to_have_text(OFFLINE_RUN, timeout=LIVE_TIMEOUT_MS)
        assert cell.locator("[data-cell-output]").inner_html() == recorded_output
        keep = status.get_by_role("button", name="Keep Python for offline reading")
        expect(keep).to_be_visible()
        assert float(status.evaluate("(node) => parseFloat(getComputedStyle(node).fontSize)")) >= 15


def test_two_tutorials_under_one_origin_keep_each_others_offline_copy(watched_context, built_site: Path, tmp_path: Path):
    """Issue 42: two builds under two sub-paths of one origin (two tutorials under one USER.github.io). Each worker
    keeps its caches under its own registration's path and deletes only its own: both read offline afterwards."""
    context, problems = watched_context
    content, origin = tmp_path / "content", tmp_path / "origin"
    shutil.copytree(PROJECT_ROOT / "content", content)
    chapter = content / "01-rollout.md"
    chapter.write_text(
        chapter.read_text(encoding="utf-8").replace("\n## ", "\nA sentence of the second tutorial.\n\n## ", 1), encoding="utf-8"
    )
    shutil.copytree(built_site, origin / "first")
    build(content, origin / "second")
    versions = {
        site: json.loads((origin / site / "offline.json").read_text(encoding="utf-8"))["version"] for site in ("first", "second")
    }
    assert versions["first"] != versions["second"]
    server = SubPathServer(origin, "/")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        page = context.new_page()
        for site in ("first", "second"):
            page.goto(f"{url}{site}/index.html")
            expect(page.locator("[data-offline-status]")).to_contain_text(KEPT_PAGES, timeout=KEEP_TIMEOUT_MS)
        names = page.evaluate("caches.keys()")
        stop(server)

        for site, shown in (("first", False), ("second", True)):
            page.goto(f"{url}{site}/01-rollout.html")
            expect(page.locator("main h1")).to_be_visible()
            assert "offline" not in page.title().lower(), site
            assert ("A sentence of the second tutorial." in page.locator("main").inner_text()) is shown, site
    finally:
        stop(server)
    assert sorted(names) == sorted(
        [f"rollouts:/{site}/:{versions[site]}" for site in versions] + [f"rollouts:/{site}/:wishes" for site in versions]
    )
    assert problems == []


def test_a_file_gone_from_the_host_mid_read_offers_the_new_version(watched_context, built_site: Path, tmp_path: Path):
    """A deploy while the reader reads: the host no longer has a file of the page's build (here the snapshot, which
    the lab falls back from), and the page says a new version is available instead of failing quietly."""
    context, _problems = watched_context
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    with serving(site) as (_server, url):
        page = context.new_page()
        page.goto(url + SAMPLER_PAGE)
        expect(page.locator("[data-offline-status]")).to_contain_text(KEPT_PAGES, timeout=KEEP_TIMEOUT_MS)
        for snapshot in (site / "lab").glob("python-snapshot.*.bin"):
            snapshot.unlink()
        go_live(page)
        expect(page.locator("[data-update-banner]")).to_have_text("A new version is available. Reload", timeout=KEEP_TIMEOUT_MS)


def test_a_full_storage_is_said_to_the_reader(watched_context, built_site: Path):
    """The browser's quota for the origin below the build's size (Chromium's own override): the install fails, and
    the footer says why rather than nothing."""
    context, _problems = watched_context
    with serving(built_site) as (_server, url):
        page = context.new_page()
        session = context.new_cdp_session(page)
        origin = url.split(SITE_PREFIX)[0]
        session.send("Storage.overrideQuotaForOrigin", {"origin": origin, "quotaSize": 100_000})
        page.goto(url + "index.html")
        expect(page.locator("[data-offline-status]")).to_have_text(
            "The pages could not be kept for offline reading (the browser's storage for this site is full).",
            timeout=KEEP_TIMEOUT_MS,
        )


def search_script(site: Path) -> Path:
    """The search's script: a shell file named by its content (assets/search.HASH.js)."""
    return next((site / "assets").glob("search.*.js"))


def test_a_content_named_file_cut_short_on_its_way_is_refused(watched_context, built_site: Path, tmp_path: Path):
    """Issue 60: a file cut short as the worker downloaded it was kept, and served for good."""
    context, _problems = watched_context
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    script = search_script(site)
    script.write_bytes(script.read_bytes()[:100])
    name = script.relative_to(site).as_posix()
    with serving(site) as (_server, url):
        page = context.new_page()
        page.goto(url + "index.html")
        expect(page.locator("[data-offline-status]")).to_have_text(
            f"The pages could not be kept for offline reading ({name} is not this build's (its bytes do not hash to "
            f"{name.split('.')[-2]})).",
            timeout=KEEP_TIMEOUT_MS,
        )


def test_a_poisoned_copy_in_the_previous_builds_cache_is_not_kept_by_the_next(watched_context, built_site: Path, tmp_path: Path):
    """Issue 60: a page's script wrote a content-named file into the site's offline cache, and every later build copied
    it from there unchecked, so every page ran it. The next build keeps only bytes that hash to the file's name."""
    context, problems = watched_context
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    script = search_script(site)
    name = script.relative_to(site).as_posix()
    with serving(site) as (_server, url):
        page = context.new_page()
        page.goto(url + "index.html")
        expect(page.locator("[data-offline-status]")).to_contain_text(KEPT_PAGES, timeout=KEEP_TIMEOUT_MS)
        version = json.loads((site / "offline.json").read_text(encoding="utf-8"))["version"]
        old_cache = f"rollouts:{SITE_PREFIX}:{version}"
        page.evaluate(
            "([cache, url]) => caches.open(cache).then((c) => c.put(url, new Response('globalThis.poisoned = 1')))",
            [old_cache, url + name],
        )
        # The next build: the same files under a new version (the worker's own script changes, so it installs anew).
        worker = site / "sw.js"
        text = worker.read_text(encoding="utf-8")
        worker.write_text(text.replace(f'"version": "{version}"', '"version": "next"', 1), encoding="utf-8")
        page.goto(url + "index.html")
        expect(page.locator("[data-update-banner]")).to_have_text("A new version is available. Reload", timeout=KEEP_TIMEOUT_MS)
        kept = page.evaluate(
            "([cache, url]) => caches.open(cache).then((c) => c.match(url)).then((r) => r.text())",
            [f"rollouts:{SITE_PREFIX}:next", url + name],
        )
        assert kept == script.read_text(encoding="utf-8")
    assert problems == []


TRAINING = 'section.lab[data-lab="training"]'
OFFLINE_LAB = (
    "You are offline, and Python was not kept for offline reading, so the lab cannot compute now; "
    "the numbers shown are the ones recorded at build time. It starts once you are back online."
)
OFFLINE_CELL = (
    "You are offline, and Python was not kept for offline reading, so this cell cannot run now; the output shown stays. "
    "Keep Python once you are online, and cells run offline too."
)


def test_with_the_network_off_lab_and_cell_say_so_alike_and_offer_nothing_that_needs_it(watched_context, built_site: Path):
    """Issue 56: the lab said "Failed to fetch" and offered a Retry that could not work; both offered to Keep Python."""
    context, _problems = watched_context  # failed fetches are the subject here: the console may say so
    with serving(built_site) as (_server, url):
        page = context.new_page()
        page.goto(url + "06-learning.html")
        expect(page.locator("[data-offline-status]")).to_contain_text(KEPT_PAGES, timeout=KEEP_TIMEOUT_MS)
        keep = page.locator("[data-offline-keep]")
        expect(keep).to_be_visible()
        context.set_offline(True)
        expect(keep).to_be_hidden()
        expect(page.locator("[data-offline-status]")).to_contain_text(
            "You are offline: Python can be kept once you are back online."
        )

        page.reload()
        lab_status = page.locator(f"{TRAINING} [data-lab-status]")
        page.locator(TRAINING).scroll_into_view_if_needed()
        expect(lab_status).to_have_text(OFFLINE_LAB, timeout=LIVE_TIMEOUT_MS)
        expect(page.locator(TRAINING).get_by_role("button", name="Retry")).to_have_count(0)
        cell = page.locator("[data-cell]").first
        cell.get_by_role("button", name="Run").click()
        expect(cell.locator("[data-cell-status]")).to_have_text(OFFLINE_CELL, timeout=LIVE_TIMEOUT_MS)
        expect(cell.get_by_role("button", name="Keep Python for offline reading")).to_have_count(0)
        expect(page.locator("[data-offline-keep]")).to_be_hidden()
        assert "Failed to fetch" not in page.locator("body").inner_text()

        # Back online, the lab starts by itself and the footer offers the keep again.
        context.set_offline(False)
        expect(lab_status).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
