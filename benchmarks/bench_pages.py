#!/usr/bin/env python3
"""Page weight: for each built page, the bytes of its HTML, CSS and JavaScript (not the Pyodide runtime, not fonts).

    .venv/bin/python benchmarks/bench_pages.py [DIST_DIR]

Builds content/ into a temporary folder unless DIST_DIR is given. Counts what
a first visit downloads before the reader does anything: the page, the
stylesheets it links, the scripts it loads, and on lab pages the lab's module
and its worker script. Not counted: Pyodide (pyodide/), the core archive it
unpacks, KaTeX's fonts, and the search index (fetched on first use of the
search box; its size is printed on its own). The target is under 100 KB per
page uncompressed; gzip figures show what a server that compresses sends.
A report, not a test: it asserts nothing.
"""

from __future__ import annotations

import gzip
import html.parser
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_BYTES = 100 * 1024


class LinkedFiles(html.parser.HTMLParser):
    """Collect the stylesheets and scripts a page loads (including the lab's worker named in its meta tag)."""

    def __init__(self) -> None:
        super().__init__()
        self.stylesheets: list[str] = []
        self.scripts: list[str] = []
        self.search_index = ""
        self.search_scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Note each linked stylesheet, script source and lab worker."""
        attributes = dict(attrs)
        if tag == "link" and attributes.get("rel") == "stylesheet" and attributes.get("href"):
            self.stylesheets.append(attributes["href"])
        elif tag == "script" and attributes.get("src"):
            self.scripts.append(attributes["src"])
        elif attributes.get("data-index"):
            self.search_index = attributes["data-index"]
            self.search_scripts = [attributes[name] for name in ("data-engine", "data-helpers") if attributes.get(name)]
        self.in_lab_data = tag == "script" and attributes.get("id") == "rollouts-lab"

    def handle_data(self, data: str) -> None:
        """Read the lab's worker from its JSON data block."""
        if getattr(self, "in_lab_data", False):
            self.scripts.append(json.loads(data)["worker"])
            self.in_lab_data = False


def measure_page(dist: Path, page: Path) -> dict[str, int | str]:
    """Return the page's bytes of HTML, CSS and JS, raw and gzip-compressed."""
    parser = LinkedFiles()
    text = page.read_text(encoding="utf-8")
    parser.feed(text)
    parts = {
        "html": [page.read_bytes()],
        "css": [(dist / href).read_bytes() for href in parser.stylesheets],
        "js": [(dist / src).read_bytes() for src in parser.scripts],
    }
    sizes: dict[str, int | str] = {kind: sum(len(data) for data in datas) for kind, datas in parts.items()}
    sizes["total"] = sum(int(sizes[kind]) for kind in parts)
    sizes["gzip"] = sum(len(gzip.compress(data, 9)) for datas in parts.values() for data in datas)
    sizes["search_index"] = parser.search_index
    sizes["search_scripts"] = " ".join(parser.search_scripts)
    return sizes


def build_site(out_dir: Path) -> None:
    """Build content/ with the real pipeline."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "build", "--out", str(out_dir)], capture_output=True, text=True
    )
    if result.returncode != 0:
        raise SystemExit(f"the build failed:\n{result.stderr}")


def report(dist: Path) -> None:
    """Print one line per page and the search index's size."""
    print(f"{'page':<24}{'HTML':>9}{'CSS':>9}{'JS':>9}{'total':>10}{'gzip':>9}  (bytes; target < {TARGET_BYTES // 1024} KB)")
    search_index, search_scripts = "", ""
    for page in sorted(dist.glob("*.html")):
        sizes = measure_page(dist, page)
        search_index = search_index or str(sizes["search_index"])
        search_scripts = search_scripts or str(sizes["search_scripts"])
        verdict = "ok" if int(sizes["total"]) < TARGET_BYTES else "OVER"
        print(
            f"{page.name:<24}{sizes['html']:>9,}{sizes['css']:>9,}{sizes['js']:>9,}{sizes['total']:>10,}{sizes['gzip']:>9,}  "
            f"{int(sizes['total']) / 1024:5.1f} KB {verdict}"
        )
    if search_index:
        data = (dist / search_index).read_bytes()
        print(f"search index (on first search, shared by all pages): {len(data):,} bytes, {len(gzip.compress(data, 9)):,} gzip")
    for script in search_scripts.split():
        data = (dist / script).read_bytes()
        print(f"search script {script} (on first search): {len(data):,} bytes, {len(gzip.compress(data, 9)):,} gzip")


def main() -> int:
    """Measure DIST_DIR, or a fresh build of content/."""
    if len(sys.argv) > 1:
        report(Path(sys.argv[1]))
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as folder:
        dist = Path(folder) / "dist"
        build_site(dist)
        report(dist)
    return 0


if __name__ == "__main__":
    sys.exit(main())
