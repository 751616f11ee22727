"""The draw rule as a figure: [0, 1) split at the running totals of the probabilities, each draw's u marked.

The sampler widget shows it under its table, for the group on screen; chapter 4
shows the recorded run's as the figure `draw-rule` (FIGURE below).
Standard library only: the browser draws it in Pyodide.
"""

from html import escape
from typing import Any

from rollout_lab.display import format_u
from rollout_lab.figures.base import Figure
from rollout_lab.record import run_lab
from rollout_lab.sampling import running_totals

# The followed draw of chapter 4 ("Follow draw 3").
FOLLOWED_DRAW = 3
FOLLOW_SYMBOL = "\u25b2"  # a shape as well as a colour marks the followed draw in the chart
# Up to this many draws, the charts number every draw; past it only the followed one (the numbers would crowd).
NUMBERED_DRAWS = 16

STRIP_WIDTH, STRIP_LEFT, STRIP_TOP, STRIP_HEIGHT = 400, 12, 46, 40
# Draw labels sit in two rows above the strip, so two draws with close u both keep their number.
LABEL_ROWS = (STRIP_TOP - 8, STRIP_TOP - 26)
# Draw numbers carry a "#" so that they never read like the answers `5` and `6` beside them.
DRAW_PREFIX = "#"
# Width of a character at the charts' type size, for deciding whether a label fits.
_CHARACTER_WIDTH = 9.0


def _strip_x(value: float) -> float:
    return round(STRIP_LEFT + value * (STRIP_WIDTH - 2 * STRIP_LEFT), 2)


def _place_labels(wanted: list[tuple[float, str, str]], gap: float) -> list[tuple[float, str, str]]:
    """Keep labels (x, text, class) in the given order of importance, dropping any that would overlap one kept."""
    kept: list[tuple[float, str, str]] = []
    for x, text, css in wanted:
        half = len(text) * _CHARACTER_WIDTH / 2
        if all(abs(x - other) >= half + len(other_text) * _CHARACTER_WIDTH / 2 + gap for other, other_text, _ in kept):
            kept.append((x, text, css))
    return kept


def _place_labels_in_rows(wanted: list[tuple[float, str, str]], gap: float) -> list[tuple[float, str, str, int]]:
    """Place labels (x, text, class) in order of importance in the first row where none overlaps; drop the rest."""
    rows: list[list[tuple[float, str, str]]] = [[] for _ in LABEL_ROWS]
    placed = []
    for label in wanted:
        for number, row in enumerate(rows):
            if _place_labels([*row, label], gap) == [*row, label]:
                row.append(label)
                placed.append((*label, LABEL_ROWS[number]))
                break
    return placed


def describe_draw_rule(record: dict[str, Any]) -> str:
    """The strip in words: where each candidate's part of [0, 1) lies, and where the followed draw's u falls."""
    totals = running_totals([candidate["probability"] for candidate in record["candidates"]])
    edges = ["0"] + [format_u(total) for total in totals[:-1]] + ["1"]
    parts = "; ".join(
        f"\u201c{candidate['completion']}\u201d from {start} to {end}"
        for candidate, start, end in zip(record["candidates"], edges, edges[1:])
    )
    followed = [draw for draw in record["draws"] if draw["draw"] == FOLLOWED_DRAW]
    point = (
        f" Draw {FOLLOWED_DRAW}, highlighted, has u = {format_u(followed[0]['u'])}, which falls in the part of"
        f" \u201c{followed[0]['completion']}\u201d."
        if followed
        else ""
    )
    return f"The interval from 0 to 1 split by the running totals of the probabilities: {parts}. Each draw's u is marked.{point}"


