"""TeX to HTML with KaTeX, in one node process per build, all formulas in one round trip.

KaTeX positions glyphs with inline `style` attributes, which the site's
Content-Security-Policy (style-src 'self', no 'unsafe-inline') would block.
Each distinct style therefore becomes a class named after its own hash, and
the rules go into a stylesheet the pages link (see `write_math_stylesheet`).
The class name depends only on the style text, so a page's HTML never depends
on which other pages contain math.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sitegen.diagnostics import BuildFailed, Diagnostic, Location

SERVER_SCRIPT = Path(__file__).with_name("katex_server.cjs")

_TAG_WITH_STYLE = re.compile(r'<([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"]*")*?\s+style="[^"]*"(?:\s+[\w:-]+="[^"]*")*)\s*(/?)>')
_ATTRIBUTE = re.compile(r'\s+([\w:-]+)="([^"]*)"')


@dataclass(frozen=True)
class MathResult:
    """KaTeX's HTML for one formula (styles moved to classes), or KaTeX's error message."""

    html: str = ""
    styles: frozenset[str] = frozenset()
    error: str = ""


def name_style_class(style: str) -> str:
    """Return the class that stands for one inline style, named after its hash."""
    return "ks-" + hashlib.sha256(style.encode()).hexdigest()[:8]


def move_styles_to_classes(html: str) -> tuple[str, frozenset[str]]:
    """Replace every style="..." attribute with a hash-named class; return the HTML and the styles."""
    styles: set[str] = set()

    def rewrite_tag(match: re.Match[str]) -> str:
        attributes = dict(_ATTRIBUTE.findall(match.group(2)))
        style = attributes.pop("style")
        styles.add(style)
        classes = (attributes.get("class", "") + " " + name_style_class(style)).strip()
        ordered = {"class": classes, **{k: v for k, v in attributes.items() if k != "class"}}
        text = "".join(f' {key}="{value}"' for key, value in ordered.items())
        return f"<{match.group(1)}{text}{' /' if match.group(3) else ''}>"

    return _TAG_WITH_STYLE.sub(rewrite_tag, html), frozenset(styles)


def write_math_stylesheet(styles: Iterable[str]) -> str:
    """Return the CSS rules for the style classes; !important keeps the priority inline styles had."""
    rules = []
    for style in sorted(set(styles), key=name_style_class):
        declarations = [d.strip() for d in style.split(";") if d.strip()]
        body = ";".join(f"{d}!important" for d in declarations)
        rules.append(f".katex .{name_style_class(style)}{{{body}}}")
    return "\n".join(rules) + "\n"


class KatexProcess:
    """A running KaTeX server. Start it early: node boots while Python parses."""

    def __init__(self, katex_script: Path) -> None:
        node = shutil.which("node")
        if node is None:
            raise BuildFailed([Diagnostic(Location("build.py", 1), "node is not installed; KaTeX needs it to render math")])
        if not katex_script.is_file():
            raise BuildFailed([Diagnostic(Location(str(katex_script), 1), "KaTeX is missing; run `npm ci`")])
        self._process = subprocess.Popen(
            [node, str(SERVER_SCRIPT), str(katex_script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def render(self, formulas: Iterable[tuple[str, bool]]) -> dict[tuple[str, bool], MathResult]:
        """Render every distinct (tex, display) pair in one request; return a result for each."""
        unique = sorted(set(formulas))
        if not unique:
            return {}
        assert self._process.stdin is not None and self._process.stdout is not None
        request = {"items": [{"tex": tex, "display": display} for tex, display in unique]}
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        answer = self._process.stdout.readline()
        if not answer:
            raise BuildFailed([Diagnostic(Location(str(SERVER_SCRIPT), 1), "the KaTeX process stopped unexpectedly")])
        results = {}
        for key, result in zip(unique, json.loads(answer)["results"]):
            if "error" in result:
                results[key] = MathResult(error=result["error"])
            else:
                html, styles = move_styles_to_classes(result["html"])
                results[key] = MathResult(html=html, styles=styles)
        return results

    def close(self) -> None:
        """Stop the server (closing stdin ends its read loop)."""
        if self._process.stdin:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout:
            self._process.stdout.close()

    def __enter__(self) -> KatexProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
