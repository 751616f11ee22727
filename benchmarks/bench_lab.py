#!/usr/bin/env python3
"""Time the lab in Debian's Chromium: first paint, going live cold and warm, and one update.

Usage: python benchmarks/bench_lab.py [--runs 5] [--updates 30]

Builds the site with the real pipeline into a temporary folder, serves it on
127.0.0.1 under /rollouts/ (explicit MIME types, as a static host would) and
prints the median (and best) over the runs of:

- first paint of chapter 4, and whether the sampler already shows the
  recorded run's exact numbers then (they are in the HTML, so no wait);
- cold start: a fresh browser context (empty HTTP and wasm code caches),
  navigation start → status line "Computed in your browser …";
- warm start: the same page loaded again in that context;
- update: a slider change or a committed text change → the new results
  table in the DOM, and → the next animation frame (drawn).

Targets: correct numbers at first paint; cold live under 3 s; update under 16 ms.
Times are taken inside the page with performance.now() (navigation start is
0), so the Python ↔ browser round trips of the driver do not count. This is a
benchmark, not a test: nothing here asserts a time. Requests that would leave
127.0.0.1 are counted and reported (there should be none); request
interception is not used because it would switch off the HTTP cache that the
warm figure measures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT / "pysrc"))
sys.path.insert(0, str(PROJECT_ROOT / "tests"))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from chromium_settings import chromium_launch_options  # noqa: E402
from rollout_lab import present_lab  # noqa: E402
from sitegen.static_server import serve_preview  # noqa: E402

SITE_PREFIX = "/rollouts/"
SAMPLER_PAGE = "04-follow-draw-3.html"
SAMPLER = 'section.lab[data-lab="sampler"]'
LIVE_STATUS = "Computed in your browser by Python 3.14 (Pyodide)."
LIVE_TIMEOUT_MS = 120_000

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
    """Wait for the status line to say the lab is live; return when it did (ms since navigation start)."""
    page.wait_for_function("() => window.benchLiveAt !== undefined", timeout=LIVE_TIMEOUT_MS)
    return page.evaluate("window.benchLiveAt")


def measure_updates(page: Page, count: int) -> dict[str, list[tuple[float, float]]]:
    """Change the slider and the group size `count` times each; return the (DOM, frame) times of each change."""
    timings = {"slider": [], "group size (committed)": []}
    for step in range(count):
        temperature = f"{1 + 0.05 * (step % 20 + 1):.2f}"
        timings["slider"].append(
            tuple(page.evaluate(TIME_ONE_UPDATE, {"name": "temperature-slider", "value": temperature, "event": "input"}))
        )
    for step in range(count):
        group_size = str(4 + step % 12)
        timings["group size (committed)"].append(
            tuple(page.evaluate(TIME_ONE_UPDATE, {"name": "group_size", "value": group_size, "event": "change"}))
        )
    return timings


def describe(values: list[float], unit: str = "ms") -> str:
    """Return 'median X (best Y)'."""
    return f"median {statistics.median(values):8.1f} {unit}   (best {min(values):.1f}, worst {max(values):.1f})"


def main() -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--updates", type=int, default=30, help="changes per control in each run")
    arguments = parser.parse_args()

    with tempfile.TemporaryDirectory() as temporary:
        site_dir = Path(temporary) / "dist"
        build_site(site_dir)
        record = json.loads((site_dir / "lab" / "recorded-run.json").read_text(encoding="utf-8"))
        expected_draws = present_lab(record)["draws"]
        off_host: list[str] = []
        paints, correct_at_paint, cold, warm = [], [], [], []
        updates: dict[str, list[tuple[float, float]]] = {}
        with serve_preview(site_dir, SITE_PREFIX) as site_url, sync_playwright() as playwright:
            url = site_url + SAMPLER_PAGE
            browser = playwright.chromium.launch(**chromium_launch_options())
            for run in range(arguments.runs):
                context = browser.new_context()
                context.add_init_script(WATCH_STATUS)
                context.on(
                    "request",
                    lambda request: (
                        off_host.append(request.url) if urlsplit(request.url).hostname not in ("127.0.0.1", None) else None
                    ),
                )
                page = context.new_page()
                paint, correct = measure_first_paint(page, url, expected_draws)
                paints.append(paint)
                correct_at_paint.append(correct)
                cold.append(wait_until_live(page))
                page.goto(url)
                warm.append(wait_until_live(page))
                for control, timings in measure_updates(page, arguments.updates).items():
                    updates.setdefault(control, []).extend(timings)
                context.close()
                print(f"run {run + 1}: first paint {paint:.0f} ms, cold live {cold[-1]:.0f} ms, warm live {warm[-1]:.0f} ms")
            browser.close()

    print()
    print(f"Chapter 4 lab, Chromium, median of {arguments.runs} runs (targets in brackets)")
    print(f"  first contentful paint        {describe(paints)}")
    print(f"  recorded numbers at paint     {sum(correct_at_paint)}/{len(correct_at_paint)} runs   [all]")
    print(f"  cold: until live              {describe(cold)}   [< 3000 ms]")
    print(f"  warm: until live              {describe(warm)}")
    for control, timings in updates.items():
        print(f"  update, {control:<21} {describe([t[0] for t in timings])}   [< 16 ms] to the new table")
        print(f"  {'':<29} {describe([t[1] for t in timings])}   to the next frame")
    print(f"  requests off 127.0.0.1        {len(off_host)}")
    print("  (typed text waits 150 ms after the last keystroke by design; a committed change does not)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
