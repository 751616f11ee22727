"""The training lab's results: its table, its three figures and its one-sentence summary.

Built from `run_training`'s record only, by the build and (inside Pyodide) by
the browser, so the first paint and every live update are the same HTML.
Every figure is an SVG whose numbers are the record's; the table and the
"numbers behind the figures" give the same values as text.
"""

from collections.abc import Sequence
from html import escape
from typing import Any

from rollout_lab.display import format_fixed, format_fixed_signal, format_number
from rollout_lab.world import CANDIDATES

WIDTH = 480
LEFT, RIGHT = 44, 180  # room for the y-axis labels, and for each line's name and last value
# Each candidate is told apart by its line's dash pattern and its marker's shape as well as by colour.
DASHES = ("", "7 4", "2 4")
CHARACTER_WIDTH = 8.0  # of the figures' type, for keeping end labels apart


def clipped_count(round_record: dict[str, Any]) -> int:
    """The number of clipped (sample, epoch) pairs in a round."""
    return sum(sum(epoch["clipped"]) for epoch in round_record["epochs"])


def describe_clipped(round_record: dict[str, Any]) -> str:
    """The round's clipped (sample, epoch) pairs out of all of them: "6 of 32"."""
    pairs = sum(len(epoch["clipped"]) for epoch in round_record["epochs"])
    return f"{clipped_count(round_record)} of {pairs}"


def _rule_text(settings: dict[str, Any]) -> str:
    return (
        "reward minus the group mean"
        if settings["signal_rule"] == "mean"
        else "reward minus the group mean, over the group's std"
    )


def _describe_settings(settings: dict[str, Any]) -> str:
    return (
        f"{settings['rounds']} round{'s' if settings['rounds'] != 1 else ''} of {settings['group_size']} draw"
        f"{'s' if settings['group_size'] != 1 else ''} from seed {settings['seed']}; learning rate "
        f"{format_number(settings['learning_rate'])}, {settings['epochs']} epoch{'s' if settings['epochs'] != 1 else ''}"
        f" per round, clip {format_number(settings['clip'])}, KL weight {format_number(settings['kl_weight'])},"
        f" signal: {_rule_text(settings)}"
    )


def announce_training(record: dict[str, Any]) -> str:
    """One sentence for the live region: the last round's row of the table, read as the table shows it."""
    last = record["rounds"][-1]
    return (
        f"Round {last['round']}: expected reward {format_fixed(last['expected_reward'])},"
        f" KL {format_fixed(last['kl'])}, {describe_clipped(last)} (sample, epoch) pairs clipped"
    )


def render_training(record: dict[str, Any]) -> str:
    """Return the round table, the three figures and the numbers behind them."""
    rounds = record["rounds"]
    rows = "".join(
        f'<tr><th scope="row" data-field="round">{r["round"]}</th>'
        f'<td data-field="expected-reward">{format_fixed(r["expected_reward"])}</td>'
        f'<td data-field="kl">{format_fixed(r["kl"])}</td>'
        f'<td data-field="clipped">{describe_clipped(r)}</td></tr>\n'
        for r in rounds
    )
    start = record["start"]
    epochs = record["settings"]["epochs"]
    return (
        f'<p class="lab-note">Before training: expected reward <strong data-value="start-expected-reward">'
        f"{format_fixed(start['expected_reward'])}</strong>, KL {format_fixed(0.0)}.</p>\n"
        '<div class="lab-table-scroll" tabindex="0">\n<table class="lab-table lab-rounds">\n'
        f"<caption>After each round: {escape(_describe_settings(record['settings']))}</caption>\n"
        '<thead><tr><th scope="col">Round</th><th scope="col" class="num">Expected reward</th>'
        '<th scope="col" class="num">KL</th><th scope="col" class="num">Clipped</th></tr></thead>\n'
        f"<tbody>\n{rows}</tbody>\n</table>\n</div>\n"
        f'<p class="lab-note">Clipped counts the (sample, epoch) pairs whose term was flat, over the round\u2019s {epochs}'
        f" epoch{'s' if epochs != 1 else ''}.</p>\n"
        f"{render_probability_lines(record)}"
        f"{render_ratio_chart(record)}"
        f"{render_progress_chart(record)}"
        f"{render_numbers_behind(record)}"
    )


