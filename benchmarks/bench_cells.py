#!/usr/bin/env python3
"""Time and weigh the Python cells: build cost, run latency in Chromium, editor and page bytes.

Usage: python benchmarks/bench_cells.py [--runs 3] [--trivial-runs 20]

Prints, as medians (and best) over the runs:

- the build's extra time for the tutorial's cells: a full build of content/
  against the same content with the cells taken out, with .cache/cells
  emptied first (cold: node and Pyodide start, every cell runs) and with it
  filled (cached: node is not started);
- in Chromium, against the built site served on 127.0.0.1: cold time from
  clicking Run on chapter 3's cell to its output (a fresh context: the cells'
  worker starts Pyodide), and click → output for a trivial cell (`1 + 1`)
  once the runtime is live (goal < 50 ms);
- the editor bundle's bytes, raw and gzipped (goal < 150 KB gzipped);
- the weight of each cell page before any edit (HTML, stylesheets and the
  scripts it loads, gzipped) against the same page without its cells, less
  the highlighted code (goal: within 5 KB).

A benchmark, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT / "pysrc"))
sys.path.insert(0, str(PROJECT_ROOT / "tests"))
sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from chromium_settings import chromium_launch_options  # noqa: E402
from sitegen.serve.static_server import serve_folder  # noqa: E402
from timing import load_average, time_command  # noqa: E402

CELL_FENCE = re.compile(r"```\{python\}\n.*?\n```\n", re.S)
SITE_PREFIX = "/rollouts/"
COLD_PAGE = "03-scoring.html"
TIMEOUT_MS = 300_000

# Clicks a cell's Run and resolves to ms until its output has the text the run writes last (its status line).
TIME_RUN = """async (index) => {
  const cell = document.querySelectorAll('[data-cell]')[index];
  const status = cell.querySelector('[data-cell-status]');
  const done = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (/^(Ran in your browser|Raised an error)/.test(status.textContent)) {
        observer.disconnect();
        resolve(performance.now());
      }
    });
    observer.observe(status, { childList: true, characterData: true, subtree: true });
  });
  const started = performance.now();
  cell.querySelector('[data-cell-run]').click();
  return (await done) - started;
}"""


def copy_content(destination: Path, with_cells: bool) -> Path:
    shutil.copytree(PROJECT_ROOT / "content", destination)
    if not with_cells:
        for chapter in destination.glob("*.md"):
            chapter.write_text(CELL_FENCE.sub("", chapter.read_text(encoding="utf-8")), encoding="utf-8")
    return destination


def time_builds(work: Path, runs: int) -> None:
    with_cells = copy_content(work / "with", True)
    without_cells = copy_content(work / "without", False)
    cells_cache = PROJECT_ROOT / ".cache" / "cells"
    times: dict[str, list[tuple[float, float]]] = {"without cells": [], "cells, cold": [], "cells, cached": []}
    for run in range(runs):
        for label, content in (("without cells", without_cells), ("cells, cold", with_cells), ("cells, cached", with_cells)):
            if label == "cells, cold":
                shutil.rmtree(cells_cache, ignore_errors=True)
            out = work / f"out-{label.replace(' ', '').replace(',', '-')}-{run}"
            times[label].append(
                time_command([sys.executable, "build.py", "build", "--content", str(content), "--out", str(out)], PROJECT_ROOT)
            )
    base_wall = statistics.median(t[0] for t in times["without cells"])
    base_cpu = statistics.median(t[1] for t in times["without cells"])
    print(f"full build of content/ ({runs} runs each, medians; load average {load_average()}):")
    for label, measured in times.items():
        wall = statistics.median(t[0] for t in measured)
        cpu = statistics.median(t[1] for t in measured)
        extra = "" if label == "without cells" else f"   extra: {wall - base_wall:+.2f} s wall, {cpu - base_cpu:+.2f} s CPU"
        print(f"  {label:14} {wall:6.2f} s wall  {cpu:6.2f} s CPU (best {min(t[0] for t in measured):.2f} s){extra}")


def page_weight(site: Path, page: str) -> tuple[int, int]:
    """Return (raw, gzipped) bytes of a page, the stylesheets it links and the scripts it loads before any edit."""
    html = (site / page).read_text(encoding="utf-8")
    files = [site / page] + [site / url for url in re.findall(r'<(?:link rel="stylesheet" href|script[^>]*src)="([^"]+)"', html)]
    raw = sum(path.stat().st_size for path in files)
    packed = sum(len(gzip.compress(path.read_bytes(), 9)) for path in files)
    return raw, packed


def highlighted_code_bytes(site: Path, page: str) -> tuple[int, int]:
    blocks = re.findall(
        r'<div class="cell".*?</div>\n</div>\n|<div class="cell-code".*?</div>', (site / page).read_text(encoding="utf-8"), re.S
    )
    code = "".join(re.findall(r'<div class="cell-code".*?</div>', "".join(blocks), re.S))
    return len(code.encode()), len(gzip.compress(code.encode(), 9))


def weigh(work: Path) -> Path:
    sites = {}
    for label in ("with", "without"):
        out = work / f"weigh-{label}"
        time_command([sys.executable, "build.py", "build", "--content", str(work / label), "--out", str(out)], PROJECT_ROOT)
        sites[label] = out
    editor = next((sites["with"] / "assets").glob("cell-editor.*.js"))
    data = editor.read_bytes()
    print(
        f"editor bundle ({editor.name}): {len(data) / 1024:.1f} KB raw, {len(gzip.compress(data, 9)) / 1024:.1f} KB gzipped (goal < 150 KB)"
    )
    print("cell pages before any edit (HTML + stylesheets + scripts loaded at start, gzipped; goal: extra within 5 KB):")
    for page in sorted(p.name for p in sites["with"].glob("*.html") if 'data-cell="' in p.read_text(encoding="utf-8")):
        raw_with, gz_with = page_weight(sites["with"], page)
        raw_without, gz_without = page_weight(sites["without"], page)
        raw_code, gz_code = highlighted_code_bytes(sites["with"], page)
        print(
            f"  {page:24} {gz_with / 1024:6.1f} KB vs {gz_without / 1024:6.1f} KB without cells; "
            f"highlighted code {gz_code / 1024:.1f} KB; extra beyond it {(gz_with - gz_without - gz_code) / 1024:+.1f} KB "
            f"(raw: {(raw_with - raw_without - raw_code) / 1024:+.1f} KB)"
        )
    return sites["with"]


def time_browser(site: Path, trivial_runs: int) -> None:
    with serve_folder(site, SITE_PREFIX) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**chromium_launch_options())
        off_host: list[str] = []
        context = browser.new_context(service_workers="block")  # offline reading's downloads would count as the lab's
        context.on("request", lambda request: off_host.append(request.url) if "127.0.0.1" not in request.url else None)
        page = context.new_page()
        page.goto(url + COLD_PAGE)
        page.wait_for_load_state("networkidle")
        cold = page.evaluate(TIME_RUN, 0)
        print(f"cold: click Run on {COLD_PAGE}'s cell → its output: {cold:.0f} ms (worker and Pyodide start included)")
        page.locator("[data-cell]").first.get_by_role("button", name="Edit").click()
        editor = page.locator("[data-cell]").first.get_by_role("textbox", name="Python code")
        expect(editor).to_be_focused(timeout=TIMEOUT_MS)
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.type("1 + 1")
        timings = [page.evaluate(TIME_RUN, 0) for _ in range(trivial_runs)]
        print(
            f"live: click Run → output of `1 + 1`: median {statistics.median(timings):.1f} ms, best {min(timings):.1f} ms "
            f"over {trivial_runs} runs (goal < 50 ms)"
        )
        print(f"requests off 127.0.0.1: {len(off_host)}")
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--trivial-runs", type=int, default=20)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        time_builds(work, arguments.runs)
        site = weigh(work)
        time_browser(site, arguments.trivial_runs)
    print(json.dumps({"load_average": load_average()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
