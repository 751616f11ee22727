#!/usr/bin/env python3
"""Time the lab in Debian's Chromium against a bare Pyodide boot, and its updates at 1x and 4x CPU throttling.

Usage: python benchmarks/bench_lab.py [--runs 3] [--updates 30]

Builds the site with the real pipeline into a temporary folder, adds a bare
page beside it (bench-bare/: a module worker that imports the npm package's
unmodified pyodide.mjs, calls loadPyodide from the same pyodide/ folder and
runs one runPython), serves both on 127.0.0.1 under /rollouts/ and prints, in
alternating pairs (lab, then bare, in the same browser):

- cold (fresh browser context: empty HTTP and wasm code caches) and warm
  (the same page again in that context): navigation start -> lab live
  (status line "Computed in your browser ...") or bare page's runPython done;
  the lab is opened with settings in its address, which starts Python at
  once (a plain visit starts it when the lab nears the viewport);
- their ratios lab / bare (goal <= 0.8: below the bare boot, which only a
  smaller standard library or a snapshot can reach);
- bytes fetched before live, cold (response bodies, worker included);
- first paint of chapter 4, and whether the recorded numbers are there then;
- a control change -> new results in the DOM and -> the next frame, at 1x and
  4x CPU throttling (goals <= 16 ms and <= 50 ms; typed text waits 150 ms
  after the last keystroke by design, a slider or committed change does not).

Times are taken inside the page with performance.now() (navigation start is
0). A benchmark, not a test: nothing here asserts a time. Requests that would
leave 127.0.0.1 are counted and reported (there should be none).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT / "pysrc"))
sys.path.insert(0, str(PROJECT_ROOT / "tests"))

from playwright.sync_api import Browser, BrowserContext, Page, Request, Response, sync_playwright  # noqa: E402

from chromium_settings import chromium_launch_options  # noqa: E402
from rollout_lab import present_lab  # noqa: E402
from sitegen.serve.static_server import serve_preview  # noqa: E402

SITE_PREFIX = "/rollouts/"
SAMPLER_PAGE = "04-follow-draw-3.html"
# Settings in the address start Python at once, whatever the scroll position.
LAB_URL = SAMPLER_PAGE + "?T=1"
BARE_URL = "bench-bare/index.html"
SAMPLER = 'section.lab[data-lab="sampler"]'
LIVE_STATUS = "Computed in your browser by Python 3.14 (Pyodide)."
LIVE_TIMEOUT_MS = 180_000

# Installed before the page's own scripts: notes when the status line first
# says the lab is live (ms since navigation start).
WATCH_STATUS = """
new MutationObserver((changes, observer) => {
  const status = document.querySelector('[data-lab-status]');
  if (status && status.textContent === %s) {
    window.benchLiveAt = performance.now();
    observer.disconnect();
  }
}).observe(document, { subtree: true, childList: true, characterData: true });
""" % json.dumps(LIVE_STATUS)  # noqa: UP031 - in a format string every brace of the JavaScript would need doubling

# The bare page: the npm package's files as they are, booted the way the lab boots them (in a module worker).
BARE_PAGE = """<!doctype html><meta charset="utf-8"><title>bare Pyodide boot</title>
<script type="module" src="boot.js"></script>
"""
BARE_BOOT = """const worker = new Worker(new URL("worker.js", import.meta.url), { type: "module" });
worker.addEventListener("message", (event) => { window.benchLiveAt = performance.now(); window.benchAnswer = event.data; });
"""
BARE_WORKER = """const pyodideDir = new URL("../%s/", import.meta.url).href;
const { loadPyodide } = await import(pyodideDir + "pyodide.mjs");
// The npm package's whole standard library, beside this page: the site ships it in parts instead.
const stdLibURL = new URL("python_stdlib.zip", import.meta.url).href;
const pyodide = await loadPyodide({ indexURL: pyodideDir, stdLibURL });
self.postMessage(pyodide.runPython("import sys; sys.version.split()[0]"));
"""

# Changes one control the way a reader's input would (an "input" event from
# the slider, or a "change" event when a typed value is committed) and
# resolves to [ms until the results were replaced, ms until the next frame].
TIME_ONE_UPDATE = """async ({ name, value, event }) => {
  const section = document.querySelector('section.lab[data-lab="sampler"]');
  const results = section.querySelector('[data-lab-results]');
  const control = section.querySelector(`[name="${name}"]`);
  let started;
  const replaced = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      observer.disconnect();
      resolve(performance.now());
    });
    observer.observe(results, { childList: true });
  });
  control.value = value;
  started = performance.now();
  control.dispatchEvent(new Event(event, { bubbles: true }));
  const updated = await replaced;
  const drawn = await new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())));
  return [updated - started, drawn - started];
}"""


def build_site(out_dir: Path) -> None:
    """Build content/ with the real pipeline."""
    subprocess.run([sys.executable, "build.py", "build", "--out", str(out_dir)], cwd=PROJECT_ROOT, check=True)


def read_draws(page: Page) -> list[dict]:
    """Return the sampler's draws table as displayed (data-field → text)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('section.lab[data-lab="sampler"] table.lab-draws tbody tr')].map(
             (row) => Object.fromEntries([...row.querySelectorAll('[data-field]')].map((c) => [c.dataset.field, c.textContent])))"""
    )


def measure_first_paint(page: Page, url: str, expected_draws: list[dict]) -> tuple[float, bool]:
    """Load the page; return (first contentful paint in ms, whether the recorded numbers were there before any script ran)."""
    page.goto(url, wait_until="domcontentloaded")
    # Module scripts run before DOMContentLoaded, but the lab replaces results
    # only after Python is up, seconds later: what is read here is what was painted.
    correct = read_draws(page) == expected_draws
    paint = page.evaluate(
        """() => new Promise((resolve) => {
             const find = () => performance.getEntriesByName('first-contentful-paint')[0];
             if (find()) { resolve(find().startTime); return; }
             new PerformanceObserver((list, observer) => { observer.disconnect(); resolve(find().startTime); })
               .observe({ type: 'paint' });
           })"""
    )
    return paint, correct


def wait_until_live(page: Page) -> float:
    """Wait for the lab (or the bare page) to be live; return when it was (ms since navigation start)."""
    page.wait_for_function("() => window.benchLiveAt !== undefined", timeout=LIVE_TIMEOUT_MS)
    return page.evaluate("window.benchLiveAt")


def measure_updates(page: Page, count: int) -> dict[str, list[tuple[float, float]]]:
    """Move the slider and commit a group size `count` times each; return the (DOM, frame) times of each change."""
    timings: dict[str, list[tuple[float, float]]] = {"slider": [], "group size (committed)": []}
    for step in range(count):
        position = str(step % 20 - 10)  # log-slider positions around T = 1
        timings["slider"].append(
            tuple(page.evaluate(TIME_ONE_UPDATE, {"name": "temperature-slider", "value": position, "event": "input"}))
        )
    for step in range(count):
        group_size = str(4 + step % 12)
        timings["group size (committed)"].append(
            tuple(page.evaluate(TIME_ONE_UPDATE, {"name": "group_size", "value": group_size, "event": "change"}))
        )
    return timings


def describe(values: list[float], unit: str = "ms") -> str:
    """Return 'median X (best Y, worst Z)'."""
    return f"median {statistics.median(values):8.1f} {unit}   (best {min(values):.1f}, worst {max(values):.1f})"


def write_bare_page(site_dir: Path) -> None:
    folder = site_dir / "bench-bare"
    folder.mkdir()
    (folder / "index.html").write_text(BARE_PAGE, encoding="utf-8")
    (folder / "boot.js").write_text(BARE_BOOT, encoding="utf-8")
    pyodide = next(path for path in (site_dir / "pyodide").iterdir() if (path / "pyodide.mjs").is_file())
    (folder / "worker.js").write_text(BARE_WORKER % pyodide.relative_to(site_dir).as_posix(), encoding="utf-8")
    shutil.copyfile(PROJECT_ROOT / "node_modules" / "pyodide" / "python_stdlib.zip", folder / "python_stdlib.zip")


def open_measured_context(browser: Browser, off_host: list[str]) -> tuple[BrowserContext, list[int]]:
    """A fresh context that notes live times and counts response bytes (worker requests included; the server sends no compression)."""
    context = browser.new_context(service_workers="block")  # offline reading's downloads would count as the lab's
    context.add_init_script(WATCH_STATUS)
    fetched: list[int] = []

    def note(request: Request) -> None:
        if urlsplit(request.url).hostname not in ("127.0.0.1", None):
            off_host.append(request.url)

    def count(response: Response) -> None:
        # The body's declared length, taken as the response arrives (a HEAD request has none).
        if response.request.method != "HEAD":
            fetched.append(int(response.headers.get("content-length", "0")))

    context.on("request", note)
    context.on("response", count)
    return context, fetched


def time_cold_and_warm(browser: Browser, url: str, off_host: list[str]) -> tuple[float, float, int, Page, BrowserContext]:
    """Open `url` in a fresh context (cold), then again (warm); return both live times, the cold bytes, the page."""
    context, fetched = open_measured_context(browser, off_host)
    page = context.new_page()
    page.goto(url)
    cold = wait_until_live(page)
    cold_bytes = sum(fetched)
    page.goto(url)
    warm = wait_until_live(page)
    return cold, warm, cold_bytes, page, context


def main() -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--updates", type=int, default=30, help="changes per control and throttling rate in each run")
    arguments = parser.parse_args()

    with tempfile.TemporaryDirectory() as temporary:
        site_dir = Path(temporary) / "dist"
        build_site(site_dir)
        write_bare_page(site_dir)
        record = json.loads((site_dir / "lab" / "recorded-run.json").read_text(encoding="utf-8"))
        expected_draws = present_lab(record)["draws"]
        off_host: list[str] = []
        figures: dict[str, list[float]] = {}
        correct_at_paint: list[bool] = []
        updates: dict[str, list[tuple[float, float]]] = {}
        with serve_preview(site_dir, SITE_PREFIX) as site_url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(**chromium_launch_options())
            for run in range(arguments.runs):
                lab_cold, lab_warm, lab_bytes, page, context = time_cold_and_warm(browser, site_url + LAB_URL, off_host)
                session = context.new_cdp_session(page)
                for rate in (1, 4):
                    session.send("Emulation.setCPUThrottlingRate", {"rate": rate})
                    for control, timings in measure_updates(page, arguments.updates).items():
                        updates.setdefault(f"{control}, {rate}x CPU", []).extend(timings)
                session.send("Emulation.setCPUThrottlingRate", {"rate": 1})
                paint_page = context.new_page()
                paint, correct = measure_first_paint(paint_page, site_url + SAMPLER_PAGE, expected_draws)
                context.close()
                bare_cold, bare_warm, bare_bytes, _, bare_context = time_cold_and_warm(browser, site_url + BARE_URL, off_host)
                bare_context.close()
                for name, value in {
                    "lab cold": lab_cold,
                    "bare cold": bare_cold,
                    "lab warm": lab_warm,
                    "bare warm": bare_warm,
                    "ratio cold": lab_cold / bare_cold,
                    "ratio warm": lab_warm / bare_warm,
                    "lab bytes": lab_bytes,
                    "bare bytes": bare_bytes,
                    "first paint": paint,
                }.items():
                    figures.setdefault(name, []).append(value)
                correct_at_paint.append(correct)
                print(
                    f"run {run + 1}: lab cold {lab_cold:.0f} ms / bare cold {bare_cold:.0f} ms = {lab_cold / bare_cold:.2f}x; "
                    f"lab warm {lab_warm:.0f} ms / bare warm {bare_warm:.0f} ms = {lab_warm / bare_warm:.2f}x; "
                    f"bytes before live: lab {lab_bytes / 1e6:.2f} MB, bare {bare_bytes / 1e6:.2f} MB",
                    flush=True,
                )
            browser.close()

    print()
    print(f"Chapter 4 lab vs a bare Pyodide boot, Chromium, {arguments.runs} alternating pairs (goals in brackets)")
    print(f"  lab live, cold                {describe(figures['lab cold'])}")
    print(f"  bare boot, cold               {describe(figures['bare cold'])}")
    print(f"  ratio lab/bare, cold          {describe(figures['ratio cold'], 'x')}   [<= 0.8]")
    print(f"  lab live, warm                {describe(figures['lab warm'])}")
    print(f"  bare boot, warm               {describe(figures['bare warm'])}")
    print(f"  ratio lab/bare, warm          {describe(figures['ratio warm'], 'x')}   [<= 0.8]")
    print(f"  bytes before live, lab        {describe([b / 1e6 for b in figures['lab bytes']], 'MB')}   [<= 11.4 MB]")
    print(f"  bytes before live, bare       {describe([b / 1e6 for b in figures['bare bytes']], 'MB')}")
    print(f"  first contentful paint        {describe(figures['first paint'])}")
    print(f"  recorded numbers at paint     {sum(correct_at_paint)}/{len(correct_at_paint)} runs   [all]")
    for control, timings in updates.items():
        goal = "<= 16 ms" if control.endswith(" 1x CPU") else "<= 50 ms"
        print(f"  update, {control:<30} {describe([t[0] for t in timings])}   [{goal}] to the new table")
        print(f"  {'':<38} {describe([t[1] for t in timings])}   to the next frame")
    print(f"  requests off 127.0.0.1        {len(off_host)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
