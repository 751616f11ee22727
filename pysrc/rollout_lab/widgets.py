"""The lab widgets' results markup, shared by the build and the browser.

The build calls `render_widget` to pre-render each lab slot; the browser lab
calls the very same function inside Pyodide after every change, so the first
paint and every live update are byte-for-byte the same HTML. Standard library
only (html, json) because this module ships to the browser with the core.
"""

import json
from collections.abc import Sequence
from html import escape
from typing import Any

from rollout_lab.controls import WIDGETS
from rollout_lab.display import (
    format_number,
    format_signal,
    format_u,
    present_group,
    present_lab,
    present_probabilities,
)
from rollout_lab.exact import CONTEXT, exact_decimal
from rollout_lab.record import run_lab
from rollout_lab.sampling import running_totals, softmax_probabilities
from rollout_lab.statistics import GroupStatistics, group_statistics
from rollout_lab.training import run_training
from rollout_lab.training_widget import announce_training, render_training
from rollout_lab.validation import check_temperature

# The followed draw of chapter 4 ("Follow draw 3").
FOLLOWED_DRAW = 3
FOLLOW_SYMBOL = "\u25b2"  # a shape as well as a colour marks the followed draw in the chart
# Up to this many draws, the charts number every draw; past it only the followed one (the numbers would crowd).
NUMBERED_DRAWS = 16
# Room for the longest mean the lab shows ("0.6711", six characters at the charts' 16 px type) and a margin.
MEAN_GUTTER = 66

# Derived from controls.WIDGETS, the one home of each widget's controls and ranges.
WIDGET_SETTINGS = {name: widget.setting_names for name, widget in WIDGETS.items()}
# Defaults are per widget: the training lab's group size of 8 is not the sampler's 6.
DEFAULT_SETTINGS = {name: {control.name: control.default for control in widget.controls} for name, widget in WIDGETS.items()}


def _plain(value: float) -> str:
    """Write a checked number the shortest exact way: 1, 0.5, 20 (never 1.0 or 2E+1)."""
    # normalize() rounds to its context's precision: use the core's fixed
    # context, not whatever the host page or build set as the ambient one.
    text = format(exact_decimal(float(value)).normalize(CONTEXT), "f")
    return "0" if text in ("-0", "") else text


def _json_for_html(value: object) -> str:
    """Return compact JSON that is safe inside a <script type="application/json"> element."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# Each table sits in a focusable scroll box: on a very narrow screen (or with a
# large group) it scrolls sideways instead of widening the page, and keyboard
# users can scroll it too.


def render_probabilities(temperature: float) -> str:
    """Return the probability table (with the shown total) and a bar chart for one temperature."""
    probabilities = softmax_probabilities(temperature)
    view = present_probabilities(probabilities)
    rows = "".join(
        "<tr>"
        f'<th scope="row" data-field="completion"><code>{escape(row["completion"])}</code></th>'
        f'<td data-field="logit">{row["logit"]}</td>'
        f'<td data-field="reward">{row["reward"]}</td>'
        f'<td data-field="probability">{row["probability"]}</td></tr>\n'
        for row in view["rows"]
    )
    note = (
        ""
        if view["total_is_exact"]
        else '<p class="lab-note">The shown total is not exactly 100\u00a0% because each entry is rounded on its own.</p>\n'
    )
    return (
        '<div class="lab-table-scroll" tabindex="0">\n<table class="lab-table">\n'
        f"<caption>Probabilities at temperature {_plain(temperature)}</caption>\n"
        '<thead><tr><th scope="col">Completion</th><th scope="col" class="num">Logit</th>'
        '<th scope="col" class="num">Reward</th><th scope="col" class="num">Probability</th></tr></thead>\n'
        f"<tbody>\n{rows}</tbody>\n"
        '<tfoot><tr><th scope="row">Shown total</th><td></td><td></td>'
        f'<td data-field="shown-total">{view["shown_total"]}</td></tr></tfoot>\n'
        "</table>\n</div>\n"
        f"{note}"
        f"{_probability_chart(probabilities, [row['completion'] for row in view['rows']], [row['probability'] for row in view['rows']])}"
    )


def _probability_chart(probabilities: Sequence[float], completions: Sequence[str], labels: Sequence[str]) -> str:
    """Return horizontal bars, one per candidate, as an SVG with the table as its text alternative."""
    bar_height, gap, left, width = 22, 10, 150, 330
    height = len(probabilities) * (bar_height + gap) + gap
    bars = []
    for position, (probability, completion, label) in enumerate(zip(probabilities, completions, labels)):
        y = gap + position * (bar_height + gap)
        length = round(probability * (width - left - 70), 2)
        bars.append(
            f'<text class="chart-label" x="{left - 8}" y="{y + 15}" text-anchor="end">{escape(completion)}</text>'
            f'<rect class="chart-bar" x="{left}" y="{y}" width="{length}" height="{bar_height}"></rect>'
            f'<text class="chart-value" x="{left + length + 6}" y="{y + 15}">{escape(label)}</text>'
        )
    return (
        f'<svg class="lab-chart lab-chart-probabilities" viewBox="0 0 {width} {height}" role="img" '
        'aria-label="Bar chart of the probabilities; the table above gives the same numbers.">'
        f"{''.join(bars)}</svg>\n"
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
        f"<caption>Group of {settings['group_size']} draws at temperature {_plain(record['settings']['temperature'])}, "
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


def normalise_settings(name: str, settings: dict[str, Any]) -> dict[str, Any]:
    """Return the widget's settings with defaults filled in; ValueError for an unknown widget or setting."""
    if name not in WIDGET_SETTINGS:
        raise ValueError(f"unknown lab widget {name!r}")
    allowed = WIDGET_SETTINGS[name]
    for key in settings:
        if key not in allowed:
            raise ValueError(f"the {name} widget has no setting {key!r} (settings: {', '.join(allowed)})")
    return {key: str(settings.get(key, DEFAULT_SETTINGS[name][key])) for key in allowed}


