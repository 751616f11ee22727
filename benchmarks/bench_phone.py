#!/usr/bin/env python3
"""Python's start over a phone's link (issue 40), paired with a bare Pyodide boot on the same link in one run.

Usage: python benchmarks/bench_phone.py [--runs 3] [--rate 16e6] [--latency 0.150] [--ref REF [--ref-modules DIR]]
                                        [--cpu-slowdown 4]

Builds the site with the real pipeline into a temporary folder, adds
bench_lab.py's bare page (the npm package's own files, booted in a module
worker), and serves both on 127.0.0.1 behind slow_link.py's server: ONE link
of 16 Mbit/s shared by every request (the workers' too: Chromium's throttling
does not reach them) and 150 ms before each response. Each run, the site and
the bare boot alternate which goes first, and prints:

1. cold, in a fresh profile with a disk cache (a reader's first visit; the
   offline keep's service worker runs as it would): chapter 4's sampler lab
   live (settings in the address start Python at once) against the bare boot
   live, their ratio (goal <= 0.5), and the bytes the host had sent when each
   was live;
2. warm, the same profile again once the link is idle (the first visit's
   offline keep done, as a reader coming back finds it): the lab's live
   time and a cell's first output after Run on the same page (Run pressed
   as soon as the cell's toolbar shows), their ratio (goal <= 1.2);
3. private (a new context of a launched browser: no disk cache, only
   Chromium's memory cache): chapter 4 opened with the pointer passing its
   cell while the lab starts, the bytes sent before the lab is live
   (goal <= 9 MB), then the cell run; how many times each runtime file was
   sent (goal: each once).

With --ref REF (the branch point, say), REF's tree is built too (this
checkout's Python and node_modules, as compare_ref.py does) and served behind
a link of its own, and each run alternates the working tree's site, REF's and
the bare boot: every figure above is printed for both, with new/old ratios.

With --cpu-slowdown N, every page runs with Chromium's CPU throttling
(CDP Emulation.setCPUThrottlingRate), a phone's slower CPU. It slows the
page's own thread only: the page's decoding of the wasm and the compiling it
starts, its scripts, its layout. The workers (the snapshot's decoding, Python's
restore, the lab's computing) run at the machine's speed, so the figure is a
lower bound of a phone's time, and the bare boot, whose work is all in its
worker, is barely slowed: the ratio flatters the bare boot less than a phone.

Beside each time: the CPU seconds of every process this script started
(Chromium's included) over the same span, and the load average. A benchmark,
not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT / "pysrc"))
sys.path.insert(0, str(PROJECT_ROOT / "tests"))
sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))

from playwright.sync_api import BrowserContext, Page, Playwright, expect, sync_playwright  # noqa: E402

from bench_lab import BARE_URL, LAB_URL, WATCH_STATUS, build_site, write_bare_page  # noqa: E402
from bench_start import RAN, SAMPLER_PAGE  # noqa: E402
from chromium_settings import chromium_launch_options  # noqa: E402
from compare_ref import build_ref_site  # noqa: E402
from slow_link import SlowLinkServer  # noqa: E402
from timing import cpu_seconds_of_tree, describe_machine, load_average  # noqa: E402

SITE_PREFIX = "/rollouts/"
TIMEOUT_MS = 600_000
# Noted in the page: when a cell's output first shows (ms since navigation start), and when Run was pressed.
WATCH_CELL = """
window.benchCellRunAt = undefined;
new MutationObserver((changes, observer) => {
  const status = document.querySelector('[data-cell-status]');
  if (status && /^(Ran in your browser|Raised an error)/.test(status.textContent)) {
    window.benchCellDoneAt = performance.now();
    observer.disconnect();
  }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


def wait_live(page: Page) -> float:
    page.wait_for_function("() => window.benchLiveAt !== undefined", timeout=TIMEOUT_MS, polling=20)
    return float(page.evaluate("window.benchLiveAt"))


# Chromium's CPU throttling of each page (1: none), set by --cpu-slowdown.
CPU_SLOWDOWN = {"rate": 1.0}


def open_profile(playwright: Playwright, folder: str) -> BrowserContext:
    """A browser on a fresh profile of its own, with a disk cache, as a reader's; the page's live and cell times noted."""
    context = playwright.chromium.launch_persistent_context(folder, **chromium_launch_options())
    context.add_init_script(WATCH_STATUS)
    context.add_init_script(WATCH_CELL)
    return context


def new_page(context: BrowserContext) -> Page:
    """A page of `context`, its thread slowed by CPU_SLOWDOWN (the page's own thread: not its workers')."""
    page = context.new_page()
    if CPU_SLOWDOWN["rate"] != 1.0:
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN["rate"]})
    return page