def _polyline(points: Sequence[tuple[float, float]], css: str, dash: str) -> str:
    dashed = f' stroke-dasharray="{dash}"' if dash else ""
    text = " ".join(f"{round(x, 2)},{round(y, 2)}" for x, y in points)
    return f'<polyline class="{css}" fill="none"{dashed} points="{text}"></polyline>'


def _marker(shape: int, x: float, y: float, css: str) -> str:
    """A circle, a square or a triangle: candidate 0, 1 or 2."""
    x, y = round(x, 2), round(y, 2)
    if shape == 0:
        return f'<circle class="{css}" cx="{x}" cy="{y}" r="4"></circle>'
    if shape == 1:
        return f'<rect class="{css}" x="{round(x - 3.5, 2)}" y="{round(y - 3.5, 2)}" width="7" height="7"></rect>'
    return f'<polygon class="{css}" points="{x},{round(y - 4.5, 2)} {round(x + 4.5, 2)},{round(y + 3.5, 2)} {round(x - 4.5, 2)},{round(y + 3.5, 2)}"></polygon>'


def _spread(wanted: list[float], gap: float, low: float, high: float) -> list[float]:
    """Move label positions apart by at least `gap`, keeping their order and the band [low, high]."""
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    placed = [0.0] * len(wanted)
    previous = low - gap
    for i in order:
        placed[i] = max(wanted[i], previous + gap)
        previous = placed[i]
    overflow = previous - high
    if overflow > 0:
        placed = [y - overflow for y in placed]
    return placed


def _round_axis(count: int, x_of: Any, bottom: float) -> str:
    """Round numbers under the x axis: every one up to 10 (the most the lab allows), from 0 (before training)."""
    return "".join(
        f'<text class="chart-value" x="{round(x_of(n), 2)}" y="{bottom + 18}" text-anchor="middle">{n}</text>'
        for n in range(count + 1)
    )


def render_probability_lines(record: dict[str, Any]) -> str:
    """The three probabilities before training and after each round, one line each."""
    top, plot = 14, 150
    rounds = record["rounds"]
    series = [record["start"]["probabilities"]] + [r["epochs"][-1]["probabilities"] for r in rounds]
    span = WIDTH - LEFT - RIGHT

    def x_of(n: float) -> float:
        return LEFT + n / len(rounds) * span

    def y_of(p: float) -> float:
        return top + (1 - p) * plot

    bottom = top + plot
    parts = [
        f'<line class="chart-axis" x1="{LEFT}" y1="{bottom}" x2="{LEFT + span}" y2="{bottom}"></line>',
        f'<line class="chart-axis" x1="{LEFT}" y1="{top}" x2="{LEFT}" y2="{bottom}"></line>',
        f'<text class="chart-value" x="{LEFT - 6}" y="{top + 5}" text-anchor="end">1</text>',
        f'<text class="chart-value" x="{LEFT - 6}" y="{bottom + 5}" text-anchor="end">0</text>',
        _round_axis(len(rounds), x_of, bottom),
        f'<text class="chart-value" x="{LEFT + span / 2}" y="{bottom + 38}" text-anchor="middle">round</text>',
    ]
    ends = _spread([y_of(series[-1][i]) + 5 for i in range(len(CANDIDATES))], 17, top + 5, bottom + 5)
    for candidate, end in zip(CANDIDATES, ends):
        i = candidate.index
        points = [(x_of(n), y_of(p[i])) for n, p in enumerate(series)]
        parts.append(_polyline(points, f"train-line train-candidate-{i}", DASHES[i]))
        parts += [_marker(i, x, y, f"train-marker train-candidate-{i}") for x, y in points]
        parts.append(
            f'<text class="chart-label" x="{LEFT + span + 10}" y="{round(end, 2)}">{escape(candidate.completion)}'
            f" {format_number(series[-1][i], 2)}</text>"
        )
    description = "; ".join(
        f"\u201c{c.completion}\u201d from {format_number(series[0][c.index])} to {format_number(series[-1][c.index])}"
        for c in CANDIDATES
    )
    return (
        f'<svg class="lab-chart train-chart" viewBox="0 0 {WIDTH} {bottom + 44}" role="img" '
        f'aria-label="The probability of each answer before training (round 0) and after each round: {escape(description)}.">'
        f"{''.join(parts)}</svg>\n"
    )


