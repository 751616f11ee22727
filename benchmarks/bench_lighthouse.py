#!/usr/bin/env python3
"""Lighthouse (npm, run with Debian's Chromium) on the contents page and chapter 4: four category scores each.

    .venv/bin/python benchmarks/bench_lighthouse.py [DIST_DIR] [--runs N]

Builds content/ into a temporary folder unless DIST_DIR is given, serves it
on 127.0.0.1 under /rollouts/ (as a project site would be) with the MIME
types a static host sends, and runs node_modules/.bin/lighthouse against each
page with its default mobile settings. Prints the performance, accessibility,
best-practices and SEO scores (0-100) and, under each page, every audit that
did not pass, so the figures come with what to fix. Performance depends on
how busy the machine is (Lighthouse scales the CPU time it observes), so each
page is audited N times (default 3) and the median run is reported, with the
range of performance scores. Target: 100 on each for
the contents page. A report, not a test: it asserts nothing. Nothing leaves
127.0.0.1: Chromium runs with background networking off.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "pysrc"))
sys.path.insert(0, str(ROOT / "tests"))

from chromium_settings import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from sitegen.serve.static_server import serve_preview  # noqa: E402

LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
PREFIX = "/rollouts/"
PAGES = ["index.html", "04-follow-draw-3.html"]
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
# Lighthouse launches Chromium itself (CHROME_PATH) and takes its flags as one string.
CHROME_FLAGS = " ".join(["--headless=new", *CHROMIUM_ARGS, "--disable-dev-shm-usage", "--disable-default-apps"])


def run_lighthouse(url: str, report: Path) -> dict:
    """Run Lighthouse on one URL and return its JSON result."""
    command = [
        str(LIGHTHOUSE),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={report}",
        f"--only-categories={','.join(CATEGORIES)}",
        f"--chrome-flags={CHROME_FLAGS}",
    ]
    result = subprocess.run(command, env={**os.environ, "CHROME_PATH": CHROMIUM}, capture_output=True, text=True)
    if result.returncode != 0 or not report.is_file():
        raise SystemExit(f"lighthouse failed on {url}:\n{result.stderr[-2000:]}")
    return json.loads(report.read_text(encoding="utf-8"))


def describe_failures(result: dict) -> list[str]:
    """Return one line per scored audit that did not get full marks, with what it found."""
    lines = []
    for category in CATEGORIES:
        for reference in result["categories"][category]["auditRefs"]:
            audit = result["audits"][reference["id"]]
            if reference["weight"] > 0 and audit.get("score") is not None and audit["score"] < 1:
                detail = audit.get("displayValue", "")
                lines.append(
                    f"    {category}: {audit['id']} ({audit['title']}) score {audit['score']}{f', {detail}' if detail else ''}"
                )
    return lines


def report(dist: Path, runs: int) -> None:
    """Serve dist/, audit each page `runs` times, print the median run's scores."""
    with serve_preview(dist, PREFIX) as site_url, tempfile.TemporaryDirectory(prefix="lighthouse-") as folder:
        print(f"{'page':<24}" + "".join(f"{c:>16}" for c in CATEGORIES) + "   performance range")
        for page in PAGES:
            results = [run_lighthouse(site_url + page, Path(folder) / "report.json") for _ in range(runs)]
            results.sort(key=lambda r: r["categories"]["performance"]["score"])
            result = results[len(results) // 2]
            scores = [round(result["categories"][c]["score"] * 100) for c in CATEGORIES]
            performance = [round(r["categories"]["performance"]["score"] * 100) for r in results]
            print(
                f"{page:<24}" + "".join(f"{s:>16}" for s in scores) + f"   {min(performance)}-{max(performance)} over {runs} runs"
            )
            for line in describe_failures(result):
                print(line)
            metrics = result["audits"]
            print(
                "    metrics: "
                + ", ".join(
                    f"{key} {metrics[key]['displayValue']}"
                    for key in (
                        "first-contentful-paint",
                        "largest-contentful-paint",
                        "total-blocking-time",
                        "cumulative-layout-shift",
                    )
                    if key in metrics and metrics[key].get("displayValue")
                )
            )


def main() -> int:
    """Audit DIST_DIR, or a fresh build of content/."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dist", nargs="?", type=Path, help="a built site (default: build content/ now)")
    parser.add_argument("--runs", type=int, default=3, help="audits per page; the median is reported")
    arguments = parser.parse_args()
    if arguments.dist is not None:
        report(arguments.dist, arguments.runs)
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-lighthouse-") as folder:
        dist = Path(folder) / "dist"
        result = subprocess.run(
            [sys.executable, str(ROOT / "build.py"), "build", "--out", str(dist)], capture_output=True, text=True
        )
        if result.returncode != 0:
            raise SystemExit(f"the build failed:\n{result.stderr}")
        report(dist, arguments.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