def wait_until_idle(server: SlowLinkServer, quiet: float = 1.0, limit: float = 60.0) -> None:
    """Wait until the link has sent all it was given and no response has begun for `quiet` seconds (at most `limit`)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        now = time.monotonic()
        last = server.started + server.sent[-1][0] if server.sent else 0.0
        if server.link.free_at <= now and now - last >= quiet:
            return
        time.sleep(0.1)


def cold_visit(playwright: Playwright, server: SlowLinkServer, url: str, *, cell: bool) -> dict[str, float]:
    """Open `url` in a fresh profile: live time and bytes sent by then; then warm (`cell`: and a cell's first output)."""
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        cpu = cpu_seconds_of_tree(os.getpid())
        context = open_profile(playwright, folder)
        server.clear()
        page = new_page(context)
        page.goto(url)
        figures["live"] = wait_live(page)
        figures["sent"] = server.link.sent / 1e6
        figures["CPU"] = cpu_seconds_of_tree(os.getpid()) - cpu
        if cell:
            # What the first visit still fetches after live (the offline keep: the other pages, fonts) is not the
            # second's: a reader coming back finds it done. On this link it takes a few seconds.
            wait_until_idle(server)
            page.goto("about:blank")
            page.goto(url)
            first = page.locator("[data-cell]").first
            expect(first.locator("[data-cell-toolbar]")).to_be_visible(timeout=TIMEOUT_MS)
            run_at = float(page.evaluate("() => performance.now()"))
            first.get_by_role("button", name="Run").evaluate("(button) => button.click()")
            figures["warm live"] = wait_live(page)
            page.wait_for_function("() => window.benchCellDoneAt !== undefined", timeout=TIMEOUT_MS, polling=20)
            figures["cell"] = float(page.evaluate("window.benchCellDoneAt")) - run_at
        context.close()
    return figures


def private_visit(playwright: Playwright, server: SlowLinkServer, url: str) -> tuple[dict[str, float], Counter[str]]:
    """Chapter 4 in a private context, the pointer over its cell while the lab starts, then the cell run."""
    browser = playwright.chromium.launch(**chromium_launch_options())
    context = browser.new_context()
    context.add_init_script(WATCH_STATUS)
    server.clear()
    cpu = cpu_seconds_of_tree(os.getpid())
    page = new_page(context)
    page.goto(url)
    cell = page.locator("[data-cell]").first
    page.locator("section.lab").first.scroll_into_view_if_needed()
    cell.hover()
    figures = {"live": wait_live(page), "sent": server.link.sent / 1e6}
    cell.get_by_role("button", name="Run").click()
    expect(cell.locator("[data-cell-status]")).to_have_text(RAN, timeout=TIMEOUT_MS)
    time.sleep(2)  # the offline keep, if it fetches anything after the start
    figures["sent after run"] = server.link.sent / 1e6
    figures["CPU"] = cpu_seconds_of_tree(os.getpid()) - cpu
    context.close()
    browser.close()
    sent = Counter(path for _at, path, status, _size in server.sent if status == 200 and ("/pyodide/" in path or "/lab/" in path))
    return figures, sent


def describe(values: list[float], unit: str) -> str:
    return f"median {statistics.median(values):9.2f} {unit}  (range {min(values):.2f}–{max(values):.2f})"


def visit_all(playwright: Playwright, urls: dict[str, str], servers: dict[str, SlowLinkServer], run: int) -> dict[str, dict]:
    """One run: each side's cold visit (the bare boot among them), in an order that turns with `run`; each site's
    private visit after."""
    names = list(urls)
    order = names[run % len(names) :] + names[: run % len(names)]
    results: dict[str, dict] = {}
    for name in order:
        results[name] = cold_visit(
            playwright, servers[name], urls[name] + (BARE_URL if name == "bare" else LAB_URL), cell=name != "bare"
        )
    for name in names:
        if name != "bare":
            results[f"{name} private"] = private_visit(playwright, servers[name], urls[name] + SAMPLER_PAGE)
    return results


def serve(site_dir: Path, rate: float, latency: float) -> tuple[SlowLinkServer, str]:
    server = SlowLinkServer(site_dir, SITE_PREFIX, rate, latency)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}{SITE_PREFIX}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rate", type=float, default=16e6, help="the link's bits a second (default 16e6)")
    parser.add_argument("--latency", type=float, default=0.150, help="seconds before each response (default 0.150)")
    parser.add_argument("--ref", help="a git ref (the branch point, say) whose site is measured beside this tree's")
    parser.add_argument("--ref-modules", type=Path, help="a node_modules with the npm packages REF needs and this tree dropped")
    parser.add_argument("--cpu-slowdown", type=float, default=1.0, help="Chromium's CPU throttling of the pages (4: a phone's)")
    arguments = parser.parse_args()
    CPU_SLOWDOWN["rate"] = arguments.cpu_slowdown
    print(describe_machine())
    print(
        f"link: {arguments.rate / 1e6:g} Mbit/s shared, +{arguments.latency * 1000:.0f} ms a response; "
        f"page CPU slowed {arguments.cpu_slowdown:g}x (not the workers'); load before: {load_average()}"
    )
    sides = ["new", "old"] if arguments.ref else ["new"]
    figures: dict[str, list[float]] = {}
    sent_twice: dict[str, Counter[str]] = {side: Counter() for side in sides}

    def note(prefix: str, values: dict[str, float]) -> None:
        for name, value in values.items():
            figures.setdefault(f"{prefix} {name}", []).append(value)

    with tempfile.TemporaryDirectory() as temporary:
        sites = {"new": Path(temporary) / "dist"}
        build_site(sites["new"])
        write_bare_page(sites["new"])
        if arguments.ref:
            sites["old"] = Path(temporary) / "dist-ref"
            build_ref_site(arguments.ref, Path(temporary), sites["old"], arguments.ref_modules)
        servers, urls = {}, {}
        for side, folder in sites.items():
            servers[side], urls[side] = serve(folder, arguments.rate, arguments.latency)
        # The bare boot on the new site's files and a link of its own.
        servers["bare"], urls["bare"] = serve(sites["new"], arguments.rate, arguments.latency)
        with sync_playwright() as playwright:
            for run in range(arguments.runs):
                results = visit_all(playwright, urls, servers, run)
                boot = results["bare"]
                note("bare", boot)
                line = [f"run {run + 1}: bare {boot['live']:.0f} ms ({boot['sent']:.1f} MB)"]
                for side in sides:
                    lab, (private, sent) = results[side], results[f"{side} private"]
                    note(f"{side} lab", lab)
                    note(f"{side} private", private)
                    note(f"{side} ratio", {"cold": lab["live"] / boot["live"], "cell": lab["cell"] / lab["warm live"]})
                    twice = {path: count for path, count in sent.items() if count > 1}
                    sent_twice[side].update(twice)
                    line.append(
                        f"{side}: live {lab['live']:.0f} ms ({lab['sent']:.1f} MB), warm {lab['warm live']:.0f} ms, cell {lab['cell']:.0f} ms; "
                        f"private live {private['live']:.0f} ms, {private['sent']:.1f} MB before live, sent twice: {twice or 'none'}"
                    )
                    if run == 0:
                        line.append(
                            f"  {side} private, each runtime file sent: "
                            + ", ".join(f"{path.rsplit('/', 1)[-1]} ×{n}" for path, n in sorted(sent.items()))
                        )
                if arguments.ref:
                    note("new/old", {key: results["new"][key] / results["old"][key] for key in ("live", "warm live", "cell")})
                print("\n  ".join(line) + f"\n  load {load_average()}", flush=True)
        for server in servers.values():
            server.shutdown()
            server.server_close()

    print()
    print(f"{arguments.runs} runs, {', '.join(sides)} and the bare boot alternating (goals in brackets)")
    print(f"  cold bare boot live          {describe(figures['bare live'], 'ms')}  CPU {describe(figures['bare CPU'], 's')}")
    print(f"  sent before live: bare       {describe(figures['bare sent'], 'MB')}")
    for side in sides:
        print(f"[{side}]")
        print(
            f"1 cold lab live                {describe(figures[f'{side} lab live'], 'ms')}  CPU {describe(figures[f'{side} lab CPU'], 's')}"
        )
        print(f"  ratio to the bare boot       {describe(figures[f'{side} ratio cold'], 'x')}  [<= 0.45]")
        print(f"  sent before live             {describe(figures[f'{side} lab sent'], 'MB')}")
        print(f"2 warm lab live                {describe(figures[f'{side} lab warm live'], 'ms')}")
        print(f"  cell's output after Run      {describe(figures[f'{side} lab cell'], 'ms')}")
        print(f"  ratio                        {describe(figures[f'{side} ratio cell'], 'x')}  [<= 1.2]")
        print(
            f"3 private lab live             {describe(figures[f'{side} private live'], 'ms')}  CPU {describe(figures[f'{side} private CPU'], 's')}"
        )
        print(f"  sent before live             {describe(figures[f'{side} private sent'], 'MB')}  [<= 9 MB]")
        print(f"  sent with the cell run       {describe(figures[f'{side} private sent after run'], 'MB')}")
        print(f"  runtime files sent twice     {dict(sent_twice[side]) or 'none'}  [none]")
    if arguments.ref:
        print(f"new/old (paired, per run): cold live {describe(figures['new/old live'], 'x')}")
        print(f"                           warm live {describe(figures['new/old warm live'], 'x')}")
        print(f"                           cell      {describe(figures['new/old cell'], 'x')}")
    print(f"load average after: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
