"""content/figures/*.svg: check each figure against an allowlist and re-serialise it for inlining into the page.

A figure is inlined into the page, so whatever it contains runs with the
page's rights. It is parsed as XML (expat) and every element and attribute is
checked against an allowlist of drawing elements and presentation
attributes; links may only point inside the figure (`#id`). The page gets our
own serialisation of what was parsed, never the author's raw text, so a
parser trick (a processing instruction, a DOCTYPE with an internal subset, a
comment) cannot smuggle markup past the check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from html import escape
from xml.parsers import expat

from sitegen.diagnostics import Diagnostic, Finding, excerpt, finding, quote, report
from sitegen.messages import (
    BAD_FIGURE_FILE_NAME,
    FIGURE_ATTRIBUTE_REFUSED,
    FIGURE_BACKSLASH,
    FIGURE_DOCTYPE,
    FIGURE_ELEMENT_REFUSED,
    FIGURE_EVENT_HANDLER,
    FIGURE_NO_DESCRIPTION,
    FIGURE_NO_TITLE,
    FIGURE_NOT_SVG,
    FIGURE_NOT_XML,
    FIGURE_OUTSIDE_LINK,
    FIGURE_OUTSIDE_URL,
    FIGURE_PROCESSING_INSTRUCTION,
    FIGURE_STYLE_ATTRIBUTE,
    FIGURE_TOO_DEEP,
)
from sitegen.model import Figure, Source

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
XML = "http://www.w3.org/XML/1998/namespace"
FIGURE_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
ELEMENTS = frozenset(
    [
        "svg",
        "g",
        "defs",
        "title",
        "desc",
        "path",
        "rect",
        "circle",
        "ellipse",
        "line",
        "polyline",
        "polygon",
        "text",
        "tspan",
        "marker",
        "use",
        "symbol",
        "linearGradient",
        "radialGradient",
        "stop",
        "clipPath",
        "mask",
        "pattern",
    ]
)
# Word lists grouped by purpose: easier to read than a hundred quoted names.
ATTRIBUTE_GROUPS = (
    # geometry and structure
    "x y x1 y1 x2 y2 cx cy r rx ry fx fy fr width height d points dx dy rotate textLength lengthAdjust pathLength "
    "viewBox preserveAspectRatio transform id class version offset gradientUnits gradientTransform spreadMethod "
    "patternUnits patternContentUnits patternTransform markerWidth markerHeight markerUnits refX refY orient "
    "clipPathUnits maskUnits maskContentUnits href",
    # accessibility and language
    "role aria-label aria-labelledby aria-describedby aria-hidden focusable lang",
    # presentation attributes (the CSP forbids style attributes, so these carry the look)
    "fill fill-opacity fill-rule stroke stroke-width stroke-opacity stroke-dasharray stroke-dashoffset stroke-linecap "
    "stroke-linejoin stroke-miterlimit opacity color display visibility font-family font-size font-style font-weight "
    "font-variant font-stretch text-anchor dominant-baseline alignment-baseline baseline-shift letter-spacing "
    "word-spacing text-decoration writing-mode direction clip-path clip-rule mask marker-start marker-mid marker-end "
    "stop-color stop-opacity vector-effect paint-order shape-rendering text-rendering overflow",
)
ATTRIBUTES = frozenset(name for group in ATTRIBUTE_GROUPS for name in group.split())
# Attributes whose values are words for people, never read as CSS: the only ones a backslash may appear in.
# Any other value may be parsed as CSS, where `\75 rl(` is `url(` (a CSS escape), past the check below.
TEXT_ATTRIBUTES = frozenset(ATTRIBUTE_GROUPS[1].split()) | {"xml:lang", "xml:space"}
NAMESPACED_ATTRIBUTES = {f"{XLINK} href": "href", f"{XML} space": "xml:space", f"{XML} lang": "xml:lang"}
_URL_REFERENCE = re.compile(r"url\(\s*(['\"]?)\s*(?!#)", re.IGNORECASE)
# The CSS image functions that take an address as a plain string, no url() needed (`mask="image-set('…' 1x)"`).
_IMAGE_FUNCTION = re.compile(r"(?:image-set|image|cross-fade|src)\s*\(", re.IGNORECASE)
_SAME_DOCUMENT_URL = re.compile(r"url\(\s*(['\"]?)#([^'\")\s]+)\1\s*\)", re.IGNORECASE)
DEEPEST_NESTING = 100


@dataclass
class Element:
    """One parsed element: local name, attributes as written in the output, line, content (text and elements)."""

    name: str
    attributes: list[tuple[str, str]]
    line: int
    content: list[Element | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(part if isinstance(part, str) else part.text() for part in self.content)


class _Refused(Exception):
    def __init__(self, line: int, problem: Finding) -> None:
        super().__init__(problem.text())
        self.line = line
        self.problem = problem


def figure_name(source: Source) -> str:
    """Return the name a `::: figure` container uses for this file: its stem."""
    return source.name.rsplit("/", 1)[-1].removesuffix(".svg")


def parse_figure(source: Source) -> tuple[Figure | None, list[Diagnostic]]:
    """Read one SVG: checked against the allowlist, with a <title> and <desc>; return the figure or the problems."""
    figure, problems = _parse_figure(source)
    return figure, list(problems)


# Remembered by the file (path and text): the dev server checks every figure
# on each rebuild, and an SVG's parse costs ~10 ms; the result depends on nothing else.
@lru_cache(maxsize=256)
def _parse_figure(source: Source) -> tuple[Figure | None, tuple[Diagnostic, ...]]:
    figure, problems = _check_figure(source)
    return figure, tuple(problems)


def _check_figure(source: Source) -> tuple[Figure | None, list[Diagnostic]]:
    name = figure_name(source)
    if not FIGURE_NAME.match(name):
        return None, [report(source.at(0), BAD_FIGURE_FILE_NAME, name=excerpt(name))]
    try:
        root = parse_svg(source.text)
    except _Refused as refused:
        return None, [refused.problem.at(source.at(refused.line))]
    problems: dict[str, Diagnostic] = {}  # one line per distinct problem, at its first place
    if root.name != f"{SVG} svg":
        return None, [report(source.at(root.line), FIGURE_NOT_SVG)]
    for problem, line in check_elements(root):
        problems.setdefault(problem.text(), problem.at(source.at(line)))
    title = _child(root, "title")
    description = _child(root, "desc")
    if title is None or not title.text().strip():
        problems.setdefault("title", report(source.at(root.line), FIGURE_NO_TITLE))
    if description is None or not description.text().strip():
        problems.setdefault("desc", report(source.at(root.line), FIGURE_NO_DESCRIPTION))
    if problems:
        return None, list(problems.values())
    assert title is not None and description is not None
    return (
        Figure(
            name=name,
            title=" ".join(title.text().split()),
            description=" ".join(description.text().split()),
            svg=serialise(root, f"figure-{name}--"),
            location=source.at(root.line),
        ),
        [],
    )


def parse_svg(text: str) -> Element:
    """Parse the SVG text into Elements; refuse a DOCTYPE, entity declarations and processing instructions."""
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.ordered_attributes = True
    stack: list[Element] = []
    finished: list[Element] = []

    def start(name: str, attributes: list[str]) -> None:
        if len(stack) >= DEEPEST_NESTING:  # serialising is recursive: keep it far from Python's recursion limit
            raise _Refused(parser.CurrentLineNumber, finding(FIGURE_TOO_DEEP, depth=DEEPEST_NESTING))
        element = Element(name, list(zip(attributes[::2], attributes[1::2])), parser.CurrentLineNumber)
        if stack:
            stack[-1].content.append(element)
        stack.append(element)

    def end(_name: str) -> None:
        finished.append(stack.pop())

    def characters(data: str) -> None:
        if stack:
            stack[-1].content.append(data)

    def refuse_doctype(*_arguments: object) -> None:
        raise _Refused(parser.CurrentLineNumber, finding(FIGURE_DOCTYPE))

    def refuse_instruction(target: str, _data: str) -> None:
        raise _Refused(parser.CurrentLineNumber, finding(FIGURE_PROCESSING_INSTRUCTION, target=excerpt(target)))

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    parser.StartDoctypeDeclHandler = refuse_doctype
    parser.EntityDeclHandler = refuse_doctype
    parser.ProcessingInstructionHandler = refuse_instruction
    try:
        parser.Parse(text, True)
    except expat.ExpatError as error:
        raise _Refused(error.lineno, finding(FIGURE_NOT_XML, problem=expat.ErrorString(error.code))) from None
    return finished[-1]


def check_elements(root: Element) -> list[tuple[Finding, int]]:
    """Return (problem, line) for every element or attribute outside the allowlist."""
    found = []
    pending = [root]
    while pending:
        element = pending.pop()
        namespace, _, local = element.name.rpartition(" ")
        if namespace != SVG or local not in ELEMENTS:
            shown = local if namespace in (SVG, "") else element.name.replace(" ", ":")
            found.append((finding(FIGURE_ELEMENT_REFUSED, element=excerpt(shown)), element.line))
            continue
        for attribute, value in element.attributes:
            problem = check_attribute(attribute, value)
            if problem is not None:
                found.append((problem, element.line))
        pending += [part for part in element.content if isinstance(part, Element)]
    return sorted(found, key=lambda problem: problem[1])


def check_attribute(attribute: str, value: str) -> Finding | None:
    """Return what is wrong with one attribute, or None."""
    name = NAMESPACED_ATTRIBUTES.get(attribute, attribute)
    if name == "style":
        return finding(FIGURE_STYLE_ATTRIBUTE)
    if name.lower().startswith("on"):
        return finding(FIGURE_EVENT_HANDLER, attribute=excerpt(name))
    if name not in ATTRIBUTES and name not in ("xml:space", "xml:lang"):
        return finding(FIGURE_ATTRIBUTE_REFUSED, attribute=excerpt(name.replace(" ", ":")))
    if name == "href" and not value.strip().startswith("#"):
        return finding(FIGURE_OUTSIDE_LINK, value=quote(value))
    if name not in TEXT_ATTRIBUTES and "\\" in value:
        return finding(FIGURE_BACKSLASH, value=quote(value))
    if _URL_REFERENCE.search(value) or (name not in TEXT_ATTRIBUTES and _IMAGE_FUNCTION.search(value)):
        return finding(FIGURE_OUTSIDE_URL, value=quote(value))
    return None


def serialise(element: Element, id_prefix: str) -> str:
    """Return the element as markup: our own escaping, ids prefixed so they cannot clash with the page's."""
    namespace, _, local = element.name.rpartition(" ")
    attributes = [("xmlns", SVG)] if local == "svg" and namespace == SVG else []
    for attribute, value in element.attributes:
        name = NAMESPACED_ATTRIBUTES.get(attribute, attribute)
        if name == "id":
            value = id_prefix + value
        elif name in ("aria-labelledby", "aria-describedby"):
            value = " ".join(id_prefix + reference for reference in value.split())
        elif name == "href":
            value = "#" + id_prefix + value.strip()[1:]
        else:
            value = _SAME_DOCUMENT_URL.sub(lambda match: f"url(#{id_prefix}{match.group(2)})", value)
        attributes.append((name, value))
    opening = local + "".join(f' {name}="{escape(value, quote=True)}"' for name, value in attributes)
    if not element.content:
        return f"<{opening}/>"
    inner = "".join(
        escape(part, quote=False) if isinstance(part, str) else serialise(part, id_prefix) for part in element.content
    )
    return f"<{opening}>{inner}</{local}>"


def _child(root: Element, local: str) -> Element | None:
    return next((part for part in root.content if isinstance(part, Element) and part.name == f"{SVG} {local}"), None)
