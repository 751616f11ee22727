"""The training lab's reward-KL frontier over the KL weight beta, drawn from `run_training` itself (chapter 6's figure).

One point per beta: where the recorded run (every other setting at its
default) ends after its last round, its expected reward against its KL
divergence from the reference. A larger beta keeps the policy closer to the
reference and buys less reward: the trade chapter 5's KL penalty makes.
"""

from html import escape
from typing import Any

from rollout_lab.display import format_number
from rollout_lab.figures.base import Figure
from rollout_lab.learning.training import run_training

KL_WEIGHTS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0)
# 420 units wide, so its 16-unit type stays at least 12 px on a 390 px screen.
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 420, 280, 64, 60, 20, 48


def trace_frontier() -> list[dict[str, Any]]:
    """Return, for each beta of KL_WEIGHTS, the recorded run's expected reward and KL after its last round."""
    points = []
    for beta in KL_WEIGHTS:
        last = run_training(kl_weight=beta)["rounds"][-1]
        points.append({"kl_weight": beta, "expected_reward": last["expected_reward"], "kl": last["kl"]})
    return points


def describe_reward_kl_frontier(points: list[dict[str, Any]]) -> str:
    """The figure in words, with the core's numbers."""
    rows = "; ".join(
        f"\u03b2 = {format_number(p['kl_weight'])}: KL {format_number(p['kl'])}, expected reward {format_number(p['expected_reward'])}"
        for p in points
    )
    return (
        "One point per KL weight \u03b2 shows where the training lab's recorded run ends after its last round: its KL"
        f" divergence from the reference policy across, its expected reward up. {rows}."
    )


def render_reward_kl_frontier(points: list[dict[str, Any]], *, title: str) -> str:
    """Return the scatter of (KL, expected reward) points, joined in order of beta, as an SVG with <title> and <desc>."""
    kls: list[float] = [p["kl"] for p in points]
    rewards: list[float] = [p["expected_reward"] for p in points]
    kl_high = max(kls) or 1.0
    low, high = min(rewards), max(rewards)
    span = (high - low) or 1.0

    def x_of(kl: float) -> float:
        return round(LEFT + kl / kl_high * (WIDTH - LEFT - RIGHT), 2)

    def y_of(reward: float) -> float:
        return round(TOP + (high - reward) / span * (HEIGHT - TOP - BOTTOM), 2)

    bottom = HEIGHT - BOTTOM
    parts = [
        f'<line class="chart-axis" stroke="currentColor" x1="{LEFT}" y1="{bottom}" x2="{WIDTH - RIGHT}" y2="{bottom}"></line>'
        f'<line class="chart-axis" stroke="currentColor" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}"></line>'
        f'<text class="chart-value" x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 8}" text-anchor="middle">'
        "KL from the reference after the last round</text>"
        f'<text class="chart-value" x="{LEFT - 6}" y="{TOP + 4}" text-anchor="end">{format_number(high)}</text>'
        f'<text class="chart-value" x="{LEFT - 6}" y="{bottom}" text-anchor="end">{format_number(low)}</text>'
        f'<text class="chart-value" x="{LEFT}" y="{bottom + 16}" text-anchor="middle">0</text>'
        f'<text class="chart-value" x="{x_of(kl_high)}" y="{bottom + 16}" text-anchor="middle">{format_number(kl_high)}</text>'
    ]
    line = " ".join(f"{x_of(p['kl'])},{y_of(p['expected_reward'])}" for p in points)
    parts.append(f'<polyline class="frontier-line" fill="none" stroke="currentColor" points="{line}"></polyline>')
    for index, p in enumerate(points):
        x, y = x_of(p["kl"]), y_of(p["expected_reward"])
        # Neighbouring betas can end close together: their labels alternate below-right and above-left; near the
        # reward axis (the largest betas) there is no room on the left, so they stand beside the point, on its right.
        if p["kl"] < 0.15 * kl_high:
            label_x, label_y, anchor = x + 9, y + 5, "start"
        elif index % 2 == 0:
            label_x, label_y, anchor = x + 6, y + 16, "start"
        else:
            label_x, label_y, anchor = x - 6, y - 9, "end"
        parts.append(
            f'<circle class="frontier-point" cx="{x}" cy="{y}" r="4"></circle>'
            f'<text class="chart-value" x="{round(label_x, 2)}" y="{round(label_y, 2)}" text-anchor="{anchor}">'
            f"\u03b2 = {format_number(p['kl_weight'])}</text>"
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="reward-kl-frontier" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'fill="currentColor"><title>{escape(title)}</title><desc>{escape(describe_reward_kl_frontier(points))}</desc>'
        f"{''.join(parts)}</svg>"
    )


class RewardKlFrontierFigure(Figure):
    """Chapter 6's figure: the training lab's reward against KL, one point per KL weight."""

    name = "reward-kl-frontier"
    title = "The training lab's trade: expected reward against KL from the reference, one point per KL weight"

    def draw(self) -> tuple[str, str]:
        points = trace_frontier()
        return describe_reward_kl_frontier(points), render_reward_kl_frontier(points, title=self.title)


FIGURE = RewardKlFrontierFigure()
