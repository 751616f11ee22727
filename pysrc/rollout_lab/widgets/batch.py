"""The batch lab: three prompts' groups from one stream, where a group carries no signal, and how σ reweights prompts.

It runs `rollout_lab.batch_signals` (learning/batch.py: K answers per prompt at
T, each prompt's mean, σ, signals under the mean or std rule, and the gradient
on its own logits). Its results are one row per prompt with the size of that
gradient, ‖g‖ (`gradient_size`), a group whose rewards are all equal marked as
carrying no signal, and each prompt's rewards, signals and gradient in a
details table. Its computed values are a prompt's numbers in one such run.
"""

from collections.abc import Mapping
from functools import cache
from html import escape
from typing import Any, ClassVar

from rollout_lab.display import format_exact, format_fixed, format_fixed_signal, format_number
from rollout_lab.learning.batch import BATCH_PROMPTS, batch_signals, gradient_size
from rollout_lab.values import ParameterError, ValueDefinition, quote_value, read_whole_number
from rollout_lab.widgets.base import Widget
from rollout_lab.widgets.controls import GROUP_SIZE, SEED, SIGNAL_RULE, TEMPERATURE

BATCH_CONTROLS = (TEMPERATURE, GROUP_SIZE, SEED, SIGNAL_RULE)
NO_SIGNAL = "no signal: every reward equal"

# The run a computed value is about: the lab's settings by their address parameters, the recorded run's by default.
BATCH_RUN = {control.url_parameter: control.default for control in BATCH_CONTROLS if control.url_parameter is not None}
_SETTING_NAMES = {control.url_parameter: control.name for control in BATCH_CONTROLS}
ROW_FIELDS = {"mean": "mean", "sigma": "sigma", "gradient-size": "gradient_size"}