def render_draw_rule(record: dict[str, Any], *, title: str | None = None) -> str:
    """Return the draw rule as an SVG strip: [0, 1) split by the running totals, each draw's u marked.

    The sampler shows it under its table (labelled by an aria-label). With a
    title it is a stand-alone figure with <title> and <desc>, the way the
    build's figures are written: chapter 4 shows the recorded run's this way.
    """
    probabilities = [candidate["probability"] for candidate in record["candidates"]]
    totals = running_totals(probabilities)
    bottom = STRIP_TOP + STRIP_HEIGHT
    parts = []
    start = 0.0
    for candidate, total in zip(record["candidates"], totals):
        x0, x1 = _strip_x(start), _strip_x(min(total, 1.0))
        parts.append(
            f'<rect class="strip-segment strip-candidate-{candidate["index"]}" x="{x0}" y="{STRIP_TOP}" '
            f'width="{round(x1 - x0, 2)}" height="{STRIP_HEIGHT}"></rect>'
        )
        if (x1 - x0) >= len(candidate["completion"]) * _CHARACTER_WIDTH + 10:
            parts.append(
                f'<text class="strip-name" x="{round((x0 + x1) / 2, 2)}" y="{STRIP_TOP + 26}" text-anchor="middle">'
                f"{escape(candidate['completion'])}</text>"
            )
        start = total
    draws = record["draws"]
    followed = [draw for draw in draws if draw["draw"] == FOLLOWED_DRAW]
    others = [draw for draw in draws if draw["draw"] != FOLLOWED_DRAW]
    for draw in others + followed:  # the followed mark is drawn last, on top
        css = "strip-u strip-u-followed" if draw["draw"] == FOLLOWED_DRAW else "strip-u"
        x = _strip_x(draw["u"])
        parts.append(
            f'<line class="{css}" data-draw="{draw["draw"]}" data-u="{format_u(draw["u"])}" '
            f'x1="{x}" y1="{STRIP_TOP - 4}" x2="{x}" y2="{bottom + 4}"></line>'
        )
    draw_labels = _place_labels_in_rows(
        [(_strip_x(d["u"]), f"{DRAW_PREFIX}{d['draw']}{FOLLOW_SYMBOL}", " chart-label-followed") for d in followed]
        + ([(_strip_x(d["u"]), f"{DRAW_PREFIX}{d['draw']}", "") for d in others] if len(draws) <= NUMBERED_DRAWS else []),
        gap=5,
    )
    parts += [
        f'<text class="chart-label{css}" x="{x}" y="{y}" text-anchor="middle">{text}</text>' for x, text, css, y in draw_labels
    ]
    edges = [(0.0, "0")] + [(total, format_u(total)) for total in totals[:-1]] + [(1.0, "1")]
    edge_labels = _place_labels([(_strip_x(value), text, "") for value, text in edges[:1] + edges[-1:] + edges[1:-1]], gap=6)
    parts += [
        f'<text class="chart-value" x="{x}" y="{bottom + 22}" text-anchor="{_anchor(x)}">{text}</text>'
        for x, text, _ in edge_labels
    ]
    # A key: colour alone must not carry which part is whose.
    key_y, key_x = bottom + 50, float(STRIP_LEFT)
    for candidate in record["candidates"]:
        parts.append(
            f'<rect class="strip-segment strip-candidate-{candidate["index"]}" x="{key_x}" y="{key_y - 13}" width="16" height="16"></rect>'
            f'<text class="chart-label" x="{key_x + 22}" y="{key_y}">{escape(candidate["completion"])}</text>'
        )
        key_x += 22 + len(candidate["completion"]) * _CHARACTER_WIDTH + 22
    height = key_y + 8
    description = describe_draw_rule(record)
    if title is None:
        return (
            f'<svg class="lab-chart draw-rule" viewBox="0 0 {STRIP_WIDTH} {height}" role="img" '
            f'aria-label="The draw rule. {escape(description)}">{"".join(parts)}</svg>\n'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="draw-rule" viewBox="0 0 {STRIP_WIDTH} {height}">'
        f"<title>{escape(title)}</title><desc>{escape(description)}</desc>{''.join(parts)}</svg>"
    )


def _anchor(x: float) -> str:
    if x <= STRIP_LEFT:
        return "start"
    return "end" if x >= STRIP_WIDTH - STRIP_LEFT else "middle"


class DrawRuleFigure(Figure):
    """Chapter 4's figure: the recorded run's draw rule."""

    name = "draw-rule"
    title = "The draw rule for the recorded run: [0, 1) split by the running totals, each draw's u marked"

    def draw(self) -> tuple[str, str]:
        record = run_lab()
        return describe_draw_rule(record), render_draw_rule(record, title=self.title)


FIGURE = DrawRuleFigure()
