"""PPO's clipped term against the ratio, drawn from `clipped_objective` itself (chapter 5's figure).

Two panels, as in the PPO paper's Figure 1: one for a positive signal, one for
a negative one. Every point of each line is the core's own value, so the
figure cannot disagree with the numbers in the prose.
"""

from html import escape

from rollout_lab.display import format_number, format_signal
from rollout_lab.figures.base import Figure
from rollout_lab.update import clipped_objective

PANEL_WIDTH, PANEL_HEIGHT, GAP, TOP, LEFT = 190, 150, 20, 40, 14
RHO_MAX = 2.0
SAMPLES = 40  # points per line: the kinks at 1 - eps and 1 + eps fall on samples for eps = 0.2


def _panel(advantage: float, epsilon: float, x_offset: float) -> str:
    rhos = [RHO_MAX * k / SAMPLES for k in range(SAMPLES + 1)]
    values = [clipped_objective(rho, advantage, epsilon) for rho in rhos]
    low, high = min(values + [0.0]), max(values + [0.0])
    span = (high - low) or 1.0

    def x_of(rho: float) -> float:
        return round(x_offset + LEFT + rho / RHO_MAX * (PANEL_WIDTH - 2 * LEFT), 2)

    def y_of(value: float) -> float:
        return round(TOP + 10 + (high - value) / span * (PANEL_HEIGHT - 20), 2)

    points = " ".join(f"{x_of(r)},{y_of(v)}" for r, v in zip(rhos, values))
    zero = y_of(0.0)
    bottom = TOP + PANEL_HEIGHT
    parts = [
        f'<text class="chart-label" x="{x_of(1.0)}" y="{TOP - 16}" text-anchor="middle">'
        f"signal {escape(format_signal(advantage))}</text>",
        f'<line class="chart-axis" stroke="currentColor" x1="{x_of(0)}" y1="{zero}" x2="{x_of(RHO_MAX)}" y2="{zero}"></line>',
        f'<line class="chart-axis" stroke="currentColor" x1="{x_of(0)}" y1="{TOP}" x2="{x_of(0)}" y2="{bottom}"></line>',
    ]
    for edge in (1.0 - epsilon, 1.0 + epsilon):
        parts.append(
            f'<line class="clip-edge" stroke="currentColor" stroke-dasharray="4 4" stroke-width="1" '
            f'x1="{x_of(edge)}" y1="{TOP}" x2="{x_of(edge)}" y2="{bottom}"></line>'
        )
    parts.append(f'<polyline class="clip-line" fill="none" stroke="currentColor" stroke-width="3" points="{points}"></polyline>')
    one = clipped_objective(1.0, advantage, epsilon)
    parts.append(f'<circle class="clip-start" cx="{x_of(1.0)}" cy="{y_of(one)}" r="5"></circle>')
    for rho, text in ((1.0 - epsilon, format_number(1.0 - epsilon)), (1.0 + epsilon, format_number(1.0 + epsilon))):
        anchor = "end" if rho < 1 else "start"
        shift = -3 if rho < 1 else 3
        parts.append(
            f'<text class="chart-value" x="{round(x_of(rho) + shift, 2)}" y="{bottom + 18}" text-anchor="{anchor}">{text}</text>'
        )
    parts.append(f'<text class="chart-value" x="{x_of(RHO_MAX)}" y="{bottom + 18}" text-anchor="end">\u03c1</text>')
    # The level where the term goes flat, written beside the flat stretch.
    flat_rho = RHO_MAX if advantage > 0 else 0.0
    flat = clipped_objective(flat_rho, advantage, epsilon)
    x, anchor = (x_of(RHO_MAX), "end") if advantage > 0 else (x_of(0) + 4, "start")
    parts.append(
        f'<text class="chart-value" x="{x}" y="{round(y_of(flat) - 8, 2)}" text-anchor="{anchor}">{format_number(flat)}</text>'
    )
    return "".join(parts)


def describe_clipped_objective(epsilon: float = 0.2) -> str:
    """The figure in words, with the core's values at the clipping edges."""
    low, high = format_number(1.0 - epsilon), format_number(1.0 + epsilon)
    up = format_number(clipped_objective(1.0 + epsilon, 1.0, epsilon))
    down = format_number(clipped_objective(1.0 - epsilon, -1.0, epsilon))
    return (
        f"Two panels plot PPO's clipped term min(\u03c1A, clip(\u03c1, {low}, {high})A) against the ratio \u03c1 from 0"
        f" to {format_number(RHO_MAX)}, with dashed lines at {low} and {high} and a dot at \u03c1 = 1. Left, signal +1:"
        f" the term rises with \u03c1 up to {high}, then stays flat at {up}; below {low} it keeps falling with \u03c1."
        f" Right, signal \u22121: the term is flat at {down} for every \u03c1 below {low}, then falls with \u03c1"
        f" through {high} and beyond."
    )


def render_clipped_objective(*, title: str, epsilon: float = 0.2) -> str:
    """Return the two-panel SVG with <title> and <desc>, as the build's figures are written."""
    width = 2 * PANEL_WIDTH + GAP
    height = TOP + PANEL_HEIGHT + 28
    panels = _panel(1.0, epsilon, 0) + _panel(-1.0, epsilon, PANEL_WIDTH + GAP)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="clipped-objective" viewBox="0 0 {width} {height}" '
        f'fill="currentColor"><title>{escape(title)}</title><desc>{escape(describe_clipped_objective(epsilon))}</desc>'
        f"{panels}</svg>"
    )


class ClippedObjectiveFigure(Figure):
    """Chapter 5's figure: PPO's clipped term, at the clip of 0.2."""

    name = "clipped-objective"
    title = "PPO's clipped term against the probability ratio, for a positive and a negative signal"

    def draw(self) -> tuple[str, str]:
        return describe_clipped_objective(), render_clipped_objective(title=self.title)


FIGURE = ClippedObjectiveFigure()
