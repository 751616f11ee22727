"""The token lab: a group of token-level rollouts at T from a seed, and one update step on every state's logits.

It runs `rollout_lab.token_update` (the token world of tokens/world.py, the
sampler's generator and draw rule, issue 37's step). Its results are the
rollouts' table (each token with its probability, the reward and the sequence
ratio after the step), every token's u, log-probability, signal, weight and
ratio in a details table, the token tree with this group's paths traced on it
and the eight completions before and after the step (figures/token_charts.py). Its
computed values are the facts of one such run, the recorded run's by default.
"""

from collections.abc import Callable, Mapping
from functools import cache
from html import escape
from typing import Any, ClassVar

from rollout_lab.display import format_exact, format_number, format_signal, format_u
from rollout_lab.exact import round_to_places
from rollout_lab.figures.token_charts import (
    completion_texts,
    format_probability,
    render_completion_change,
    render_token_tree,
    show_token,
)
from rollout_lab.tokens.update import token_update
from rollout_lab.tokens.world import DEFAULT_LENGTH_RULE, DEFAULT_TOKEN_LEARNING_RATE, LENGTH_RULES, TOKEN_STATES
from rollout_lab.values import ParameterError, ValueDefinition, quote_value, read_places, read_position, read_whole_number
from rollout_lab.widgets.base import Widget
from rollout_lab.widgets.controls import GROUP_SIZE, SEED, TEMPERATURE, Control, number_control
from rollout_lab.world import LEARNING_RATE_RANGE, PROMPT

LEARNING_RATE = number_control(
    "learning_rate", "Learning rate", LEARNING_RATE_RANGE, DEFAULT_TOKEN_LEARNING_RATE, "lr", ("0", "1", "2", "5"), "ALPHA"
)
LENGTH_RULE = Control(
    "length_rule",
    "Length rule",
    "choice",
    0,
    0,
    DEFAULT_LENGTH_RULE,
    " or ".join(LENGTH_RULES),
    "rule",
    choices=tuple(zip(LENGTH_RULES, ("sequence_mean (1/|o|)", "token_sum (1/4)"), strict=True)),
    metavar="RULE",
)
TOKEN_CONTROLS = (TEMPERATURE, GROUP_SIZE, SEED, LEARNING_RATE, LENGTH_RULE)

# The run a computed value is about: the lab's settings by their address parameters, the recorded run's by default.
TOKENS_RUN = {control.url_parameter: control.default for control in TOKEN_CONTROLS if control.url_parameter is not None}
_SETTING_NAMES = {control.url_parameter: control.name for control in TOKEN_CONTROLS}
ROLLOUT_FIELDS = ("text", "reward", "length", "signal", "weight", "logprob", "probability", "sequence-ratio", "probability-ratio")
STEP_FIELDS = ("token", "u", "logprob", "probability", "ratio", "options")
WHEN = ("before", "after", "change")


def _rule_name(record: dict[str, Any]) -> str:
    return str(record["settings"]["length_rule"])


def _tokens_cell(rollout: dict[str, Any]) -> str:
    """Each token in code with its probability at T beside it."""
    return " ".join(
        f'<span class="token-choice"><code>{escape(show_token(token))}</code>&#160;'
        f'<span class="token-p">{format_probability(probability)}</span></span>'
        for token, probability in zip(rollout["tokens"], rollout["probabilities"], strict=True)
    )


