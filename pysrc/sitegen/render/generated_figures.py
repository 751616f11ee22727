"""Figures drawn by the core at build time, placed like any other with `::: figure NAME`.

Their numbers come from the same run and the same renderer as the lab, so a
figure of the recorded run cannot disagree with the lab beside it. A file in
content/figures/ with the same name would take precedence.
"""

from __future__ import annotations

from sitegen.diagnostics import Location
from sitegen.model import Figure

# Where a diagnostic about a generated figure would point: the core, one of whose modules draws it.
_RENDERER = Location("pysrc/rollout_lab", 0)
DRAW_RULE_TITLE = "The draw rule for the recorded run: [0, 1) split by the running totals, each draw's u marked"


def _draw_rule() -> Figure:
    from rollout_lab import run_lab
    from rollout_lab.draw_rule_chart import describe_draw_rule, render_draw_rule

    record = run_lab()
    return Figure(
        name="draw-rule",
        title=DRAW_RULE_TITLE,
        description=describe_draw_rule(record),
        svg=render_draw_rule(record, title=DRAW_RULE_TITLE),
        location=_RENDERER,
    )


CLIPPED_OBJECTIVE_TITLE = "PPO's clipped term against the probability ratio, for a positive and a negative signal"


def _clipped_objective() -> Figure:
    from rollout_lab.clip_chart import describe_clipped_objective, render_clipped_objective

    return Figure(
        name="clipped-objective",
        title=CLIPPED_OBJECTIVE_TITLE,
        description=describe_clipped_objective(),
        svg=render_clipped_objective(title=CLIPPED_OBJECTIVE_TITLE),
        location=Location("pysrc/rollout_lab/clip_chart.py", 0),
    )


UPDATE_STEP_TITLE = "One step of the update on the recorded group: each answer's logit move against the average move"


def _update_step() -> Figure:
    from rollout_lab import run_lab
    from rollout_lab.update_chart import describe_update_step, render_update_step

    record = run_lab()
    return Figure(
        name="update-step",
        title=UPDATE_STEP_TITLE,
        description=describe_update_step(record),
        svg=render_update_step(record, title=UPDATE_STEP_TITLE),
        location=Location("pysrc/rollout_lab/update_chart.py", 0),
    )


ESTIMATOR_VARIANCE_TITLE = (
    "The update as an estimate of the policy gradient: each signal rule's variance and average, exactly at K = 6"
)


def _estimator_variance() -> Figure:
    from rollout_lab.estimator import compare_signal_rules
    from rollout_lab.estimator_chart import describe_estimator_variance, render_estimator_variance

    comparison = compare_signal_rules()
    return Figure(
        name="estimator-variance",
        title=ESTIMATOR_VARIANCE_TITLE,
        description=describe_estimator_variance(comparison),
        svg=render_estimator_variance(comparison, title=ESTIMATOR_VARIANCE_TITLE),
        location=Location("pysrc/rollout_lab/estimator_chart.py", 0),
    )


REWARD_KL_FRONTIER_TITLE = "The training lab's trade: expected reward against KL from the reference, one point per KL weight"


def _reward_kl_frontier() -> Figure:
    from rollout_lab.frontier_chart import describe_reward_kl_frontier, render_reward_kl_frontier, trace_frontier

    points = trace_frontier()
    return Figure(
        name="reward-kl-frontier",
        title=REWARD_KL_FRONTIER_TITLE,
        description=describe_reward_kl_frontier(points),
        svg=render_reward_kl_frontier(points, title=REWARD_KL_FRONTIER_TITLE),
        location=Location("pysrc/rollout_lab/frontier_chart.py", 0),
    )


GENERATED_FIGURES = {
    "draw-rule": _draw_rule,
    "clipped-objective": _clipped_objective,
    "update-step": _update_step,
    "estimator-variance": _estimator_variance,
    "reward-kl-frontier": _reward_kl_frontier,
}


def generate_figures(wanted: set[str]) -> tuple[Figure, ...]:
    """Draw the generated figures among `wanted` (the names placed and not given as files), in name order."""
    return tuple(GENERATED_FIGURES[name]() for name in sorted(wanted) if name in GENERATED_FIGURES)