# The ratio axis measures how far a ratio is from 1 either way: rho - 1 above 1 and 1 - 1/rho below it, so
# a ratio of 2 sits as far above the line at 1 as a ratio of 1/2 sits below it (like a log scale, but in plain
# division, which every runtime rounds alike). Ratios beyond 4 or below 1/4 are drawn at the chart's edge.
RATIO_REACH = 3.0


def ratio_position(ratio: float) -> float:
    """Where a ratio sits on the ratio axis: rho - 1 from 1 upwards, 1 - 1/rho below, within ±RATIO_REACH."""
    if ratio >= 1:
        return min(ratio - 1, RATIO_REACH)
    return max(1 - 1 / ratio, -RATIO_REACH) if ratio > 0 else -RATIO_REACH


def _ratio_range(record: dict[str, Any]) -> tuple[float, float]:
    epsilon = record["settings"]["clip"]
    positions = [ratio_position(x) for r in record["rounds"] for epoch in r["epochs"] for x in epoch["ratios"]]
    low = min([ratio_position(1 - epsilon), *positions])
    high = max([ratio_position(1 + epsilon), *positions])
    pad = (high - low) * 0.08
    return low - pad, high + pad


def render_ratio_chart(record: dict[str, Any]) -> str:
    """Each epoch's ratio of every drawn answer against the band [1 − ε, 1 + ε]; a filled marker is clipped."""
    top, plot = 14, 170
    rounds = record["rounds"]
    epsilon = record["settings"]["clip"]
    epochs: int = record["settings"]["epochs"]
    span = WIDTH - LEFT - 30
    slots = len(rounds) * epochs
    low, high = _ratio_range(record)

    def x_of(round_index: int, epoch_index: int) -> float:
        # A half-slot gap between rounds keeps each round's epochs together.
        gap = 0.5
        width = span / (slots + gap * len(rounds))
        return LEFT + width * (round_index * (epochs + gap) + epoch_index + 0.5 + gap / 2)

    def y_of(ratio: float) -> float:
        return top + (high - ratio_position(ratio)) / (high - low) * plot

    bottom = top + plot
    band_top, band_bottom = y_of(1 + epsilon), y_of(1 - epsilon)
    parts = [
        f'<rect class="train-band" x="{LEFT}" y="{round(band_top, 2)}" width="{span}" height="{round(band_bottom - band_top, 2)}"></rect>',
        f'<line class="chart-axis" x1="{LEFT}" y1="{bottom}" x2="{LEFT + span}" y2="{bottom}"></line>',
        f'<line class="train-one" x1="{LEFT}" y1="{round(y_of(1), 2)}" x2="{LEFT + span}" y2="{round(y_of(1), 2)}"></line>',
    ]
    # The band's edges first, then 1, then the axis' ends; a label too close to one placed is left out.
    top_ratio, bottom_ratio = 1 + high, 1 / (1 - low)
    placed: list[float] = []
    for value in (1 + epsilon, 1 - epsilon, 1.0, top_ratio, bottom_ratio):
        y = y_of(value)
        if all(abs(y - other) >= 15 for other in placed):
            placed.append(y)
            parts.append(
                f'<text class="chart-value" x="{LEFT - 6}" y="{round(y + 5, 2)}" text-anchor="end">{format_number(value, 2)}</text>'
            )
    ratios = [x for r in rounds for epoch in r["epochs"] for x in epoch["ratios"]]
    off_scale = sum(1 for x in ratios if abs(ratio_position(x)) >= RATIO_REACH)
    clipped_total = 0
    for r_index, r in enumerate(rounds):
        parts.append(
            f'<text class="chart-value" x="{round((x_of(r_index, 0) + x_of(r_index, epochs - 1)) / 2, 2)}" y="{bottom + 18}" '
            f'text-anchor="middle">{r["round"]}</text>'
        )
        for e_index, epoch in enumerate(r["epochs"]):
            # Samples of one answer share its ratio and its signal: one marker per drawn answer.
            shown: dict[int, bool] = {}
            for index, clipped in zip(r["indices"], epoch["clipped"]):
                shown[index] = shown.get(index, False) or clipped
            for index, clipped in sorted(shown.items()):
                ratio = epoch["ratios"][r["indices"].index(index)]
                css = f"train-marker train-candidate-{index}{' train-clipped' if clipped else ''}"
                parts.append(_marker(index, x_of(r_index, e_index), y_of(ratio), css))
            clipped_total += sum(epoch["clipped"])
    parts.append(
        f'<text class="chart-value" x="{LEFT + span / 2}" y="{bottom + 38}" text-anchor="middle">round (each of its epochs in turn)</text>'
    )
    # The axis is not linear (see ratio_position): say so on the chart, where its unequal label gaps are seen.
    parts.append(
        f'<text class="chart-value" x="{LEFT + span / 2}" y="{bottom + 58}" text-anchor="middle">'
        "ratio axis: 2 is as far above 1 as 0.5 is below</text>"
    )
    key_y = bottom + 82
    key_x = float(LEFT)
    for candidate in CANDIDATES:
        parts.append(_marker(candidate.index, key_x + 5, key_y - 5, f"train-marker train-candidate-{candidate.index}"))
        parts.append(f'<text class="chart-label" x="{key_x + 14}" y="{key_y}">{escape(candidate.completion)}</text>')
        key_x += 28 + len(candidate.completion) * CHARACTER_WIDTH
    parts.append(_marker(0, key_x + 5, key_y - 5, "train-marker train-key-clipped train-clipped"))
    parts.append(f'<text class="chart-label" x="{key_x + 14}" y="{key_y}">filled: clipped</text>')
    band = f"{format_number(1 - epsilon)} to {format_number(1 + epsilon)}"
    return (
        f'<svg class="lab-chart train-chart" viewBox="0 0 {WIDTH} {key_y + 8}" role="img" '
        f'aria-label="The ratio of each drawn answer in every epoch of every round, against the shaded band {band}, on an axis '
        "where a ratio of 2 sits as far above 1 as a ratio of 0.5 below it; "
        f"{clipped_total} (sample, epoch) pairs were clipped in all."
        f"{f' Ratios beyond 4 or below 0.25 are drawn at the edge ({off_scale} of them).' if off_scale else ''}"
        ' The numbers behind the figures list every ratio.">'
        f"{''.join(parts)}</svg>\n"
    )


