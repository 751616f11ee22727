"""The sampler (chapter 4): draw a group of K completions at temperature T from a seed.

Its results are the draws' table with the followed draw marked, the group
mean, the draw rule (rollout_lab/figures/draw_rule.py), a rewards chart and the
probability table in force. Its computed values are the facts of a sampled
group (`T`, `K` and `seed` as parameters, the recorded run's by default).
"""

from collections.abc import Callable, Mapping
from html import escape
from typing import Any, ClassVar

from rollout_lab.display import format_exact, format_number, format_signal, format_u, present_lab
from rollout_lab.figures.draw_rule import FOLLOW_SYMBOL, FOLLOWED_DRAW, NUMBERED_DRAWS, render_draw_rule
from rollout_lab.record import run_lab
from rollout_lab.validation import check_group_size, check_seed, check_temperature
from rollout_lab.values import ParameterError, ValueDefinition, quote_value, read_position
from rollout_lab.widgets.base import Widget
from rollout_lab.widgets.controls import GROUP_SIZE, SEED, TEMPERATURE
from rollout_lab.widgets.probabilities import probability_table, render_probabilities
from rollout_lab.world import DEFAULT_GROUP_SIZE, DEFAULT_SEED, DEFAULT_TEMPERATURE, PROMPT

# Room for the longest mean the lab shows ("0.6711", six characters at the charts' 16 px type) and a margin.
MEAN_GUTTER = 66

# The group a computed value is about: the sampler's settings by their address parameters, the recorded run's by default.
SAMPLED = {"T": str(DEFAULT_TEMPERATURE), "K": str(DEFAULT_GROUP_SIZE), "seed": str(DEFAULT_SEED)}
DRAW_FIELDS = ("completion", "reward", "signal", "u", "index")


def render_sampler(record: dict[str, Any]) -> str:
    """Return the sampled group's table, its mean, the probabilities in force and a rewards chart."""
    view = present_lab(record)
    rows = []
    for draw in view["draws"]:
        followed = draw["draw"] == str(FOLLOWED_DRAW)
        marker = ' <span class="follow-marker">followed</span>' if followed else ""
        row_class = f' class="draw-{FOLLOWED_DRAW}"' if followed else ""
        rows.append(
            f"<tr{row_class}>"
            f'<th scope="row"><span data-field="draw">{draw["draw"]}</span>{marker}</th>'
            f'<td data-field="u">{draw["u"]}</td>'
            f'<td data-field="completion"><code>{escape(draw["completion"])}</code></td>'
            f'<td data-field="reward">{draw["reward"]}</td>'
            f'<td data-field="signal">{draw["signal"]}</td></tr>\n'
        )
    settings = view["settings"]
    return (
        '<div class="lab-table-scroll" tabindex="0">\n<table class="lab-table lab-draws">\n'
        f"<caption>Group of {settings['group_size']} draws at temperature {format_exact(record['settings']['temperature'])}, "
        f"seed {settings['seed']}</caption>\n"
        '<thead><tr><th scope="col">Draw</th><th scope="col" class="num">u</th><th scope="col">Completion</th>'
        '<th scope="col" class="num">Reward</th><th scope="col" class="num">Signal</th></tr></thead>\n'
        f"<tbody>\n{''.join(rows)}</tbody>\n"
        "</table>\n</div>\n"
        f'<p class="lab-mean">Group mean: <strong data-value="mean">{view["mean"]}</strong></p>\n'
        f"{render_draw_rule(record)}"
        f"{_rewards_chart(record, view['mean'])}"
        f"{render_probabilities(record['settings']['temperature'])}"
    )


def _rewards_chart(record: dict[str, Any], mean_text: str) -> str:
    """Return one bar per draw (its reward) and a line at the group mean, as an SVG."""
    draws = record["draws"]
    width, height, left, top, plot = 480, 170, 36, 12, 120
    # The mean's label sits in a gutter right of the bars, so no bar can ever run under it.
    gutter = MEAN_GUTTER
    step = (width - left - gutter - 8) / len(draws)
    bar = max(step * 0.6, 1)
    parts = [
        f'<line class="chart-axis" x1="{left}" y1="{top + plot}" x2="{width - 4}" y2="{top + plot}"></line>',
        f'<text class="chart-label" x="{left - 6}" y="{top + 4}" text-anchor="end">1</text>',
        f'<text class="chart-label" x="{left - 6}" y="{top + plot + 4}" text-anchor="end">0</text>',
    ]
    for position, draw in enumerate(draws):
        x = round(left + position * step + (step - bar) / 2, 2)
        bar_height = round(max(min(draw["reward"], 1), 0) * plot, 2)
        followed = draw["draw"] == FOLLOWED_DRAW
        parts.append(
            f'<rect class="chart-bar{" chart-bar-followed" if followed else ""}" x="{x}" y="{round(top + plot - bar_height, 2)}" '
            f'width="{round(bar, 2)}" height="{bar_height}"></rect>'
        )
        if bar_height == 0:
            # A reward of 0 draws no bar; a short mark on the axis shows the draw was not forgotten.
            parts.append(
                f'<rect class="chart-zero{" chart-bar-followed" if followed else ""}" x="{x}" y="{top + plot - 2}" '
                f'width="{round(bar, 2)}" height="4"></rect>'
            )
        if len(draws) <= NUMBERED_DRAWS or followed:
            parts.append(
                f'<text class="chart-label{" chart-label-followed" if followed else ""}" x="{round(x + bar / 2, 2)}" '
                f'y="{top + plot + 16}" text-anchor="middle">{draw["draw"]}{FOLLOW_SYMBOL if followed else ""}</text>'
            )
    mean_y = round(top + plot - max(min(record["mean"], 1), 0) * plot, 2)
    parts.append(f'<line class="chart-mean" x1="{left}" y1="{mean_y}" x2="{width - gutter}" y2="{mean_y}"></line>')
    # Two lines, "mean" above the value, centred on the line and kept inside the plot's height.
    label_y = min(max(mean_y, top + 12), top + plot - 6)
    parts.append(
        f'<text class="chart-value chart-mean-label" x="{width - gutter + 6}" y="{label_y - 4}">'
        f'mean<tspan x="{width - gutter + 6}" dy="18">{escape(mean_text)}</tspan></text>'
    )
    return (
        f'<svg class="lab-chart" viewBox="0 0 {width} {height}" role="img" '
        f"aria-label=\"Chart of each draw's reward against the group mean {escape(mean_text)}; "
        'the table above gives the same numbers.">'
        f"{''.join(parts)}</svg>\n"
    )


