#!/usr/bin/env python3
"""Printed pages per 1,000 words: each chapter printed to A4 PDF by Chromium, in both colour schemes.

    .venv/bin/python benchmarks/bench_print.py [--dist dist]

Serves the built site (run `make site` first) on 127.0.0.1, prints every
chapter with Chromium's own PDF printing (`page.pdf`, A4, default margins,
backgrounds as the print stylesheet sets them) with the system scheme light
and dark, counts the PDF's pages and the chapter's words (the prose as a
reader sees it, printed answers and sources included), and prints pages per
1,000 words. Target: at most 4.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import sys
import threading
from pathlib import Path
from typing import ClassVar

from playwright.sync_api import sync_playwright

from timing import ROOT

PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?![s\w])")
WORD = re.compile(r"\w+(?:[’'.,-]\w+)*")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serve dist/ without logging each request, with the lab's types."""

    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
    }

    def log_message(self, format: str, *args) -> None:
        """Say nothing."""


def main() -> int:
    """Print one line per chapter and scheme, then the worst ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    arguments = parser.parse_args()
    chapters = sorted(path.name for path in arguments.dist.glob("[0-9][0-9]-*.html"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(arguments.dist)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/"
    worst = 0.0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
        for scheme in ("light", "dark"):
            context = browser.new_context(color_scheme=scheme)
            context.route("**/*.wasm", lambda route: route.abort())  # printing needs no Python
            page = context.new_page()
            for name in chapters:
                page.goto(base + name)
                page.emulate_media(media="print", color_scheme=scheme)
                words = len(WORD.findall(page.evaluate("document.querySelector('article.chapter').innerText")))
                pdf = page.pdf(format="A4")
                pages = len(PAGE_OBJECT.findall(pdf))
                ratio = pages / words * 1000
                worst = max(worst, ratio)
                print(f"{scheme:5} {name:28} {pages:2} A4 pages, {words:5} words: {ratio:.2f} pages per 1,000 words", flush=True)
            context.close()
        browser.close()
    server.shutdown()
    print(f"worst: {worst:.2f} pages per 1,000 words; target <= 4")
    return 0


if __name__ == "__main__":
    sys.exit(main())