def render_rollouts(record: dict[str, Any], update: bool = True) -> str:
    """The table the contract names: Rollout | Tokens | Reward | Sequence ratio, one row per rollout (no ratio without the update)."""
    settings = record["settings"]
    rows = "".join(
        f'<tr><th scope="row" data-field="rollout">{rollout["rollout"]}</th>'
        f'<td data-field="tokens">{_tokens_cell(rollout)}</td>'
        f'<td data-field="reward">{format_number(rollout["reward"])}</td>'
        + (f'<td data-field="sequence-ratio">{format_probability(ratio)}</td>' if update else "")
        + "</tr>\n"
        for rollout, ratio in zip(record["rollouts"], record["sequence_ratios"], strict=True)
    )
    caption = (
        f"The group; sequence ratios after one step (learning rate {format_exact(settings['learning_rate'])}, {_rule_name(record)})"
        if update
        else "The group: each rollout's tokens with their probabilities, and its reward"
    )
    ratio_heading = '<th scope="col" class="num">Sequence ratio</th>' if update else ""
    return (
        '<div class="lab-table-scroll" tabindex="0">\n<table class="lab-table lab-token-rollouts">\n'
        f"<caption>{caption}</caption>\n"
        '<thead><tr><th scope="col">Rollout</th><th scope="col">Tokens</th><th scope="col" class="num">Reward</th>'
        f"{ratio_heading}</tr></thead>\n"
        f"<tbody>\n{rows}</tbody>\n"
        "</table>\n</div>\n"
    )


def render_token_steps(record: dict[str, Any]) -> str:
    """Every token of every rollout: its u, log-probability and probability at T, the signal and weight it carries, its ratio."""
    rows = []
    for rollout, signal, weight, ratios in zip(
        record["rollouts"], record["signals"], record["weights"], record["ratios"], strict=True
    ):
        for token, u, logprob, probability, ratio in zip(
            rollout["tokens"], rollout["us"], rollout["logprobs"], rollout["probabilities"], ratios, strict=True
        ):
            rows.append(
                f'<tr><th scope="row" data-field="rollout">{rollout["rollout"]}</th>'
                f'<td data-field="token"><code>{escape(show_token(token))}</code></td>'
                f'<td data-field="u">{format_u(u)}</td>'
                f'<td data-field="logprob">{format_signal(logprob).lstrip("+")}</td>'
                f'<td data-field="probability">{format_probability(probability)}</td>'
                f'<td data-field="signal">{format_signal(signal)}</td>'
                f'<td data-field="weight">{format_number(weight)}</td>'
                f'<td data-field="ratio">{format_probability(ratio)}</td></tr>\n'
            )
    return (
        '<details class="lab-details lab-token-details">\n<summary>Every token: u, log-probability, signal, weight and ratio</summary>\n'
        '<div class="lab-table-scroll" tabindex="0">\n<table class="lab-table lab-token-steps">\n'
        "<caption>Each token of each rollout: the u that chose it, its log-probability and probability at T, "
        "the rollout's signal and weight (the same for all its tokens), and its ratio after the step</caption>\n"
        '<thead><tr><th scope="col">Rollout</th><th scope="col">Token</th><th scope="col" class="num">u</th>'
        '<th scope="col" class="num">Log-probability</th><th scope="col" class="num">Probability</th>'
        '<th scope="col" class="num">Signal</th><th scope="col" class="num">Weight</th>'
        '<th scope="col" class="num">Ratio</th></tr></thead>\n'
        f"<tbody>\n{''.join(rows)}</tbody>\n"
        "</table>\n</div>\n</details>\n"
    )


def render_token_draws(record: dict[str, Any]) -> str:
    """Every token of every rollout: the u that chose it, its log-probability and probability at T."""
    rows = [
        f'<tr><th scope="row" data-field="rollout">{rollout["rollout"]}</th>'
        f'<td data-field="token"><code>{escape(show_token(token))}</code></td>'
        f'<td data-field="u">{format_u(u)}</td>'
        f'<td data-field="logprob">{format_signal(logprob).lstrip("+")}</td>'
        f'<td data-field="probability">{format_probability(probability)}</td></tr>\n'
        for rollout in record["rollouts"]
        for token, u, logprob, probability in zip(
            rollout["tokens"], rollout["us"], rollout["logprobs"], rollout["probabilities"], strict=True
        )
    ]
    return (
        '<details class="lab-details lab-token-details">\n<summary>Every token: u, log-probability and probability</summary>\n'
        '<div class="lab-table-scroll" tabindex="0">\n<table class="lab-table lab-token-steps">\n'
        "<caption>Each token of each rollout: the u that chose it, its log-probability and probability at T</caption>\n"
        '<thead><tr><th scope="col">Rollout</th><th scope="col">Token</th><th scope="col" class="num">u</th>'
        '<th scope="col" class="num">Log-probability</th><th scope="col" class="num">Probability</th></tr></thead>\n'
        f"<tbody>\n{''.join(rows)}</tbody>\n"
        "</table>\n</div>\n</details>\n"
    )


