"""The four signal rules as estimators of the policy gradient, drawn from `compare_signal_rules` (chapter 7's figure).

One bar per rule: the exact variance of the update estimate from one group
(summed over the three logits) divided by the squared length of its average,
beside what that average is in terms of the true gradient. Divided so, rules
whose updates differ only in scale compare fairly: a rule that merely doubles
every signal quadruples the raw variance and leaves this one unchanged
(issue 58: the raw variance made "std" look worst). Every number is the core's exact enumeration of every ordered
group, so the figure cannot disagree with the table in the prose.
"""

from html import escape
from typing import Any

from rollout_lab.display import format_fixed, format_number
from rollout_lab.figures.base import Figure
from rollout_lab.learning.estimator import ESTIMATOR_RULES, compare_signal_rules

# 420 units wide, so its 16-unit type stays at least 12 px on a 390 px screen: each rule's name, its bar with
# its value, and what its average is stand on three lines, the bars from the left edge.
WIDTH, VALUE_WIDTH, ROW, TOP, BAR = 420, 70, 74, 54, 18

RULE_NAMES = {"raw": "raw reward", "mean": "group mean", "leave_one_out": "leave-one-out", "std": "mean and \u03c3"}


def _average_in_words(rule: dict[str, Any]) -> str:
    ratios = rule["ratios_to_gradient"]
    if all(r is not None and abs(r - ratios[0]) < 1e-12 for r in ratios):
        return f"average = {format_number(ratios[0])} \u00d7 gradient"
    return f"average not a multiple (cosine {format_number(rule['cosine_to_gradient'])})"


def describe_estimator_variance(comparison: dict[str, Any]) -> str:
    """The figure in words, with the core's numbers."""
    settings = comparison["settings"]
    rows = "; ".join(
        f"{RULE_NAMES[name]}: variance {format_number(comparison['rules'][name]['variance'])},"
        f" relative to the average's size {format_number(comparison['rules'][name]['relative_variance'])},"
        f" {_average_in_words(comparison['rules'][name])}"
        for name in ESTIMATOR_RULES
    )
    return (
        f"One bar per signal rule shows the exact variance of the update estimated from one group of"
        f" {settings['group_size']} draws at T = {format_number(settings['temperature'])}, summed over the three logits,"
        f" over all {comparison['groups']} ordered groups, divided by the squared length of the update's average;"
        f" beside each, what the estimate averages to. {rows}."
    )


def render_estimator_variance(comparison: dict[str, Any], *, title: str) -> str:
    """Return the bar chart as an SVG with <title> and <desc>."""
    rules = comparison["rules"]
    reach = max(rules[name]["relative_variance"] for name in ESTIMATOR_RULES) or 1.0
    per_unit = (WIDTH - VALUE_WIDTH) / reach
    bottom = TOP + ROW * len(ESTIMATOR_RULES)
    parts = [
        '<text class="chart-value" x="0" y="16">variance of one group\u2019s update</text>'
        '<text class="chart-value" x="0" y="36">\u00f7 its average\u2019s size\u00b2</text>'
        f'<line class="chart-axis" stroke="currentColor" x1="1" y1="{TOP - 6}" x2="1" y2="{bottom - 22}"></line>'
    ]
    for row, name in enumerate(ESTIMATOR_RULES):
        rule = rules[name]
        y = TOP + row * ROW
        width = round(rule["relative_variance"] * per_unit, 2)
        parts.append(
            f'<text class="chart-label" x="6" y="{y + 14}">{escape(RULE_NAMES[name])}</text>'
            f'<rect class="update-bar" fill-opacity="0.45" x="2" y="{y + 20}" width="{width}" height="{BAR}"></rect>'
            f'<text class="chart-value" x="{round(2 + width + 4, 2)}" y="{y + 34}">'
            f"{format_fixed(rule['relative_variance'])}</text>"
            f'<text class="chart-value" x="6" y="{y + 56}">{escape(_average_in_words(rule))}</text>'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="estimator-variance" viewBox="0 0 {WIDTH} {bottom - 10}" '
        f'fill="currentColor"><title>{escape(title)}</title><desc>{escape(describe_estimator_variance(comparison))}</desc>'
        f"{''.join(parts)}</svg>"
    )


class EstimatorVarianceFigure(Figure):
    """Chapter 7's figure: the four signal rules at the recorded run's T and K."""

    name = "estimator-variance"
    title = "The update as an estimate of the policy gradient: each signal rule's variance for its size, and its average, exactly at K = 6"

    def draw(self) -> tuple[str, str]:
        comparison = compare_signal_rules()
        return describe_estimator_variance(comparison), render_estimator_variance(comparison, title=self.title)


FIGURE = EstimatorVarianceFigure()
