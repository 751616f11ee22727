"""One step of chapter 6's update rule on the recorded group, drawn from `rollout_lab.update` (chapter 6's figure).

Each answer's logit move is a bar; a dashed line marks the probability-weighted
average move. An answer gains probability exactly when its bar ends to the
right of that line, which is why a zero-signal answer can still lose.
"""

from html import escape
from typing import Any

from rollout_lab.display import format_number, format_signal
from rollout_lab.figures.base import Figure
from rollout_lab.record import run_lab
from rollout_lab.update import logit_step, probabilities_after_step

WIDTH, NAME_WIDTH, VALUE_WIDTH, ROW, TOP, BAR = 400, 150, 70, 44, 30, 18
STEP = 0.5  # the step chapter 6's cell takes


def _scale(moves: tuple[float, ...]) -> tuple[float, float]:
    reach = max(abs(m) for m in moves) or 1.0
    half = (WIDTH - NAME_WIDTH - VALUE_WIDTH) / 2
    return NAME_WIDTH + half, half / reach * 0.9


def describe_update_step(record: dict[str, Any]) -> str:
    """The figure in words, with the core's numbers."""
    moves = logit_step(record)
    after = probabilities_after_step(record, STEP)
    average = sum(c["probability"] * m for c, m in zip(record["candidates"], moves))
    rows = "; ".join(
        f"\u201c{c['completion']}\u201d: logit move {format_signal(m)}, probability {format_number(c['probability'])}"
        f" to {format_number(a)}"
        for c, m, a in zip(record["candidates"], moves, after)
    )
    return (
        f"One bar per answer shows how far one unit step of the update moves its logit for the recorded group; a dashed"
        f" line marks the probability-weighted average move, {format_signal(average)}. An answer gains probability only"
        f" if its bar ends to the right of the line. With a step of {format_number(STEP)}: {rows}."
    )


def render_update_step(record: dict[str, Any], *, title: str) -> str:
    """Return the bar chart as an SVG with <title> and <desc>."""
    moves = logit_step(record)
    after = probabilities_after_step(record, STEP)
    average = sum(c["probability"] * m for c, m in zip(record["candidates"], moves))
    middle, per_unit = _scale(moves)
    bottom = TOP + ROW * len(moves)
    parts = [f'<line class="chart-axis" stroke="currentColor" x1="{middle}" y1="{TOP - 6}" x2="{middle}" y2="{bottom}"></line>']
    for row, (candidate, move, p_after) in enumerate(zip(record["candidates"], moves, after)):
        y = TOP + row * ROW
        end = round(middle + move * per_unit, 2)
        x0, width = (min(middle, end), round(abs(end - middle), 2))
        parts.append(
            f'<text class="chart-label" x="0" y="{y + 14}">{escape(candidate["completion"])}</text>'
            f'<text class="chart-value" x="0" y="{y + 34}">{format_number(candidate["probability"])} \u2192 '
            f"{format_number(p_after)}</text>"
            f'<rect class="update-bar" fill-opacity="0.45" x="{round(x0, 2)}" y="{y + 4}" width="{width}" height="{BAR}"></rect>'
            f'<text class="chart-value" x="{WIDTH}" y="{y + 19}" text-anchor="end">{format_signal(move)}</text>'
        )
    line = round(middle + average * per_unit, 2)
    parts.append(
        f'<line class="update-average" stroke="currentColor" stroke-width="2" stroke-dasharray="5 4" '
        f'x1="{line}" y1="{TOP - 12}" x2="{line}" y2="{bottom}"></line>'
        f'<text class="chart-value" x="{line}" y="{TOP - 16}" text-anchor="middle">average {format_signal(average)}</text>'
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="update-step" viewBox="0 -4 {WIDTH} {bottom + 10}" '
        f'fill="currentColor"><title>{escape(title)}</title><desc>{escape(describe_update_step(record))}</desc>'
        f"{''.join(parts)}</svg>"
    )


class UpdateStepFigure(Figure):
    """Chapter 6's figure: one step of the update on the recorded group."""

    name = "update-step"
    title = "One step of the update on the recorded group: each answer's logit move against the average move"

    def draw(self) -> tuple[str, str]:
        record = run_lab()
        return describe_update_step(record), render_update_step(record, title=self.title)


FIGURE = UpdateStepFigure()