def render_completions(record: dict[str, Any]) -> str:
    """The eight completions' probabilities before and after the step, as a table (the figure's numbers)."""
    rows = "".join(
        f'<tr><th scope="row" data-field="completion"><code>{escape(text)}</code></th>'
        f'<td data-field="before">{format_probability(record["before"][text])}</td>'
        f'<td data-field="after">{format_probability(record["after"][text])}</td></tr>\n'
        for text in completion_texts()
    )
    return (
        '<details class="lab-details lab-token-details">\n<summary>The eight completions before and after the step</summary>\n'
        '<div class="lab-table-scroll" tabindex="0">\n<table class="lab-table lab-token-completions">\n'
        f"<caption>Each completion&#8217;s probability before and after one step ({_rule_name(record)})</caption>\n"
        '<thead><tr><th scope="col">Completion</th><th scope="col" class="num">Before</th>'
        '<th scope="col" class="num">After</th></tr></thead>\n'
        f"<tbody>\n{rows}</tbody>\n"
        "</table>\n</div>\n</details>\n"
    )


def render_tokens(record: dict[str, Any]) -> str:
    """The token lab's results fragment."""
    return (
        render_rollouts(record)
        + f'<p class="lab-mean">Group mean reward: <strong data-value="mean">{format_number(record["mean"])}</strong></p>\n'
        + render_token_steps(record)
        + render_token_tree(record)
        + render_completion_change(record)
        + render_completions(record)
    )


def render_group(record: dict[str, Any]) -> str:
    """The token lab without the update (`update=hidden`): the tree first, beside or under the controls, then the group."""
    return (
        render_token_tree(record)
        + render_rollouts(record, update=False)
        + f'<p class="lab-mean">Group mean reward: <strong data-value="mean">{format_number(record["mean"])}</strong></p>\n'
        + render_token_draws(record)
    )


def announce_tokens(record: dict[str, Any]) -> str:
    """The group's mean and the range of its sequence ratios after the step, in one sentence."""
    ratios = record["sequence_ratios"]
    return (
        f"Group of {len(record['rollouts'])} rollouts, mean reward {format_number(record['mean'])}; "
        f"after one step under {_rule_name(record)} the sequence ratios run from "
        f"{format_probability(min(ratios))} to {format_probability(max(ratios))}"
    )


