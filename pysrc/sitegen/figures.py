"""content/figures/*.svg: check each figure and prepare it for inlining into the page."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

from sitegen.diagnostics import Diagnostic, report_error
from sitegen.model import Figure, Source

SVG_NAMESPACE = "{http://www.w3.org/2000/svg}"
_ROOT_TAG = re.compile(r"<svg\b[^>]*>", re.DOTALL)
_PROLOGUE = re.compile(r"\A(?:\s|<\?xml[^>]*\?>|<!--.*?-->|<!DOCTYPE[^>]*>)*", re.DOTALL)
# The page's Content-Security-Policy blocks these inside an inlined SVG.
_FORBIDDEN = (
    (re.compile(r"<script\b", re.IGNORECASE), "a <script> element"),
    (re.compile(r"<style\b", re.IGNORECASE), "a <style> element"),
    (re.compile(r"\sstyle\s*=", re.IGNORECASE), "a style attribute"),
    (re.compile(r"\son[a-z]+\s*=", re.IGNORECASE), "an event-handler attribute"),
)


def figure_name(source: Source) -> str:
    """Return the name a `::: figure` container uses for this file: its stem."""
    return source.name.rsplit("/", 1)[-1].removesuffix(".svg")


def parse_figure(source: Source) -> tuple[Figure | None, list[Diagnostic]]:
    """Read one SVG: its <title> and <desc> are required; return the figure or the problems."""
    try:
        root = ElementTree.fromstring(source.text)
    except ElementTree.ParseError as error:
        line = error.position[0] if error.position else 1
        return None, [
            report_error(source.at(line), f"figure is not valid SVG/XML: {error.msg if hasattr(error, 'msg') else error}")
        ]
    problems = []
    if root.tag != SVG_NAMESPACE + "svg":
        problems.append(
            report_error(
                source.at(1), 'figure must be an <svg> element in the SVG namespace (xmlns="http://www.w3.org/2000/svg")'
            )
        )
    title = root.find(SVG_NAMESPACE + "title")
    description = root.find(SVG_NAMESPACE + "desc")
    root_line = _line_of(source.text, _ROOT_TAG)
    if title is None or not "".join(title.itertext()).strip():
        problems.append(report_error(source.at(root_line), "figure SVG needs a <title> (the figure's title)"))
    if description is None or not "".join(description.itertext()).strip():
        problems.append(report_error(source.at(root_line), "figure SVG needs a <desc> (the figure's long description)"))
    for pattern, what in _FORBIDDEN:
        if pattern.search(source.text):
            problems.append(
                report_error(
                    source.at(_line_of(source.text, pattern)),
                    f"figure SVG must not contain {what} (the site's Content-Security-Policy blocks it)",
                )
            )
    if problems:
        return None, problems
    assert title is not None and description is not None
    return (
        Figure(
            name=figure_name(source),
            title=" ".join("".join(title.itertext()).split()),
            description=" ".join("".join(description.itertext()).split()),
            svg=_PROLOGUE.sub("", source.text).strip(),
            location=source.at(root_line),
        ),
        [],
    )


def inline_figure_svg(figure: Figure, anchor: str) -> str:
    """Return the SVG markup for the page: labelled by its own title and desc, ids made unique."""
    svg = figure.svg
    svg = re.sub(r"<title\b[^>]*>", f'<title id="{anchor}-title">', svg, count=1)
    svg = re.sub(r"<desc\b[^>]*>", f'<desc id="{anchor}-desc">', svg, count=1)
    root = _ROOT_TAG.search(svg)
    assert root is not None
    tag = root.group(0)
    tag = re.sub(r'\s(?:role|aria-labelledby|aria-describedby)="[^"]*"', "", tag)
    tag = tag[:-1].rstrip("/ ").rstrip() + f' role="img" aria-labelledby="{anchor}-title" aria-describedby="{anchor}-desc">'
    return svg[: root.start()] + tag + svg[root.end() :]


def _line_of(text: str, pattern: re.Pattern[str]) -> int:
    match = pattern.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else 1
