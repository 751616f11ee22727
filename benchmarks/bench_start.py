#!/usr/bin/env python3
"""Time Python's start in the page (from the build's memory snapshot) against a bare Pyodide boot, and the build's cell rebuild.

Usage: python benchmarks/bench_start.py [--runs 3]

Builds the site with the real pipeline into a temporary folder, adds
bench_lab.py's bare page (the npm package's pyodide.mjs booted in a module
worker, from the same pyodide/ folder), serves both on 127.0.0.1 under
/rollouts/ with a server that logs what it sent, and prints issue 21's four
figures, each run pairing the site with a bare boot, alternating:

1. chapter 4's lab live (settings in the address start Python at once),
   cold (a fresh context) and warm (the same page again), against the bare
   boot cold and warm: their ratios (goal <= 0.5);
2. a cell's first output after its first Run, nothing started before
   (chapter 6: cells, no lab), against the bare boot cold (goal <= 0.6);
3. bytes the host sent, cold, from opening chapter 4 until its lab is live
   with the pointer passing over its cell on the way, and that cell run after;
   and whether any runtime file was sent twice (goal: each once, in all
   <= 11.9 MB + the snapshot);
4. a build after one cell was edited (everything else cached) against an
   up-to-date build (goal: <= 2 s more), on a copy of content/.

Beside each wall time: the CPU seconds of every process this script started
(Chromium's included) over the same span, and the load average. A benchmark,
not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import BinaryIO

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT / "pysrc"))
sys.path.insert(0, str(PROJECT_ROOT / "tests"))
sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))

from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright  # noqa: E402

from bench_lab import BARE_URL, LAB_URL, build_site, time_cold_and_warm, write_bare_page  # noqa: E402
from chromium_settings import chromium_launch_options  # noqa: E402
from sitegen.serve.static_server import SubPathRequestHandler, SubPathServer  # noqa: E402
from timing import cpu_seconds_of_tree, describe_machine, load_average, time_command  # noqa: E402

SITE_PREFIX = "/rollouts/"
SAMPLER_PAGE = "04-follow-draw-3.html"
CELL_ONLY_PAGE = "06-learning.html"
LIVE_STATUS = "Computed in your browser by Python 3.14 (Pyodide)."
RAN = re.compile(r"^(Ran in your browser in \d+ ms\.|Raised an error \(\d+ ms\)\.)$")
TIMEOUT_MS = 300_000


class LoggingServer(SubPathServer):
    """The preview server, keeping (path, status, bytes) of every GET it answered."""

    def __init__(self, folder: Path, prefix: str) -> None:
        super().__init__(folder, prefix)
        self.sent: list[tuple[str, int, int]] = []
        self.RequestHandlerClass = partial(LoggingHandler, directory=str(folder))


class LoggingHandler(SubPathRequestHandler):
    server: LoggingServer

    def send_head(self) -> io.BytesIO | BinaryIO | None:
        body = super().send_head()
        if self.command == "GET" and body is not None:
            size = len(body.getvalue()) if isinstance(body, io.BytesIO) else os.fstat(body.fileno()).st_size
            self.server.sent.append((self.path, self._status, size))
        return body

    def send_response(self, code: int, message: str | None = None) -> None:
        self._status = int(code)
        super().send_response(code, message)


def describe(values: list[float], unit: str) -> str:
    """Return 'median X (range A–B)'."""
    return f"median {statistics.median(values):8.2f} {unit}  (range {min(values):.2f}–{max(values):.2f})"


def time_first_cell_output(browser: Browser, url: str) -> float:
    """Open a page with cells and no lab in a fresh context, click Run on its first cell; return ms until its output."""
    context = browser.new_context(service_workers="block")  # offline reading's downloads would count as the lab's
    elapsed = time_run_to_output(context.new_page(), url)
    context.close()
    return elapsed


def time_run_to_output(page: Page, url: str) -> float:
    """Open `url` (a page with cells and no lab) in `page`, click Run on its first cell; return ms until its output."""
    page.goto(url)
    cell = page.locator("[data-cell]").first
    expect(cell.locator("[data-cell-toolbar]")).to_be_visible()
    started = page.evaluate("() => performance.now()")
    # A click in the page itself: no pointer passes over the cell first (that would start Python earlier).
    cell.get_by_role("button", name="Run").evaluate("(button) => button.click()")
    expect(cell.locator("[data-cell-status]")).to_have_text(RAN, timeout=TIMEOUT_MS)
    finished = page.evaluate("() => performance.now()")
    return finished - started


def measure_page_bytes(playwright: Playwright, url: str, server: LoggingServer) -> tuple[int, list[str]]:
    """Open chapter 4 cold, pass the pointer over its cell while the lab starts, run the cell; return bytes sent, files sent twice.

    In a fresh profile with a disk cache, as a reader's browser has: a context
    of a launched browser is off the record, and its cache in memory keeps
    no entry as large as the wasm or the snapshot.
    """
    server.sent.clear()
    profile = tempfile.TemporaryDirectory()
    context = playwright.chromium.launch_persistent_context(profile.name, service_workers="block", **chromium_launch_options())
    page = context.new_page()
    page.goto(url)
    cell = page.locator("[data-cell]").first
    page.locator("section.lab").first.scroll_into_view_if_needed()
    cell.hover()
    expect(page.locator("[data-lab-status]").first).to_have_text(LIVE_STATUS, timeout=TIMEOUT_MS)
    cell.get_by_role("button", name="Run").click()
    expect(cell.locator("[data-cell-status]")).to_have_text(RAN, timeout=TIMEOUT_MS)
    context.close()
    profile.cleanup()
    sent = [(path, size) for path, status, size in server.sent if status == 200]
    runtime = Counter(path for path, _size in sent if "/pyodide/" in path or "/lab/" in path)
    return sum(size for _path, size in sent), sorted(path for path, count in runtime.items() if count > 1)


def time_cell_rebuild(scratch: Path) -> tuple[float, float, float, float]:
    """Return (wall, CPU) of an up-to-date build and of a build after one cell was edited, on a copy of content/."""
    content = scratch / "content"
    shutil.copytree(PROJECT_ROOT / "content", content)
    out = scratch / "dist"
    build = [sys.executable, "build.py", "build", "--content", str(content), "--out", str(out)]
    time_command(build, PROJECT_ROOT)  # brings every cache up to date
    up_to_date = time_command(build, PROJECT_ROOT)
    chapter = content / CELL_ONLY_PAGE.replace(".html", ".md")
    text = chapter.read_text(encoding="utf-8")
    # A new comment in the first cell: its output (and its key) must be computed again.
    edited = text.replace("```{python}\n", f"```{{python}}\n# edited {time.time_ns()}\n", 1)
    chapter.write_text(edited, encoding="utf-8")
    after_edit = time_command(build, PROJECT_ROOT)
    return up_to_date[0], up_to_date[1], after_edit[0], after_edit[1]


def main() -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    arguments = parser.parse_args()
    print(describe_machine())
    print(f"load average before: {load_average()}", flush=True)
    figures: dict[str, list[float]] = {}
    twice: set[str] = set()

    def note(name: str, value: float) -> None:
        figures.setdefault(name, []).append(value)

    with tempfile.TemporaryDirectory() as temporary:
        site_dir = Path(temporary) / "dist"
        build_site(site_dir)
        write_bare_page(site_dir)
        snapshot_bytes = sum(path.stat().st_size for path in (site_dir / "lab").glob("python-snapshot.*.bin"))
        server = LoggingServer(site_dir, SITE_PREFIX)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        site_url = f"http://127.0.0.1:{server.server_address[1]}{SITE_PREFIX}"
        off_host: list[str] = []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(**chromium_launch_options())
            for run in range(arguments.runs):
                cpu = cpu_seconds_of_tree(os.getpid())
                lab_cold, lab_warm, _bytes, _page, context = time_cold_and_warm(browser, site_url + LAB_URL, off_host)
                context.close()
                note("lab CPU", cpu_seconds_of_tree(os.getpid()) - cpu)
                cpu = cpu_seconds_of_tree(os.getpid())
                bare_cold, bare_warm, _bytes, _page, context = time_cold_and_warm(browser, site_url + BARE_URL, off_host)
                context.close()
                note("bare CPU", cpu_seconds_of_tree(os.getpid()) - cpu)
                cpu = cpu_seconds_of_tree(os.getpid())
                cell_first = time_first_cell_output(browser, site_url + CELL_ONLY_PAGE)
                note("cell CPU", cpu_seconds_of_tree(os.getpid()) - cpu)
                sent, sent_twice = measure_page_bytes(playwright, site_url + SAMPLER_PAGE, server)
                twice.update(sent_twice)
                for name, value in {
                    "lab cold": lab_cold,
                    "lab warm": lab_warm,
                    "bare cold": bare_cold,
                    "bare warm": bare_warm,
                    "ratio cold": lab_cold / bare_cold,
                    "ratio warm": lab_warm / bare_warm,
                    "cell first": cell_first,
                    "ratio cell": cell_first / bare_cold,
                    "sent": sent / 1e6,
                }.items():
                    note(name, value)
                print(
                    f"run {run + 1}: lab {lab_cold:.0f}/{lab_warm:.0f} ms vs bare {bare_cold:.0f}/{bare_warm:.0f} ms (cold/warm); "
                    f"cell first output {cell_first:.0f} ms; host sent {sent / 1e6:.2f} MB; load {load_average()}",
                    flush=True,
                )
            browser.close()
        server.shutdown()
        server.server_close()
        for _run in range(arguments.runs):
            with tempfile.TemporaryDirectory() as scratch:
                up_wall, up_cpu, edit_wall, edit_cpu = time_cell_rebuild(Path(scratch))
            note("up-to-date wall", up_wall)
            note("up-to-date CPU", up_cpu)
            note("edit wall", edit_wall)
            note("edit CPU", edit_cpu)
            note("edit extra", edit_wall - up_wall)

    print()
    print(f"Python's start vs a bare Pyodide boot, Chromium, {arguments.runs} alternating runs (goals in brackets)")
    print(f"1 lab live, cold               {describe(figures['lab cold'], 'ms')}")
    print(f"  bare boot, cold              {describe(figures['bare cold'], 'ms')}")
    print(f"  ratio, cold                  {describe(figures['ratio cold'], 'x')}   [<= 0.5]")
    print(f"  lab live, warm               {describe(figures['lab warm'], 'ms')}")
    print(f"  bare boot, warm              {describe(figures['bare warm'], 'ms')}")
    print(f"  ratio, warm                  {describe(figures['ratio warm'], 'x')}   [<= 0.5]")
    print(f"  CPU, lab cold+warm           {describe(figures['lab CPU'], 's')}")
    print(f"  CPU, bare cold+warm          {describe(figures['bare CPU'], 's')}")
    print(f"2 cell's first output          {describe(figures['cell first'], 'ms')}   (CPU {describe(figures['cell CPU'], 's')})")
    print(f"  ratio to bare boot, cold     {describe(figures['ratio cell'], 'x')}   [<= 0.6]")
    print(
        f"3 host sent, chapter 4         {describe(figures['sent'], 'MB')}   "
        f"[<= {11.9 + snapshot_bytes / 1e6:.1f} MB: 11.9 + the snapshot's {snapshot_bytes / 1e6:.1f}]"
    )
    print(f"  runtime files sent twice     {', '.join(sorted(twice)) or 'none'}   [none]")
    print(
        f"4 up-to-date build             {describe(figures['up-to-date wall'], 's')}   (CPU {describe(figures['up-to-date CPU'], 's')})"
    )
    print(f"  after a cell edit            {describe(figures['edit wall'], 's')}   (CPU {describe(figures['edit CPU'], 's')})")
    print(f"  difference                   {describe(figures['edit extra'], 's')}   [<= 2 s]")
    print(f"requests off 127.0.0.1: {len(off_host)}; load average after: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
