"""The credit lab: which token earned the reward, exactly, against GRPO's broadcast signal and GAE(λ).

It runs `rollout_lab.token_credit` (tokens/credit.py: V by exact enumeration,
each token's exact advantage δ_t, GAE(λ) with the exact V as critic, and the
group signal R − mean every token of a rollout gets) on the token lab's group.
Its results are one row per token of every rollout and the token tree with V
at each state, each token's advantage and the group's paths
(figures/credit_tree.py). Its computed values are V at a state and the facts
of one such run, the recorded run's by default.
"""

from collections.abc import Callable, Mapping
from functools import cache
from html import escape
from typing import Any, ClassVar

from rollout_lab.display import format_exact, format_fixed, format_fixed_signal, format_number
from rollout_lab.figures.credit_tree import render_credit_tree
from rollout_lab.figures.token_charts import show_token
from rollout_lab.tokens.credit import credit_tree, token_credit, token_values
from rollout_lab.tokens.world import TOKEN_STATES
from rollout_lab.values import ParameterError, ValueDefinition, quote_value, read_position, read_whole_number
from rollout_lab.widgets.base import Widget
from rollout_lab.widgets.controls import GROUP_SIZE, SEED, TEMPERATURE, number_control
from rollout_lab.world import DEFAULT_LAMBDA, LAMBDA_RANGE, PROMPT

# λ = 0 is the exact advantage, 1 is R − V(s_t); 0.5 and 0.9 lie between.
LAMBDA = number_control("lam", "Lambda (\u03bb)", LAMBDA_RANGE, DEFAULT_LAMBDA, "lam", ("0", "0.5", "0.9", "1"), "LAMBDA")
CREDIT_CONTROLS = (TEMPERATURE, GROUP_SIZE, SEED, LAMBDA)

# The run a computed value is about: the lab's settings by their address parameters, the recorded run's by default.
CREDIT_RUN = {control.url_parameter: control.default for control in CREDIT_CONTROLS if control.url_parameter is not None}
_SETTING_NAMES = {control.url_parameter: control.name for control in CREDIT_CONTROLS}
TOKEN_FIELDS = ("value", "advantage", "gae", "signal")
# A token's fields, by the record's list each is read from, and how each is written.
_TOKEN_LISTS = {"value": "values", "advantage": "advantages", "gae": "gae", "signal": "group_signal"}
_SIGNED = ("advantage", "gae", "signal")
# What `n` and `t` are when a value does not name a rollout or a token (field=mean needs neither).
UNSET = "none"


