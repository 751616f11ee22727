"""Figures drawn by the core at build time, placed like any other with `::: figure NAME`.

Their numbers come from the same run and the same renderer as the lab, so a
figure of the recorded run cannot disagree with the lab beside it. A file in
content/figures/ with the same name would take precedence.

Each figure is one row of `GENERATED_FIGURES`: the chart module that describes and
draws it, and where its data comes from. Modules are imported only for the
figures a book places, so a book without them never imports the charts.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass

from sitegen.diagnostics import Location
from sitegen.model import Figure


@dataclass(frozen=True)
class GeneratedFigure:
    """One figure the core draws: `describe(data)` and `render(data, title=…)` from `chart`, data from `source`.

    With no `source`, the chart needs no data: `describe()` and `render(title=…)`.
    """

    name: str
    title: str
    chart: str
    describe: str
    render: str
    source: tuple[str, str] | None = None

    def draw(self) -> Figure:
        chart = importlib.import_module(self.chart)
        describe, render = getattr(chart, self.describe), getattr(chart, self.render)
        if self.source is None:
            description, svg = describe(), render(title=self.title)
        else:
            module, function = self.source
            data = getattr(importlib.import_module(module), function)()
            description, svg = describe(data), render(data, title=self.title)
        return self.place(description, svg)

    def place(self, description: str, svg: str) -> Figure:
        """Return the figure with this description and drawing."""
        return Figure(
            name=self.name,
            title=self.title,
            description=description,
            svg=svg,
            # Where a diagnostic about the figure would point: the core module that draws it.
            location=Location(f"pysrc/{self.chart.replace('.', '/')}.py", 0),
        )


_RECORDED_RUN = ("rollout_lab", "run_lab")

GENERATED_FIGURES = {
    figure.name: figure
    for figure in (
        GeneratedFigure(
            name="draw-rule",
            title="The draw rule for the recorded run: [0, 1) split by the running totals, each draw's u marked",
            chart="rollout_lab.draw_rule_chart",
            describe="describe_draw_rule",
            render="render_draw_rule",
            source=_RECORDED_RUN,
        ),
        GeneratedFigure(
            name="clipped-objective",
            title="PPO's clipped term against the probability ratio, for a positive and a negative signal",
            chart="rollout_lab.clip_chart",
            describe="describe_clipped_objective",
            render="render_clipped_objective",
        ),
        GeneratedFigure(
            name="update-step",
            title="One step of the update on the recorded group: each answer's logit move against the average move",
            chart="rollout_lab.update_chart",
            describe="describe_update_step",
            render="render_update_step",
            source=_RECORDED_RUN,
        ),
        GeneratedFigure(
            name="estimator-variance",
            title=("The update as an estimate of the policy gradient: each signal rule's variance and average, exactly at K = 6"),
            chart="rollout_lab.estimator_chart",
            describe="describe_estimator_variance",
            render="render_estimator_variance",
            source=("rollout_lab.estimator", "compare_signal_rules"),
        ),
        GeneratedFigure(
            name="reward-kl-frontier",
            title=("The training lab's trade: expected reward against KL from the reference, one point per KL weight"),
            chart="rollout_lab.frontier_chart",
            describe="describe_reward_kl_frontier",
            render="render_reward_kl_frontier",
            source=("rollout_lab.frontier_chart", "trace_frontier"),
        ),
    )
}


def generate_figures(wanted: set[str]) -> tuple[Figure, ...]:
    """Draw the generated figures among `wanted` (the names placed and not given as files), in name order."""
    return tuple(_draw(name) for name in sorted(wanted) if name in GENERATED_FIGURES)


# Drawn once per process: the core they come from cannot change under a running build (the dev server restarts its
# build process after a code edit), and drawing them all costs ~0.1 s, which each edit in `serve` used to pay again.
# A build seeds this from the tool's cache (render/core_results.py).
_DRAWN: dict[str, Figure] = {}


def _draw(name: str) -> Figure:
    figure = _DRAWN.get(name)
    if figure is None:
        figure = _DRAWN[name] = GENERATED_FIGURES[name].draw()
    return figure


def remember_drawn_figures(drawn: Mapping[str, tuple[str, str]]) -> None:
    """Take these (description, svg) as drawn (the kept results of this very code); names no longer defined are skipped."""
    for name, (description, svg) in drawn.items():
        if name in GENERATED_FIGURES:
            _DRAWN[name] = GENERATED_FIGURES[name].place(description, svg)


def list_drawn_figures() -> dict[str, tuple[str, str]]:
    """Return every figure drawn or remembered in this process: {name: (description, svg)}."""
    return {name: (figure.description, figure.svg) for name, figure in _DRAWN.items()}