def render_progress_chart(record: dict[str, Any]) -> str:
    """Expected reward and KL to the reference, before training and after each round, in two panels."""
    # Two panels of 160 units: the chart fits 424 units, so its type stays at least 12 px on a 390 px screen.
    top, plot, panel, gap = 30, 120, 160, 50
    rounds = record["rounds"]
    rewards = [record["start"]["expected_reward"]] + [r["expected_reward"] for r in rounds]
    kls = [0.0] + [r["kl"] for r in rounds]
    bottom = top + plot
    parts = []
    for offset, title, values, ceiling in (
        (LEFT, "Expected reward", rewards, 1.0),
        (LEFT + panel + gap, "KL to the reference", kls, max(max(kls) * 1.1, 0.01)),
    ):

        def x_of(n: float, offset: float = offset) -> float:
            return offset + n / len(rounds) * panel

        def y_of(value: float, ceiling: float = ceiling) -> float:
            return top + (1 - value / ceiling) * plot

        points = [(x_of(n), y_of(v)) for n, v in enumerate(values)]
        parts += [
            f'<text class="chart-label" x="{offset}" y="{top - 14}">{title}</text>',
            f'<line class="chart-axis" x1="{offset}" y1="{bottom}" x2="{offset + panel}" y2="{bottom}"></line>',
            f'<line class="chart-axis" x1="{offset}" y1="{top}" x2="{offset}" y2="{bottom}"></line>',
            f'<text class="chart-value" x="{offset - 6}" y="{top + 5}" text-anchor="end">{format_number(ceiling, 2)}</text>',
            f'<text class="chart-value" x="{offset - 6}" y="{bottom + 5}" text-anchor="end">0</text>',
            f'<text class="chart-value" x="{offset}" y="{bottom + 18}" text-anchor="middle">0</text>',
            f'<text class="chart-value" x="{offset + panel}" y="{bottom + 18}" text-anchor="middle">{len(rounds)}</text>',
            f'<text class="chart-value" x="{offset + panel / 2}" y="{bottom + 18}" text-anchor="middle">round</text>',
            _polyline(points, "train-line train-progress", ""),
            *(_marker(0, x, y, "train-marker train-progress") for x, y in points),
            f'<text class="chart-value" x="{offset + panel}" y="{round(points[-1][1] - 9, 2)}" text-anchor="end">'
            f"{format_number(values[-1])}</text>",
        ]
    return (
        f'<svg class="lab-chart train-chart" viewBox="0 0 {LEFT + 2 * panel + gap + 10} {bottom + 26}" role="img" '
        f'aria-label="Expected reward from {format_number(rewards[0])} before training to {format_number(rewards[-1])}'
        f' after round {len(rounds)}; KL to the reference from 0 to {format_number(kls[-1])}. The table above gives every round.">'
        f"{''.join(parts)}</svg>\n"
    )


