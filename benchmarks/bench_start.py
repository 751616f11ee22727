#!/usr/bin/env python3
"""Time Python's start in the page (from the build's memory snapshot) against a bare Pyodide boot, and the build's cell rebuild.

Usage: python benchmarks/bench_start.py [--runs 3] [--ref REF [--ref-modules DIR]] [--skip-rebuild]

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

With --ref REF (the branch point, say), REF's tree is built too (this
checkout's Python and node_modules, compare_ref.py's build_ref_site, as
bench_phone.py does) and served by a server of its own; each run then turns
the order of the working tree's site (new), REF's (old) and the bare boot,
and every figure is printed for both sides, with the paired ratios new/old
of each run (figure 4 with REF's own build.py and content). --skip-rebuild
leaves figure 4 out.

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
from compare_ref import build_ref_site  # noqa: E402
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


def time_cell_rebuild(scratch: Path, root: Path = PROJECT_ROOT) -> tuple[float, float, float, float]:
    """Return (wall, CPU) of an up-to-date build and of a build after one cell was edited, on a copy of content/, by
    the build.py of the project at `root` (build.py puts its own pysrc/ first)."""
    content = scratch / "content"
    shutil.copytree(root / "content", content)
    out = scratch / "dist"
    build = [sys.executable, "build.py", "build", "--content", str(content), "--out", str(out)]
    time_command(build, root)  # brings every cache up to date
    up_to_date = time_command(build, root)
    chapter = content / CELL_ONLY_PAGE.replace(".html", ".md")
    text = chapter.read_text(encoding="utf-8")
    # A new comment in the first cell: its output (and its key) must be computed again.
    edited = text.replace("```{python}\n", f"```{{python}}\n# edited {time.time_ns()}\n", 1)
    chapter.write_text(edited, encoding="utf-8")
    after_edit = time_command(build, root)
    return up_to_date[0], up_to_date[1], after_edit[0], after_edit[1]


def serve(site_dir: Path) -> tuple[LoggingServer, str]:
    server = LoggingServer(site_dir, SITE_PREFIX)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}{SITE_PREFIX}"


def turn(names: list[str], run: int) -> list[str]:
    """`names` in the order of run `run`: each goes first in turn."""
    return names[run % len(names) :] + names[: run % len(names)]


def measure_run(
    playwright: Playwright, browser: Browser, servers: dict[str, tuple[LoggingServer, str]], run: int, off_host: list[str]
) -> dict[str, float]:
    """One run: the lab cold and warm of each site and the bare boot, a cell's first output and the bytes sent of each
    site, each in an order that turns with `run`; return the figures by "SIDE NAME" (SIDE: new, old or bare)."""
    figures: dict[str, float] = {}
    sites = [side for side in servers if side != "bare"]
    for side in turn(list(servers), run):
        server, url = servers[side]
        cpu = cpu_seconds_of_tree(os.getpid())
        cold, warm, _bytes, _page, context = time_cold_and_warm(
            browser, url + (BARE_URL if side == "bare" else LAB_URL), off_host
        )
        context.close()
        figures |= {f"{side} cold": cold, f"{side} warm": warm, f"{side} CPU": cpu_seconds_of_tree(os.getpid()) - cpu}
    for side in turn(sites, run):
        server, url = servers[side]
        cpu = cpu_seconds_of_tree(os.getpid())
        figures[f"{side} cell first"] = time_first_cell_output(browser, url + CELL_ONLY_PAGE)
        figures[f"{side} cell CPU"] = cpu_seconds_of_tree(os.getpid()) - cpu
    for side in turn(sites, run):
        server, url = servers[side]
        sent, sent_twice = measure_page_bytes(playwright, url + SAMPLER_PAGE, server)
        figures[f"{side} sent"] = sent / 1e6
        figures |= {f"{side} twice {path}": 1.0 for path in sent_twice}
    for side in sites:
        figures[f"{side} ratio cold"] = figures[f"{side} cold"] / figures["bare cold"]
        figures[f"{side} ratio warm"] = figures[f"{side} warm"] / figures["bare warm"]
        figures[f"{side} ratio cell"] = figures[f"{side} cell first"] / figures["bare cold"]
    if "old" in servers:
        for name in ("cold", "warm", "CPU", "cell first", "cell CPU"):
            figures[f"new/old {name}"] = figures[f"new {name}"] / figures[f"old {name}"]
    return figures


def print_side(figures: dict[str, list[float]], side: str, snapshot_bytes: int) -> None:
    """Print figures 1–3 of one site (`side`: new or old)."""
    twice = sorted(name.split(" ", 2)[2] for name in figures if name.startswith(f"{side} twice "))
    print(f"[{side}]")
    print(f"1 lab live, cold               {describe(figures[f'{side} cold'], 'ms')}")
    print(f"  ratio to the bare boot, cold {describe(figures[f'{side} ratio cold'], 'x')}   [<= 0.45, issue 59]")
    print(f"  lab live, warm               {describe(figures[f'{side} warm'], 'ms')}")
    print(f"  ratio to the bare boot, warm {describe(figures[f'{side} ratio warm'], 'x')}   [<= 0.45, issue 59]")
    print(f"  CPU, lab cold+warm           {describe(figures[f'{side} CPU'], 's')}")
    print(
        f"2 cell's first output          {describe(figures[f'{side} cell first'], 'ms')}   "
        f"(CPU {describe(figures[f'{side} cell CPU'], 's')})"
    )
    print(f"  ratio to bare boot, cold     {describe(figures[f'{side} ratio cell'], 'x')}   [<= 0.6]")
    print(
        f"3 host sent, chapter 4         {describe(figures[f'{side} sent'], 'MB')}   "
        f"[<= {11.9 + snapshot_bytes / 1e6:.1f} MB: 11.9 + the snapshot's {snapshot_bytes / 1e6:.1f}]"
    )
    print(f"  runtime files sent twice     {', '.join(twice) or 'none'}   [none]")


def print_rebuild(figures: dict[str, list[float]], side: str) -> None:
    print(
        f"4 [{side}] up-to-date build       {describe(figures[f'{side} up-to-date wall'], 's')}   (CPU {describe(figures[f'{side} up-to-date CPU'], 's')})"
    )
    print(
        f"  after a cell edit            {describe(figures[f'{side} edit wall'], 's')}   (CPU {describe(figures[f'{side} edit CPU'], 's')})"
    )
    print(f"  difference                   {describe(figures[f'{side} edit extra'], 's')}   [<= 2 s]")


def main() -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ref", help="a git ref (the branch point, say) whose site is measured beside this tree's")
    parser.add_argument("--ref-modules", type=Path, help="a node_modules with the npm packages REF needs and this tree dropped")
    parser.add_argument("--skip-rebuild", action="store_true", help="leave out figure 4 (the builds)")
    arguments = parser.parse_args()
    print(describe_machine())
    print(f"load average before: {load_average()}", flush=True)
    sites = ["new", "old"] if arguments.ref else ["new"]
    figures: dict[str, list[float]] = {}

    def note(values: dict[str, float]) -> None:
        for name, value in values.items():
            figures.setdefault(name, []).append(value)

    with tempfile.TemporaryDirectory() as temporary:
        site_dirs = {"new": Path(temporary) / "dist"}
        build_site(site_dirs["new"])
        write_bare_page(site_dirs["new"])
        roots = {"new": PROJECT_ROOT}
        if arguments.ref:
            site_dirs["old"] = Path(temporary) / "dist-ref"
            roots["old"] = build_ref_site(arguments.ref, Path(temporary), site_dirs["old"], arguments.ref_modules).root
        snapshot_bytes = sum(path.stat().st_size for path in (site_dirs["new"] / "lab").glob("python-snapshot.*.bin"))
        # The bare boot on the new site's files, by a server of its own.
        servers = {side: serve(site_dirs[side]) for side in sites} | {"bare": serve(site_dirs["new"])}
        off_host: list[str] = []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(**chromium_launch_options())
            for run in range(arguments.runs):
                values = measure_run(playwright, browser, servers, run, off_host)
                note(values)
                line = [f"run {run + 1}: bare {values['bare cold']:.0f}/{values['bare warm']:.0f} ms (cold/warm)"]
                for side in sites:
                    line.append(
                        f"{side}: lab {values[f'{side} cold']:.0f}/{values[f'{side} warm']:.0f} ms "
                        f"({values[f'{side} ratio cold']:.2f}x/{values[f'{side} ratio warm']:.2f}x), "
                        f"cell first output {values[f'{side} cell first']:.0f} ms, host sent {values[f'{side} sent']:.2f} MB"
                    )
                print("; ".join(line) + f"; load {load_average()}", flush=True)
            browser.close()
        for server, _url in servers.values():
            server.shutdown()
            server.server_close()
        for run in range(0 if arguments.skip_rebuild else arguments.runs):
            for side in turn(sites, run):
                with tempfile.TemporaryDirectory() as scratch:
                    up_wall, up_cpu, edit_wall, edit_cpu = time_cell_rebuild(Path(scratch), roots[side])
                note(
                    {
                        f"{side} up-to-date wall": up_wall,
                        f"{side} up-to-date CPU": up_cpu,
                        f"{side} edit wall": edit_wall,
                        f"{side} edit CPU": edit_cpu,
                        f"{side} edit extra": edit_wall - up_wall,
                    }
                )

    print()
    print(
        f"Python's start vs a bare Pyodide boot, Chromium, {arguments.runs} runs, {', '.join(sites)} and the bare boot alternating"
    )
    print(f"  bare boot, cold              {describe(figures['bare cold'], 'ms')}")
    print(f"  bare boot, warm              {describe(figures['bare warm'], 'ms')}")
    print(f"  CPU, bare cold+warm          {describe(figures['bare CPU'], 's')}")
    for side in sites:
        print_side(figures, side, snapshot_bytes)
    if arguments.ref:
        print(f"new/old, paired per run (old: {arguments.ref})")
        for name in ("cold", "warm", "CPU", "cell first", "cell CPU"):
            print(f"  {name:<27}  {describe(figures[f'new/old {name}'], 'x')}")
    if not arguments.skip_rebuild:
        for side in sites:
            print_rebuild(figures, side)
    print(f"requests off 127.0.0.1: {len(off_host)}; load average after: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
