"""The group calculator (chapter 3): type a group's rewards, read their mean and each one's centred signal.

Its computed values are the mean and the signals of a list of rewards.
"""

from collections.abc import Mapping
from typing import Any, ClassVar

from rollout_lab.display import format_exact, format_number, format_signal, present_group
from rollout_lab.statistics import GroupStatistics, group_statistics
from rollout_lab.values import ValueDefinition, read_position
from rollout_lab.widgets.base import Widget
from rollout_lab.widgets.controls import Control, plain_number
from rollout_lab.world import REWARD_COUNT_RANGE, REWARD_RANGE

REWARDS = Control(
    name="rewards",
    label="Rewards (comma-separated)",
    kind="text",
    low=REWARD_RANGE[0],
    high=REWARD_RANGE[1],
    default="1, 0.75, 0, 1",
    help=f"{REWARD_COUNT_RANGE[0]} to {REWARD_COUNT_RANGE[1]} numbers from {plain_number(REWARD_RANGE[0])}"
    f" to {plain_number(REWARD_RANGE[1])}, separated by commas",
    metavar="R1,R2,...",
)


def render_group(statistics: GroupStatistics) -> str:
    """Return the calculator's table of rewards and centred signals, and the group mean."""
    view = present_group(statistics)
    rows = "".join(
        f'<tr><th scope="row" data-field="position">{row["position"]}</th>'
        f'<td data-field="reward">{row["reward"]}</td>'
        f'<td data-field="signal">{row["signal"]}</td></tr>\n'
        for row in view["rows"]
    )
    return (
        '<div class="lab-table-scroll" tabindex="0">\n<table class="lab-table">\n'
        "<caption>Rewards and centred signals (reward minus the group mean)</caption>\n"
        '<thead><tr><th scope="col">Rollout</th><th scope="col" class="num">Reward</th><th scope="col" class="num">Signal</th></tr></thead>\n'
        f"<tbody>\n{rows}</tbody>\n"
        "</table>\n</div>\n"
        f'<p class="lab-mean">Group mean: <strong data-value="mean">{view["mean"]}</strong></p>\n'
    )


def _statistics(record: dict[str, Any]) -> GroupStatistics:
    return GroupStatistics(tuple(record["rewards"]), record["mean"], tuple(record["signals"]))


def _group_signal(parameters: Mapping[str, str]) -> str:
    statistics = group_statistics(parameters["rewards"])
    position = read_position(parameters["n"], len(statistics.signals), "a reward of the list")
    return format_signal(statistics.signals[position - 1])


class CalculatorWidget(Widget):
    """`::: lab calculator`: a group's rewards in, its mean and centred signals out."""

    name = "calculator"
    title = "Lab: group mean and centred signals"
    controls = (REWARDS,)
    values: ClassVar[Mapping[str, ValueDefinition]] = {
        "group-mean": ValueDefinition({"rewards": None}, lambda p: format_number(group_statistics(p["rewards"]).mean)),
        "group-signal": ValueDefinition({"rewards": None, "n": None}, _group_signal),
        "group-signals": ValueDefinition(
            {"rewards": None}, lambda p: ", ".join(format_signal(s) for s in group_statistics(p["rewards"]).signals)
        ),
    }

    def compute(self, settings: Mapping[str, str]) -> dict[str, Any]:
        """The rewards checked, their mean and each one's signal."""
        return group_statistics(settings["rewards"]).to_json()

    def render(self, record: dict[str, Any]) -> str:
        return render_group(_statistics(record))

    def announce(self, record: dict[str, Any]) -> str:
        return f"Group mean {format_number(record['mean'])}; signals " + ", ".join(
            format_signal(signal) for signal in record["signals"]
        )

    def shown_settings(self, record: dict[str, Any]) -> dict[str, str]:
        return {"rewards": ", ".join(format_exact(reward) for reward in record["rewards"])}

    def format_table(self, record: dict[str, Any]) -> str:
        view = present_group(_statistics(record))
        lines = [f"{'Rollout':>7} {'Reward':>9} {'Signal':>9}"]
        lines += [f"{row['position']:>7} {row['reward']:>9} {row['signal']:>9}" for row in view["rows"]]
        return "\n".join([*lines, "", f"Group mean: {view['mean']}"])


WIDGET = CalculatorWidget()