def announce_sample(record: dict[str, Any]) -> str:
    """The followed draw (the chapter's point) and the group mean, in one sentence."""
    mean = f"group mean {format_number(record['mean'])}"
    if len(record["draws"]) < FOLLOWED_DRAW:
        return f"Group of {len(record['draws'])}: {mean}"
    draw = record["draws"][FOLLOWED_DRAW - 1]
    return (
        f"Draw {FOLLOWED_DRAW}: {draw['completion']}, reward {format_number(draw['reward'])}, "
        f"signal {format_signal(draw['signal'])}; {mean}"
    )


def sampled_record(parameters: Mapping[str, str]) -> dict[str, Any]:
    """The record of the group a computed value's `T`, `K` and `seed` (as written) draw."""
    return run_lab(check_temperature(parameters["T"]), check_group_size(parameters["K"]), check_seed(parameters["seed"]))


def _draw(parameters: Mapping[str, str]) -> dict[str, Any]:
    draws = sampled_record(parameters)["draws"]
    draw: dict[str, Any] = draws[read_position(parameters["n"], len(draws), "a draw of the group") - 1]
    return draw


def _draw_field(parameters: Mapping[str, str]) -> str:
    draw, field = _draw(parameters), parameters["field"]
    if field not in DRAW_FIELDS:
        raise ParameterError(f"field must be one of {', '.join(DRAW_FIELDS)}, got {quote_value(field)}")
    formatters: dict[str, Callable[[], str]] = {
        "completion": lambda: str(draw["completion"]),
        "reward": lambda: format_number(draw["reward"]),
        "signal": lambda: format_signal(draw["signal"]),
        "u": lambda: format_u(draw["u"]),
        "index": lambda: str(draw["index"]),
    }
    return formatters[field]()


def _comparison(parameters: Mapping[str, str]) -> str:
    reward, mean = _draw(parameters)["reward"], sampled_record(parameters)["mean"]
    return "below" if reward < mean else "above" if reward > mean else "equal to"


class SamplerWidget(Widget):
    """`::: lab sampler`: a group of draws, the followed draw, its mean and the draw rule."""

    name = "sampler"
    title = "Lab: sample a group"
    controls = (TEMPERATURE, GROUP_SIZE, SEED)
    resettable = True
    in_address = True
    address_example = "T=2&K=8"
    values: ClassVar[Mapping[str, ValueDefinition]] = {
        "mean": ValueDefinition(dict(SAMPLED), lambda p: format_number(sampled_record(p)["mean"])),
        "draw": ValueDefinition({**SAMPLED, "n": None, "field": None}, _draw_field),
        "indices": ValueDefinition(dict(SAMPLED), lambda p: ", ".join(str(d["index"]) for d in sampled_record(p)["draws"])),
        "rewards": ValueDefinition(
            dict(SAMPLED), lambda p: ", ".join(format_number(d["reward"]) for d in sampled_record(p)["draws"])
        ),
        "signals": ValueDefinition(
            dict(SAMPLED), lambda p: ", ".join(format_signal(d["signal"]) for d in sampled_record(p)["draws"])
        ),
        "comparison": ValueDefinition({**SAMPLED, "n": None}, _comparison),
    }

    def compute(self, settings: Mapping[str, str]) -> dict[str, Any]:
        """run_lab's record: the candidates at T, the K draws from the seed, the group mean."""
        return run_lab(settings["temperature"], settings["group_size"], settings["seed"])

    def render(self, record: dict[str, Any]) -> str:
        return render_sampler(record)

    def announce(self, record: dict[str, Any]) -> str:
        return announce_sample(record)

    def format_table(self, record: dict[str, Any]) -> str:
        view = present_lab(record)
        settings = record["settings"]
        lines = [
            f"Prompt: {PROMPT}",
            f"Temperature {view['settings']['temperature']}, group size {settings['group_size']}, seed {settings['seed']}",
            "",
            *probability_table(record["candidates"]),
            "",
            f"{'Draw':>4} {'u':>6}  {'Completion':<20} {'Reward':>6} {'Signal':>7}",
        ]
        for draw in view["draws"]:
            lines.append(f"{draw['draw']:>4} {draw['u']:>6}  {draw['completion']:<20} {draw['reward']:>6} {draw['signal']:>7}")
        lines += ["", f"Group mean: {view['mean']}"]
        return "\n".join(lines)


WIDGET = SamplerWidget()