def render_widget(name: str, settings: dict[str, Any]) -> dict[str, Any]:
    """Run the core for one widget and return its results HTML, live-region text and settings (all the page shows).

    Raises SettingError (a ValueError naming the control) for a bad setting.
    """
    given = normalise_settings(name, settings)
    if name == "probabilities":
        temperature = check_temperature(given["temperature"])
        probabilities = softmax_probabilities(temperature)
        shown = present_probabilities(probabilities)
        return {
            "html": render_probabilities(temperature),
            "announcement": f"At temperature {_plain(temperature)}: "
            + ", ".join(f"{row['completion']} has probability {row['probability']}" for row in shown["rows"]),
            "settings": {"temperature": _plain(temperature)},
        }
    if name == "calculator":
        statistics = group_statistics(given["rewards"])
        return {
            "html": render_group(statistics),
            "announcement": f"Group mean {format_number(statistics.mean)}; signals "
            + ", ".join(format_signal(signal) for signal in statistics.signals),
            "settings": {"rewards": ", ".join(_plain(r) for r in statistics.rewards)},
        }
    if name == "training":
        return _render_training_widget(given)
    record = run_lab(given["temperature"], given["group_size"], given["seed"])
    return {
        "html": render_sampler(record),
        "announcement": _announce_sample(record),
        "settings": {
            "temperature": _plain(record["settings"]["temperature"]),
            "group_size": str(record["settings"]["group_size"]),
            "seed": str(record["settings"]["seed"]),
        },
    }


def _render_training_widget(given: dict[str, Any]) -> dict[str, Any]:
    record = run_training(**given)
    settings = record["settings"]
    return {
        "html": render_training(record),
        "announcement": announce_training(record),
        "settings": {key: _plain(value) if isinstance(value, float) else str(value) for key, value in settings.items()},
    }


def _announce_sample(record: dict[str, Any]) -> str:
    """The followed draw (the chapter's point) and the group mean, in one sentence."""
    mean = f"group mean {format_number(record['mean'])}"
    if len(record["draws"]) < FOLLOWED_DRAW:
        return f"Group of {len(record['draws'])}: {mean}"
    draw = record["draws"][FOLLOWED_DRAW - 1]
    return (
        f"Draw {FOLLOWED_DRAW}: {draw['completion']}, reward {format_number(draw['reward'])}, "
        f"signal {format_signal(draw['signal'])}; {mean}"
    )


def settings_json(widget: dict[str, Any]) -> str:
    """Return a rendered widget's settings as JSON for its data-lab-settings element."""
    return _json_for_html(widget["settings"])
