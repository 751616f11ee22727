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
import subprocess
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from sitegen.check.node_process import kill_node
from sitegen.diagnostics import BuildFailed, Location, report
from sitegen.files.atomic import write_atomically
from sitegen.files.limited_read import read_limited
from sitegen.files.paths import KATEX_SCRIPT, MATH_CACHE
from sitegen.messages import (
    KATEX_MISSING,
    KATEX_STOPPED,
    NODE_MISSING_FOR_MATH,
)
from sitegen.node import find_node

if TYPE_CHECKING:
    from sitegen.model import MathResult

SERVER_SCRIPT = Path(__file__).with_name("katex_server.cjs")
MATH_CACHE_LIMIT = 5000
# What one request (a build's formulas; a dev server's rebuild's new ones) may spend rendering, in seconds
# (katex_server.cjs): the tutorial's formulas take well under one.
KATEX_BUDGET_SECONDS = 20
# MATH_CACHE_LIMIT formulas take about 100 MB at most; a larger file is not read, only rebuilt (a slower build).
MATH_CACHE_BYTES = 256 * 2**20

# What KaTeX writes with trust off (no \href, \url, \includegraphics or \html…, refused before they render): these
# elements and attributes, quoted values without markup, styles of plain declarations. An answer read from the cache
# file is used only if its HTML is of this kind, any other formula is rendered again: the file is the build's own,
# but CI restores it by key prefix (another branch's build may have written it), and a planted `<img onerror>` was
# published on 639 pages. A stricter list than KaTeX's costs a formula its cached answer, never a wrong page.
KATEX_ELEMENTS = frozenset(
    [
        "span",
        "svg",
        "path",
        "line",
        "math",
        "semantics",
        "annotation",
        "mrow",
        "mi",
        "mn",
        "mo",
        "ms",
        "mtext",
        "mspace",
        "msup",
        "msub",
        "msubsup",
        "mfrac",
        "msqrt",
        "mroot",
        "mover",
        "munder",
        "munderover",
        "mtable",
        "mtr",
        "mtd",
        "mlabeledtr",
        "menclose",
        "mpadded",
        "mphantom",
        "mstyle",
        "mglyph",
    ]
)
KATEX_ATTRIBUTES = frozenset(
    [
        "class",
        "style",
        "aria-hidden",
        "xmlns",
        "encoding",
        "accent",
        "accentunder",
        "columnalign",
        "columnlines",
        "columnspacing",
        "d",
        "depth",
        "display",
        "displaystyle",
        "fence",
        "height",
        "largeop",
        "linebreak",
        "linethickness",
        "lspace",
        "mathbackground",
        "mathcolor",
        "mathsize",
        "mathvariant",
        "maxsize",
        "minsize",
        "notation",
        "rowlines",
        "rowspacing",
        "rspace",
        "scriptlevel",
        "separator",
        "stretchy",
        "voffset",
        "width",
        "viewBox",
        "preserveAspectRatio",
        "x1",
        "x2",
        "y1",
        "y2",
        "stroke-width",
    ]
)
_ANY_TAG = re.compile(r"<[^<>]*>")
_KATEX_TAG = re.compile(r'</?([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-zA-Z][\w:-]*="[^"<>]*")*)\s*/?>')
_KATEX_STYLE = re.compile(r"[-#%,.0-9:;a-zA-Z ]*")
_TAG_WITH_STYLE = re.compile(r'<([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"]*")*?\s+style="[^"]*"(?:\s+[\w:-]+="[^"]*")*)\s*(/?)>')
_ATTRIBUTE = re.compile(r'\s+([\w:-]+)="([^"]*)"')


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


def is_katex_html(html: object) -> bool:
    """Say whether `html` is markup KaTeX writes (KATEX_ELEMENTS, KATEX_ATTRIBUTES): what a cached answer must be."""
    if not isinstance(html, str):
        return False
    tags = _ANY_TAG.findall(html)
    # Each tag holds one < and one >: any other is in text, where KaTeX writes neither.
    if not html.count("<") == html.count(">") == len(tags):
        return False
    return all(map(is_katex_tag, set(tags)))


# A formula's tags are few and much the same across formulas: each distinct one is checked once.
@lru_cache(maxsize=4096)
def is_katex_tag(tag: str) -> bool:
    """Say whether one tag (`<span class="mord">`, `</span>`) is one KaTeX writes."""
    match = _KATEX_TAG.fullmatch(tag)
    if match is None or match.group(1) not in KATEX_ELEMENTS:
        return False
    attributes = _ATTRIBUTE.findall(match.group(2))
    return all(name in KATEX_ATTRIBUTES and (name != "style" or _KATEX_STYLE.fullmatch(value)) for name, value in attributes)


def is_katex_answer(answer: object) -> bool:
    """Say whether a cached answer is one KaTeX's server gives: its HTML (is_katex_html), or an error's text."""
    if not isinstance(answer, dict):
        return False
    if "html" in answer:
        return is_katex_html(answer["html"])
    return isinstance(answer.get("error"), str)


def write_math_stylesheet(styles: Iterable[str]) -> str:
    """Return the CSS rules for the style classes; !important keeps the priority inline styles had."""
    rules = []
    for style in sorted(set(styles), key=name_style_class):
        declarations = [d.strip() for d in style.split(";") if d.strip()]
        body = ";".join(f"{d}!important" for d in declarations)
        rules.append(f".katex .{name_style_class(style)}{{{body}}}")
    return "\n".join(rules) + "\n"


class MathRenderer(Protocol):
    """What the pipeline needs of KaTeX: KatexProcess, and the renderer that wraps it (serve/incremental.py)."""

    def render(self, formulas: Iterable[tuple[str, bool]]) -> dict[tuple[str, bool], MathResult]:
        """Return a result for each distinct (tex, display) formula."""
        ...