def _drawn(indices: Sequence[int]) -> str:
    counts = [(c.completion, indices.count(c.index)) for c in CANDIDATES if c.index in indices]
    return ", ".join(f"<code>{escape(name)}</code>\u00a0\u00d7{count}" for name, count in counts)


def _ratios_of_epoch(r: dict[str, Any], epoch: dict[str, Any]) -> str:
    entries = []
    for c in CANDIDATES:
        if c.index in r["indices"]:
            k = r["indices"].index(c.index)
            mark = " clipped" if epoch["clipped"][k] else ""
            entries.append(f"{escape(c.completion)} {format_fixed(epoch['ratios'][k])}{mark}")
    return "; ".join(entries)


def render_numbers_behind(record: dict[str, Any]) -> str:
    """The figures' numbers as text: per round the draws and signals, per epoch the ratios and the probabilities."""
    groups = []
    for r in record["rounds"]:
        signals = ", ".join(
            f"{escape(c.completion)} {format_fixed_signal(r['signals'][r['indices'].index(c.index)])}"
            for c in CANDIDATES
            if c.index in r["indices"]
        )
        count = len(r["epochs"])
        rows = []
        for e_index, epoch in enumerate(r["epochs"], start=1):
            head = (
                f'<th scope="rowgroup" rowspan="{count}">{r["round"]}</th>'
                f'<td rowspan="{count}">{_drawn(r["indices"])}<br>signals: {signals}</td>'
                if e_index == 1
                else ""
            )
            probabilities = ", ".join(format_fixed(p) for p in epoch["probabilities"])
            rows.append(f"<tr>{head}<td>{e_index}</td><td>{_ratios_of_epoch(r, epoch)}</td><td>{probabilities}</td></tr>\n")
        groups.append(f"<tbody>\n{''.join(rows)}</tbody>\n")
    return (
        '<details class="lab-details"><summary>Numbers behind the figures</summary>\n'
        '<div class="lab-table-scroll" tabindex="0">\n<table class="lab-table lab-epochs">\n'
        "<caption>Each round\u2019s draws and signals; each epoch\u2019s ratios and the probabilities after its step"
        " (<code>5</code>, <code>The answer is 5.</code>, <code>6</code>)</caption>\n"
        '<thead><tr><th scope="col">Round</th><th scope="col">Drawn</th><th scope="col">Epoch</th>'
        '<th scope="col">Ratios</th><th scope="col">Probabilities</th></tr></thead>\n'
        f"{''.join(groups)}</table>\n</div>\n</details>\n"
    )