def compute_batch(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Check the settings in the controls' order and return the record: settings and one row per prompt, with ‖g‖."""
    checked = {control.name: control.check(settings[control.name]) for control in BATCH_CONTROLS}
    rows = batch_signals(checked["temperature"], checked["group_size"], checked["seed"], checked["signal_rule"])
    return {
        "settings": checked,
        "prompts": [{"number": n, **row, "gradient_size": gradient_size(row["gradient"])} for n, row in enumerate(rows, start=1)],
    }


def _gradient_cell(row: dict[str, Any]) -> str:
    note = f' <span class="lab-no-signal">({NO_SIGNAL})</span>' if row["zero_variance"] else ""
    return f"{format_fixed(row['gradient_size'])}{note}"


def render_prompts(record: dict[str, Any]) -> str:
    """The table the issue names: Prompt | Answers | Mean | σ (spread) | Gradient size, one row per prompt."""
    rows = "".join(
        f'<tr><th scope="row" data-field="prompt">{escape(row["prompt"])}</th>'
        f'<td data-field="answers">{", ".join(f"<code>{escape(answer)}</code>" for answer in row["answers"])}</td>'
        f'<td data-field="mean">{format_fixed(row["mean"])}</td>'
        f'<td data-field="sigma">{format_fixed(row["sigma"])}</td>'
        f'<td data-field="gradient-size">{_gradient_cell(row)}</td></tr>\n'
        for row in record["prompts"]
    )
    return (
        '<div class="lab-table-scroll" tabindex="0">\n<table class="lab-table lab-batch">\n'
        f"<caption>Three prompts, a group of {record['settings']['group_size']} answers each, signal rule "
        f"{escape(record['settings']['signal_rule'])}: each group&#8217;s mean, spread and the size of its "
        "gradient</caption>\n"
        '<thead><tr><th scope="col">Prompt</th><th scope="col">Answers</th><th scope="col" class="num">Mean</th>'
        '<th scope="col" class="num">\u03c3 (spread)</th><th scope="col" class="num">Gradient size</th></tr></thead>\n'
        f"<tbody>\n{rows}</tbody>\n"
        "</table>\n</div>\n"
    )


def _gradient_entries(row: dict[str, Any]) -> str:
    answers = BATCH_PROMPTS[row["number"] - 1].answers
    return ", ".join(
        f"<code>{escape(answer.text)}</code>&#160;{format_fixed_signal(g)}"
        for answer, g in zip(answers, row["gradient"], strict=True)
    )


def render_prompt_details(record: dict[str, Any]) -> str:
    """Each prompt's rewards, signals and the gradient on each of its answers' logits."""
    rows = "".join(
        f'<tr><th scope="row" data-field="prompt">{row["number"]}</th>'
        f'<td data-field="rewards">{", ".join(format_number(r) for r in row["rewards"])}</td>'
        f'<td data-field="signals">{", ".join(format_fixed_signal(s) for s in row["signals"])}</td>'
        f'<td data-field="gradient">{_gradient_entries(row)}</td></tr>\n'
        for row in record["prompts"]
    )
    return (
        '<details class="lab-details lab-batch-details">\n<summary>Each prompt: rewards, signals and gradient</summary>\n'
        '<div class="lab-table-scroll" tabindex="0">\n<table class="lab-table lab-batch-signals">\n'
        "<caption>Each prompt&#8217;s rewards and signals, in the order drawn, and its gradient on each answer&#8217;s "
        "logit</caption>\n"
        '<thead><tr><th scope="col">Prompt</th><th scope="col">Rewards</th><th scope="col">Signals</th>'
        '<th scope="col">Gradient</th></tr></thead>\n'
        f"<tbody>\n{rows}</tbody>\n"
        "</table>\n</div>\n</details>\n"
    )


def announce_batch(record: dict[str, Any]) -> str:
    """Each prompt's gradient size, and which groups carry no signal, in one sentence."""
    sizes = [format_fixed(row["gradient_size"]) + (" (no signal)" if row["zero_variance"] else "") for row in record["prompts"]]
    return (
        f"Three groups of {record['settings']['group_size']}, signal rule {record['settings']['signal_rule']}: "
        f"gradient sizes {', '.join(sizes[:-1])} and {sizes[-1]}"
    )


@cache
def _run(settings: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    return compute_batch({_SETTING_NAMES[key]: value for key, value in settings})


def batch_run(p: Mapping[str, str]) -> dict[str, Any]:
    """The record of the run a computed value's address parameters (as written) give."""
    return _run(tuple((key, p[key]) for key in BATCH_RUN))


def _batch_row(p: Mapping[str, str]) -> str:
    """A prompt's mean, σ or gradient size."""
    number = read_whole_number(p["prompt"])
    if number is None or not 1 <= number <= len(BATCH_PROMPTS):
        raise ParameterError(f"prompt must be a whole number from 1 to {len(BATCH_PROMPTS)}, got {quote_value(p['prompt'])}")
    if p["field"] not in ROW_FIELDS:
        raise ParameterError(f"field must be one of {', '.join(ROW_FIELDS)}, got {quote_value(p['field'])}")
    return format_fixed(batch_run(p)["prompts"][number - 1][ROW_FIELDS[p["field"]]])


class BatchWidget(Widget):
    """`::: lab batch`: three prompts' groups, their spread, and how much gradient each gives."""

    name = "batch"
    title = "Lab: a batch of three prompts"
    controls = BATCH_CONTROLS
    resettable = True
    in_address = True
    address_example = "rule=std"
    values: ClassVar[Mapping[str, ValueDefinition]] = {
        "batch-row": ValueDefinition({**BATCH_RUN, "prompt": None, "field": None}, _batch_row),
    }

    def compute(self, settings: Mapping[str, str]) -> dict[str, Any]:
        """batch_signals' three rows, each with its gradient size: {"settings", "prompts"}."""
        return compute_batch(settings)

    def render(self, record: dict[str, Any]) -> str:
        return render_prompts(record) + render_prompt_details(record)

    def announce(self, record: dict[str, Any]) -> str:
        return announce_batch(record)

    def format_table(self, record: dict[str, Any]) -> str:
        """One row per prompt: its answers, mean, σ and gradient size, in plain text."""
        settings = record["settings"]
        lines = [
            f"Temperature {format_exact(settings['temperature'])}, group size {settings['group_size']}, "
            f"seed {settings['seed']}, signal rule {settings['signal_rule']}",
        ]
        for row in record["prompts"]:
            lines += [
                "",
                f"Prompt {row['number']}: {row['prompt']}",
                f"  Answers: {', '.join(row['answers'])}",
                f"  Mean {format_fixed(row['mean'])}, \u03c3 (spread) {format_fixed(row['sigma'])}, "
                f"gradient size {format_fixed(row['gradient_size'])}" + (f" ({NO_SIGNAL})" if row["zero_variance"] else ""),
            ]
        return "\n".join(lines)


WIDGET = BatchWidget()