@cache
def _run(settings: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    return token_update(**{_SETTING_NAMES[key]: value for key, value in settings})


def token_run(p: Mapping[str, str]) -> dict[str, Any]:
    """The record of the run a computed value's address parameters (as written) give."""
    return _run(tuple((key, p[key]) for key in TOKENS_RUN))


def _rollout(p: Mapping[str, str]) -> tuple[int, dict[str, Any]]:
    rollouts = token_run(p)["rollouts"]
    n = read_position(p["n"], len(rollouts), "a rollout of the group")
    return n - 1, rollouts[n - 1]


def _field(p: Mapping[str, str], fields: tuple[str, ...]) -> str:
    if p["field"] not in fields:
        raise ParameterError(f"field must be one of {', '.join(fields)}, got {quote_value(p['field'])}")
    return p["field"]


def _rollout_field(p: Mapping[str, str]) -> str:
    record, (index, rollout), field = token_run(p), _rollout(p), _field(p, ROLLOUT_FIELDS)
    text = rollout["text"]
    formatters: dict[str, Callable[[], str]] = {
        "text": lambda: str(text),
        "reward": lambda: format_number(rollout["reward"]),
        "length": lambda: str(len(rollout["tokens"])),
        "signal": lambda: format_signal(record["signals"][index]),
        "weight": lambda: format_number(record["weights"][index]),
        # ln pi(text): the sum of its tokens' log-probabilities, in order; and pi(text) by enumeration.
        "logprob": lambda: format_signal(sum(rollout["logprobs"])).lstrip("+"),
        "probability": lambda: format_probability(record["before"][text]),
        "sequence-ratio": lambda: format_probability(record["sequence_ratios"][index]),
        # The same ratio read off the whole completion: pi_new(text) / pi_old(text).
        "probability-ratio": lambda: format_probability(record["after"][text] / record["before"][text]),
    }
    return formatters[field]()


def _step_field(p: Mapping[str, str]) -> str:
    record, (index, rollout), field = token_run(p), _rollout(p), _field(p, STEP_FIELDS)
    t = read_whole_number(p["t"])
    if t is None or not 1 <= t <= len(rollout["tokens"]):
        raise ParameterError(
            f"t must be a whole number from 1 to {len(rollout['tokens'])} (a token of rollout {index + 1}), got {quote_value(p['t'])}"
        )
    prefix = "".join(token for token in rollout["tokens"][: t - 1] if token != "<end>")
    options = next(state for state in record["states"] if state["prefix"] == prefix)["options"]
    formatters: dict[str, Callable[[], str]] = {
        "token": lambda: show_token(rollout["tokens"][t - 1]),
        "u": lambda: format_u(rollout["us"][t - 1]),
        "logprob": lambda: format_signal(rollout["logprobs"][t - 1]).lstrip("+"),
        "probability": lambda: format_probability(rollout["probabilities"][t - 1]),
        "ratio": lambda: format_probability(record["ratios"][index][t - 1]),
        "options": lambda: str(len(options)),
    }
    return formatters[field]()


def _completion(p: Mapping[str, str]) -> str:
    """The completion a value names: `completion=N` (1 to 8, the tree's order) or, with `n`, rollout n's."""
    texts = completion_texts()
    number = read_whole_number(p["completion"])
    if number is None or not 1 <= number <= len(texts):
        raise ParameterError(
            f"completion must be a whole number from 1 to {len(texts)} (the tree's order), got {quote_value(p['completion'])}"
        )
    return texts[number - 1]


def _completion_probability(p: Mapping[str, str]) -> str:
    record, text = token_run(p), _completion(p)
    if p["when"] not in WHEN:
        raise ParameterError(f"when must be one of {', '.join(WHEN)}, got {quote_value(p['when'])}")
    places = read_places(p["places"])
    if p["when"] == "change":
        return format_signal(record["after"][text] - record["before"][text], places)
    return format(round_to_places(record[p["when"]][text], places), "f")


def _branch(p: Mapping[str, str]) -> str:
    """The probability at T of option `option` (1, 2, … in the table's order) of state `state` (0 to 6, the table's rows)."""
    states = token_run(p)["states"]
    s = read_whole_number(p["state"])
    if s is None or not 0 <= s < len(TOKEN_STATES):
        raise ParameterError(f"state must be a whole number from 0 to {len(TOKEN_STATES) - 1}, got {quote_value(p['state'])}")
    options = states[s]["options"]
    j = read_whole_number(p["option"])
    if j is None or not 1 <= j <= len(options):
        raise ParameterError(f"option must be a whole number from 1 to {len(options)}, got {quote_value(p['option'])}")
    return format_probability(options[j - 1]["probability"])


class TokensWidget(Widget):
    """`::: lab tokens`: token-level rollouts, their tree, and one update step under a length rule."""

    name = "tokens"
    title = "Lab: rollouts token by token"
    controls = TOKEN_CONTROLS
    resettable = True
    in_address = True
    address_example = "T=2&rule=token_sum"
    # `update=hidden` (chapter 1): the group and its tree only, without the step the later chapters teach.
    slot_options: ClassVar[Mapping[str, tuple[str, ...]]] = {"update": ("shown", "hidden")}
    values: ClassVar[Mapping[str, ValueDefinition]] = {
        "token-rollout": ValueDefinition({**TOKENS_RUN, "n": None, "field": None}, _rollout_field),
        "token-step": ValueDefinition({**TOKENS_RUN, "n": None, "t": None, "field": None}, _step_field),
        "token-completion": ValueDefinition(
            {**TOKENS_RUN, "completion": None, "when": "before", "places": "4"}, _completion_probability
        ),
        "token-branch": ValueDefinition({**TOKENS_RUN, "state": None, "option": None}, _branch),
        "token-mean": ValueDefinition(dict(TOKENS_RUN), lambda p: format_number(token_run(p)["mean"])),
    }

    def compute(self, settings: Mapping[str, str]) -> dict[str, Any]:
        """token_update's record: the group, its signals and weights, every ratio, the tree and the eight completions."""
        return token_update(**settings)

    def render(self, record: dict[str, Any]) -> str:
        return render_tokens(record)

    def announce(self, record: dict[str, Any]) -> str:
        return announce_tokens(record)

    def hidden_controls(self, view: Mapping[str, str]) -> frozenset[str]:
        """Without the update, its learning rate and length rule."""
        return frozenset({LEARNING_RATE.name, LENGTH_RULE.name}) if view.get("update") == "hidden" else frozenset()

    def render_view(self, record: dict[str, Any], view: Mapping[str, str]) -> str:
        return render_group(record) if view.get("update") == "hidden" else render_tokens(record)

    def announce_view(self, record: dict[str, Any], view: Mapping[str, str]) -> str:
        if view.get("update") == "hidden":
            return f"Group of {len(record['rollouts'])} rollouts, mean reward {format_number(record['mean'])}"
        return announce_tokens(record)

    def format_table(self, record: dict[str, Any]) -> str:
        """The rollouts' table, every token's numbers and the eight completions, in plain text."""
        settings = record["settings"]
        lines = [
            f"Prompt: {PROMPT}",
            f"Temperature {format_exact(settings['temperature'])}, group size {settings['group_size']}, "
            f"seed {settings['seed']}, learning rate {format_exact(settings['learning_rate'])}, "
            f"length rule {settings['length_rule']}",
            "",
            f"{'Rollout':>7}  {'Tokens':<62} {'Reward':>6} {'Sequence ratio':>14}",
        ]
        for rollout, ratio in zip(record["rollouts"], record["sequence_ratios"], strict=True):
            tokens = " ".join(
                f"{show_token(token)} ({format_probability(p)})"
                for token, p in zip(rollout["tokens"], rollout["probabilities"], strict=True)
            )
            lines.append(
                f"{rollout['rollout']:>7}  {tokens:<62} {format_number(rollout['reward']):>6} {format_probability(ratio):>14}"
            )
        lines += ["", f"Group mean reward: {format_number(record['mean'])}", ""]
        lines.append(
            f"{'Rollout':>7}  {'Token':<10} {'u':>6} {'Log-prob':>8} {'Prob':>6} {'Signal':>7} {'Weight':>6} {'Ratio':>6}"
        )
        for rollout, signal, weight, ratios in zip(
            record["rollouts"], record["signals"], record["weights"], record["ratios"], strict=True
        ):
            for token, u, logprob, p, ratio in zip(
                rollout["tokens"], rollout["us"], rollout["logprobs"], rollout["probabilities"], ratios, strict=True
            ):
                lines.append(
                    f"{rollout['rollout']:>7}  {show_token(token):<10} {format_u(u):>6} "
                    f"{format_signal(logprob).lstrip('+'):>8} {format_probability(p):>6} {format_signal(signal):>7} "
                    f"{format_number(weight):>6} {format_probability(ratio):>6}"
                )
        lines += ["", f"{'Completion':<18} {'Before':>6} {'After':>6}"]
        for text in completion_texts():
            lines.append(
                f"{text:<18} {format_probability(record['before'][text]):>6} {format_probability(record['after'][text]):>6}"
            )
        return "\n".join(lines)


WIDGET = TokensWidget()