def compute_credit(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Check the settings in the controls' order and return the record: settings, the tree's numbers, the mean, each rollout."""
    checked = {control.name: control.check(settings[control.name]) for control in CREDIT_CONTROLS}
    credit = token_credit(**checked)
    return {
        "settings": checked,
        "states": credit_tree(checked["temperature"]),
        "mean": credit["mean"],
        "rollouts": [{"rollout": n, **rollout} for n, rollout in enumerate(credit["rollouts"], start=1)],
    }


def list_credit_rows(record: dict[str, Any]) -> list[tuple[int, str, str, str, str, str]]:
    """Each token of each rollout as the table writes it, for the page and the command line alike:
    (rollout, token, value before, exact advantage, GAE, group signal), the numbers to 4 fixed places."""
    return [
        (rollout["rollout"], show_token(token), format_fixed(value), *map(format_fixed_signal, (advantage, gae, signal)))
        for rollout in record["rollouts"]
        for token, value, advantage, gae, signal in zip(
            rollout["tokens"], rollout["values"], rollout["advantages"], rollout["gae"], rollout["group_signal"], strict=True
        )
    ]


def render_credit_table(record: dict[str, Any]) -> str:
    """The table the issue names: Rollout | Token | Value before | Exact advantage | GAE | Group signal, one row per token."""
    rows = [
        f'<tr><th scope="row" data-field="rollout">{rollout}</th>'
        f'<td data-field="token"><code>{escape(token)}</code></td>'
        f'<td data-field="value">{value}</td>'
        f'<td data-field="advantage">{advantage}</td>'
        f'<td data-field="gae">{gae}</td>'
        f'<td data-field="signal">{signal}</td></tr>\n'
        for rollout, token, value, advantage, gae, signal in list_credit_rows(record)
    ]
    return (
        '<div class="lab-table-scroll" tabindex="0">\n<table class="lab-table lab-credit">\n'
        f"<caption>Each token of each rollout: V before it, its exact advantage, GAE at \u03bb = "
        f"{format_exact(record['settings']['lam'])} and the group signal GRPO gives it</caption>\n"
        '<thead><tr><th scope="col">Rollout</th><th scope="col">Token</th><th scope="col" class="num">Value before</th>'
        '<th scope="col" class="num">Exact advantage</th><th scope="col" class="num">GAE</th>'
        '<th scope="col" class="num">Group signal</th></tr></thead>\n'
        f"<tbody>\n{''.join(rows)}</tbody>\n"
        "</table>\n</div>\n"
    )


def render_credit(record: dict[str, Any]) -> str:
    """The credit lab's results fragment: the table, the group's mean and the tree."""
    return (
        render_credit_table(record)
        + f'<p class="lab-mean">Group mean reward: <strong data-value="mean">{format_number(record["mean"])}</strong></p>\n'
        + render_credit_tree(record)
    )


def announce_credit(record: dict[str, Any]) -> str:
    """The group, its mean and where the exact advantages and the group signals disagree in sign, in one sentence."""
    tokens = [
        (advantage, signal)
        for rollout in record["rollouts"]
        for advantage, signal in zip(rollout["advantages"], rollout["group_signal"], strict=True)
    ]
    opposed = sum(1 for advantage, signal in tokens if advantage * signal < 0)
    return (
        f"Group of {len(record['rollouts'])} rollouts, {len(tokens)} tokens, mean reward {format_number(record['mean'])}, "
        f"\u03bb {format_exact(record['settings']['lam'])}; the group signal has the opposite sign of the exact "
        f"advantage on {opposed} of the {len(tokens)} tokens"
    )


@cache
def _run(settings: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    return compute_credit({_SETTING_NAMES[key]: value for key, value in settings})


def credit_run(p: Mapping[str, str]) -> dict[str, Any]:
    """The record of the run a computed value's address parameters (as written) give."""
    return _run(tuple((key, p[key]) for key in CREDIT_RUN))


def _token_value(p: Mapping[str, str]) -> str:
    """V at state `state` (0 to 6, TOKEN_STATES' order) at T."""
    s = read_whole_number(p["state"])
    if s is None or not 0 <= s < len(TOKEN_STATES):
        raise ParameterError(f"state must be a whole number from 0 to {len(TOKEN_STATES) - 1}, got {quote_value(p['state'])}")
    return format_fixed(token_values(p["T"])[TOKEN_STATES[s].prefix])


def _token_credit(p: Mapping[str, str]) -> str:
    """The group's mean, a rollout's reward, or one token's value, advantage, GAE or group signal."""
    record, field = credit_run(p), p["field"]
    if field == "mean":
        return format_number(record["mean"])
    if field not in (*TOKEN_FIELDS, "reward"):
        raise ParameterError(f"field must be one of {', '.join((*TOKEN_FIELDS, 'reward', 'mean'))}, got {quote_value(field)}")
    rollouts = record["rollouts"]
    if p["n"] == UNSET:
        raise ParameterError(f"field={field} needs n, a rollout of the group (1 to {len(rollouts)})")
    rollout = rollouts[read_position(p["n"], len(rollouts), "a rollout of the group") - 1]
    if field == "reward":
        return format_number(rollout["reward"])
    length = len(rollout["tokens"])
    if p["t"] == UNSET:
        raise ParameterError(f"field={field} needs t, a token of rollout {rollout['rollout']} (1 to {length})")
    t = read_whole_number(p["t"])
    if t is None or not 1 <= t <= length:
        raise ParameterError(
            f"t must be a whole number from 1 to {length} (a token of rollout {rollout['rollout']}), got {quote_value(p['t'])}"
        )
    number: float = rollout[_TOKEN_LISTS[field]][t - 1]
    write: Callable[[float], str] = format_fixed_signal if field in _SIGNED else format_fixed
    return write(number)


class CreditWidget(Widget):
    """`::: lab credit`: each token's exact advantage, GAE(λ) and GRPO's group signal, on the token tree."""

    name = "credit"
    title = "Lab: which token earned it"
    controls = CREDIT_CONTROLS
    resettable = True
    in_address = True
    address_example = "lam=0.5"
    values: ClassVar[Mapping[str, ValueDefinition]] = {
        "token-value": ValueDefinition({"T": TEMPERATURE.default, "state": None}, _token_value),
        "token-credit": ValueDefinition({**CREDIT_RUN, "n": UNSET, "t": UNSET, "field": None}, _token_credit),
    }

    def compute(self, settings: Mapping[str, str]) -> dict[str, Any]:
        """token_credit's group with the tree's V and advantages: {"settings", "states", "mean", "rollouts"}."""
        return compute_credit(settings)

    def render(self, record: dict[str, Any]) -> str:
        return render_credit(record)

    def announce(self, record: dict[str, Any]) -> str:
        return announce_credit(record)

    def format_table(self, record: dict[str, Any]) -> str:
        """The per-token table and the group's mean, in plain text."""
        settings = record["settings"]
        lines = [
            f"Prompt: {PROMPT}",
            f"Temperature {format_exact(settings['temperature'])}, group size {settings['group_size']}, "
            f"seed {settings['seed']}, lambda {format_exact(settings['lam'])}",
            "",
            f"{'Rollout':>7}  {'Token':<10} {'Value before':>12} {'Exact advantage':>15} {'GAE':>8} {'Group signal':>12}",
        ]
        lines += [
            f"{rollout:>7}  {token:<10} {value:>12} {advantage:>15} {gae:>8} {signal:>12}"
            for rollout, token, value, advantage, gae, signal in list_credit_rows(record)
        ]
        lines += ["", f"Group mean reward: {format_number(record['mean'])}"]
        return "\n".join(lines)


WIDGET = CreditWidget()