class KatexProcess:
    """The build's one KaTeX server, with a cache of earlier results.

    Start node early (`start_now=True`): it boots while Python imports and
    parses. With a cache file, formulas rendered by an earlier build are
    answered from it, and node is only started if some formula is new, so a
    rebuild without new math never starts node at all. Results are cached
    per KaTeX build and server script, so upgrading KaTeX invalidates them.
    """

    def __init__(
        self,
        katex_script: Path,
        cache_file: Path | None = None,
        start_now: bool = True,
        budget_seconds: float = KATEX_BUDGET_SECONDS,
    ) -> None:
        """`budget_seconds`: what the process may spend rendering in all (katex_server.cjs)."""
        # node and KaTeX are needed only when a formula is not in the cache:
        # a missing one is reported then, not before (load_project lists every
        # missing front-end file in one go).
        self._node = find_node()
        self._katex_script = katex_script
        self._cache_file = cache_file
        self._budget_seconds = budget_seconds
        self._process: subprocess.Popen[str] | None = None
        if start_now and self._node is not None and katex_script.is_file():
            self._start()

    def _start(self) -> subprocess.Popen[str]:
        if self._process is None:
            if self._node is None:
                raise BuildFailed([report(Location("build.py", 0), NODE_MISSING_FOR_MATH)])
            if not self._katex_script.is_file():
                raise BuildFailed([report(Location(str(self._katex_script), 0), KATEX_MISSING)])
            self._process = subprocess.Popen(
                [str(self._node), str(SERVER_SCRIPT), str(self._katex_script), str(self._budget_seconds)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
            )
        return self._process

    def render(self, formulas: Iterable[tuple[str, bool]]) -> dict[tuple[str, bool], MathResult]:
        """Render every distinct (tex, display) pair (at most one request to node); return a result for each."""
        # Imported here, not above: `build` starts node before it imports the model (and markdown-it with it).
        from sitegen.model import MathResult

        unique = sorted(set(formulas))
        cached = self._read_cache()
        missing = [key for key in unique if _cache_key(key) not in cached]
        answers = {_cache_key(key): cached[_cache_key(key)] for key in unique if _cache_key(key) in cached}
        if missing:
            answers.update(zip(map(_cache_key, missing), self._ask_node(missing)))
        if self._cache_file is not None and missing:
            # Keep earlier entries too (tests and drafts build other content
            # folders); start afresh only if the cache has grown unreasonably.
            # A formula that ran out of time is cached too (its failure): every build and check would
            # otherwise spend its 2 s on it again. One left unrendered when the budget ran out is not.
            kept = cached if len(cached) < MATH_CACHE_LIMIT else {}
            self._write_cache({**kept, **{key: answer for key, answer in answers.items() if not answer.get("unrendered")}})
        results = {}
        for key in unique:
            answer = answers[_cache_key(key)]
            if "error" in answer:
                results[key] = MathResult(error=answer["error"], tried=not answer.get("unrendered"))
            else:
                html, styles = move_styles_to_classes(answer["html"])
                results[key] = MathResult(html=html, styles=styles)
        return results

    def _ask_node(self, formulas: list[tuple[str, bool]]) -> list[dict[str, Any]]:
        process = self._start()
        assert process.stdin is not None and process.stdout is not None
        request = {"items": [{"tex": tex, "display": display} for tex, display in formulas]}
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        answer = process.stdout.readline()
        if not answer:
            raise BuildFailed([report(Location(str(SERVER_SCRIPT), 0), KATEX_STOPPED)])
        results: list[dict[str, Any]] = json.loads(answer)["results"]
        return results

    def _fingerprint(self) -> str:
        digest = hashlib.sha256(self._katex_script.read_bytes() + SERVER_SCRIPT.read_bytes())
        return digest.hexdigest()[:16]

    def _read_cache(self) -> dict[str, dict[str, Any]]:
        if self._cache_file is None or not self._cache_file.is_file():
            return {}
        try:
            stored = json.loads(read_limited(self._cache_file, MATH_CACHE_BYTES).decode("utf-8"))
        except (OSError, ValueError):
            return {}  # a damaged (or impossibly large) cache is only a slower build
        if not isinstance(stored, dict) or stored.get("fingerprint") != self._fingerprint():
            return {}
        formulas = stored.get("formulas")
        if not isinstance(formulas, dict):
            return {}
        return {key: answer for key, answer in formulas.items() if is_katex_answer(answer)}

    def _write_cache(self, answers: dict[str, dict[str, Any]]) -> None:
        assert self._cache_file is not None
        write_atomically(self._cache_file, json.dumps({"fingerprint": self._fingerprint(), "formulas": answers}, sort_keys=True))

    @property
    def is_running(self) -> bool:
        """Say whether node was started (it is not when every formula came from the cache)."""
        return self._process is not None

    def close(self) -> None:
        """Stop the server if it was started.

        Killed rather than asked to exit: it holds no state worth flushing, and
        a node still loading KaTeX would otherwise keep the build waiting.
        """
        process, self._process = self._process, None
        kill_node(process)

    def __enter__(self) -> KatexProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _cache_key(formula: tuple[str, bool]) -> str:
    tex, display = formula
    return ("display:" if display else "inline:") + tex


def start_katex(root: Path) -> KatexProcess:
    """Return the commands' KaTeX process for the project at root (use it as a context manager).

    node starts at once, to boot while Python imports and parses, unless
    earlier results are cached: then it starts only if a formula is new.
    """
    cache = root / MATH_CACHE
    return KatexProcess(root / KATEX_SCRIPT, cache, start_now=not cache.is_file())
