"""Numbers in the prose computed by the core: `{{ mean T=1 K=3 }}` and friends.

An author never types a toy number by hand, so the prose cannot drift from
the lab. Every value is formatted by the core's own display functions.

The whole convention is here: the markdown-it rule that reads `{{ … }}`
(`add_computed_values`), the registry of values (`DEFINITIONS`), computing one
while the page is parsed (`compute_value`, called by parse.py, which stores the
text in the token) and writing it (`render_computed_value`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from rollout_lab import (
    CANDIDATES,
    DEFAULT_GROUP_SIZE,
    DEFAULT_SEED,
    DEFAULT_TEMPERATURE,
    PROMPT,
    check_group_size,
    check_seed,
    check_temperature,
    expected_reward,
    format_logit,
    format_number,
    format_percent,
    format_signal,
    format_u,
    group_statistics,
    present_probabilities,
    run_lab,
    softmax_probabilities,
)
from rollout_lab.controls import TRAINING_CONTROLS
from rollout_lab.training import run_training
from rollout_lab.update import (
    clipped_objective,
    kl_divergence,
    kl_estimate,
    logit_step,
    normalised_signals,
    probabilities_after_step,
    probability_slopes,
)
from sitegen.diagnostics import excerpt, quote, suggest_name

COMPUTED_VALUE = "computed_value"  # the inline token's type

DRAW_FIELDS = ("completion", "reward", "signal", "u", "index")


class ComputedValueError(ValueError):
    """A `{{ ... }}` the core cannot compute; the message is what the author reads."""


# The lab's rule for numbers: ASCII digits only (str.isdigit() would also take
# "３" or "²", and int() then fails with Python's own message, not ours).
_WHOLE_NUMBER = re.compile(r"[0-9]{1,9}")


def _whole_number(value: str) -> int | None:
    return int(value.strip()) if _WHOLE_NUMBER.fullmatch(value.strip()) else None


def _shown(value: str) -> str:
    """Show a number as typed (got 7) and anything else quoted and cut short (got 'abc')."""
    return value.strip() if _WHOLE_NUMBER.fullmatch(value.strip()) else quote(value)


def _candidate(value: str) -> int:
    indices = [c.index for c in CANDIDATES]
    if _whole_number(value) in indices:
        return int(value.strip())
    allowed = ", ".join(str(i) for i in indices[:-1]) + f" or {indices[-1]}"
    raise ComputedValueError(f"candidate must be {allowed}, got {_shown(value)}")


def _places(value: str) -> int:
    number = _whole_number(value)
    if number is not None and 0 <= number <= 10:
        return number
    raise ComputedValueError(f"places must be a whole number from 0 to 10, got {_shown(value)}")


def _position(value: str, count: int, what: str) -> int:
    number = _whole_number(value)
    if number is not None and 1 <= number <= count:
        return number
    raise ComputedValueError(f"n must be a whole number from 1 to {count} ({what}), got {_shown(value)}")


def _field(value: str) -> str:
    if value in DRAW_FIELDS:
        return value
    raise ComputedValueError(f"field must be one of {', '.join(DRAW_FIELDS)}, got {quote(value)}")


@dataclass(frozen=True)
class ValueDefinition:
    """A computed value's parameters (with defaults; None = required) and how to compute it."""

    parameters: dict[str, str | None]
    compute: Callable[[dict[str, str]], str]


def _record(p: dict[str, str]) -> dict[str, Any]:
    return run_lab(check_temperature(p["T"]), check_group_size(p["K"]), check_seed(p["seed"]))


def _draw(p: dict[str, str]) -> dict[str, Any]:
    record = _record(p)
    draw: dict[str, Any] = record["draws"][_position(p["n"], len(record["draws"]), "a draw of the group") - 1]
    return draw


def _draw_field(p: dict[str, str]) -> str:
    draw, field = _draw(p), _field(p["field"])
    formatters: dict[str, Callable[[], str]] = {
        "completion": lambda: str(draw["completion"]),
        "reward": lambda: format_number(draw["reward"]),
        "signal": lambda: format_signal(draw["signal"]),
        "u": lambda: format_u(draw["u"]),
        "index": lambda: str(draw["index"]),
    }
    return formatters[field]()


def _comparison(p: dict[str, str]) -> str:
    record = _record(p)
    reward = record["draws"][_position(p["n"], len(record["draws"]), "a draw of the group") - 1]["reward"]
    mean = record["mean"]
    return "below" if reward < mean else "above" if reward > mean else "equal to"


def _group_signal(p: dict[str, str]) -> str:
    statistics = group_statistics(p["rewards"])
    return format_signal(statistics.signals[_position(p["n"], len(statistics.signals), "a reward of the list") - 1])


def _probability(p: dict[str, str]) -> float:
    return softmax_probabilities(check_temperature(p["T"]))[_candidate(p["candidate"])]


def _decimal(value: str, name: str, low: float, high: float) -> float:
    """Read a plain decimal setting (step, advantage, epsilon) within [low, high]."""
    text = value.strip().replace("\u2212", "-")
    if re.fullmatch(r"[+-]?[0-9]{1,4}(\.[0-9]{1,6})?", text) and low <= float(text) <= high:
        return float(text)
    raise ComputedValueError(f"{name} must be a number from {format_number(low)} to {format_number(high)}, got {quote(value)}")


def _sigma(value: str) -> bool:
    if value in ("population", "sample"):
        return value == "sample"
    raise ComputedValueError(f"sigma must be population or sample, got {quote(value)}")


def _ratio(p: dict[str, str]) -> float:
    return _probability(p) / _probability({**p, "T": p["over"]})


def _after_step(p: dict[str, str]) -> float:
    return probabilities_after_step(_record(p), _decimal(p["step"], "step", 0, 100))[_candidate(p["candidate"])]


def _direction(p: dict[str, str]) -> str:
    slope = probability_slopes(_record(p))[_candidate(p["candidate"])]
    return "higher" if slope > 0 else "lower" if slope < 0 else "unchanged"


def _kl(p: dict[str, str]) -> float:
    return kl_divergence(softmax_probabilities(check_temperature(p["T"])), softmax_probabilities(check_temperature(p["over"])))


def _kl_sample(p: dict[str, str]) -> float:
    # DeepSeekMath eq. 4 for one sampled answer: r - ln r - 1 with r = pi_ref / pi_theta (`over` is the reference).
    return kl_estimate(_probability({**p, "T": p["over"]}) / _probability(p))


def _normalised(p: dict[str, str]) -> Any:
    rewards = [d["reward"] for d in _record(p)["draws"]]
    return normalised_signals(rewards, sample=_sigma(p["sigma"]))


SAMPLED = {"T": str(DEFAULT_TEMPERATURE), "K": str(DEFAULT_GROUP_SIZE), "seed": str(DEFAULT_SEED)}

# The training lab's settings, named by their address parameters (R, K, seed, lr, E, eps, beta, rule),
# with the lab's defaults; `round` picks a round (0 is before training, "last" the last one; "all" sums the clipped pairs of every round).
TRAINED = {control.url_parameter: control.default for control in TRAINING_CONTROLS if control.url_parameter is not None}
_TRAINING_NAMES = {control.url_parameter: control.name for control in TRAINING_CONTROLS}


@cache
def _training_record(settings: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    return run_training(**{_TRAINING_NAMES[key]: value for key, value in settings})


def _trained(p: dict[str, str]) -> dict[str, Any]:
    return _training_record(tuple((key, p[key]) for key in TRAINED))


def _training_round(p: dict[str, str], *, before: bool) -> int:
    """The round asked for, 1 to R (0 too, for the policy before training, where `before` allows it)."""
    rounds = len(_trained(p)["rounds"])
    if p["round"].strip() == "last":
        return rounds
    low = 0 if before else 1
    number = _whole_number(p["round"])
    if number is not None and low <= number <= rounds:
        return number
    raise ComputedValueError(f"round must be last or a whole number from {low} to {rounds}, got {_shown(p['round'])}")


def _training_epoch(p: dict[str, str]) -> int:
    epochs = len(_trained(p)["rounds"][0]["epochs"])
    number = _whole_number(p["epoch"])
    if number is not None and 1 <= number <= epochs:
        return number
    raise ComputedValueError(f"epoch must be a whole number from 1 to {epochs}, got {_shown(p['epoch'])}")


def _after_round(p: dict[str, str], field: str) -> float:
    number = _training_round(p, before=True)
    record = _trained(p)
    value: float = record["start"][field] if number == 0 else record["rounds"][number - 1][field]
    return value


def _training_probability(p: dict[str, str]) -> float:
    number = _training_round(p, before=True)
    record = _trained(p)
    probabilities = (
        record["start"]["probabilities"] if number == 0 else record["rounds"][number - 1]["epochs"][-1]["probabilities"]
    )
    return float(probabilities[_candidate(p["candidate"])])


def _training_clipped(p: dict[str, str]) -> str:
    rounds = _trained(p)["rounds"]
    chosen = rounds if p["round"].strip() == "all" else [rounds[_training_round(p, before=False) - 1]]
    if p["epoch"].strip() == "all":
        return str(sum(sum(epoch["clipped"]) for r in chosen for epoch in r["epochs"]))
    return str(sum(sum(r["epochs"][_training_epoch(p) - 1]["clipped"]) for r in chosen))


def _training_ratio(p: dict[str, str]) -> float:
    r = _trained(p)["rounds"][_training_round(p, before=False) - 1]
    candidate = _candidate(p["candidate"])
    if candidate not in r["indices"]:
        raise ComputedValueError(f"candidate {candidate} was not drawn in round {r['round']}, so it has no ratio")
    ratio: float = r["epochs"][_training_epoch(p) - 1]["ratios"][r["indices"].index(candidate)]
    return ratio


DEFINITIONS: dict[str, ValueDefinition] = {
    "probability": ValueDefinition(
        {"T": "1", "candidate": None, "places": "2"},
        lambda p: format_percent(_probability(p), _places(p["places"])),
    ),
    "probability-value": ValueDefinition(
        {"T": "1", "candidate": None, "places": "4"},
        lambda p: format_number(_probability(p), _places(p["places"])),
    ),
    "expected-reward": ValueDefinition(
        {"T": "1", "places": "4"}, lambda p: format_number(expected_reward(check_temperature(p["T"])), _places(p["places"]))
    ),
    "probability-ratio": ValueDefinition(
        {"T": None, "over": "1", "candidate": None, "places": "4"},
        lambda p: format_number(_ratio(p), _places(p["places"])),
    ),
    "clipped-term": ValueDefinition(
        {"T": None, "over": "1", "candidate": None, "advantage": None, "epsilon": "0.2", "places": "4"},
        lambda p: format_number(
            clipped_objective(
                _ratio(p), _decimal(p["advantage"], "advantage", -1000, 1000), _decimal(p["epsilon"], "epsilon", 0, 1)
            ),
            _places(p["places"]),
        ),
    ),
    "kl": ValueDefinition({"T": None, "over": "1", "places": "4"}, lambda p: format_number(_kl(p), _places(p["places"]))),
    "kl-sample": ValueDefinition(
        {"T": None, "over": "1", "candidate": None, "places": "4"}, lambda p: format_number(_kl_sample(p), _places(p["places"]))
    ),
    "logit-move": ValueDefinition(
        {**SAMPLED, "candidate": None, "places": "4"},
        lambda p: format_signal(logit_step(_record(p))[_candidate(p["candidate"])], _places(p["places"])),
    ),
    "probability-after": ValueDefinition(
        {**SAMPLED, "step": None, "candidate": None, "places": "4"},
        lambda p: format_number(_after_step(p), _places(p["places"])),
    ),
    "step-direction": ValueDefinition({**SAMPLED, "candidate": None}, _direction),
    "std": ValueDefinition(
        {**SAMPLED, "sigma": None, "places": "4"}, lambda p: format_number(_normalised(p).std, _places(p["places"]))
    ),
    "normalised-signal": ValueDefinition(
        {**SAMPLED, "n": None, "sigma": None, "places": "2"},
        lambda p: format_signal(
            _normalised(p).signals[_position(p["n"], len(_normalised(p).signals), "a draw of the group") - 1],
            _places(p["places"]),
        ),
    ),
    "normalised-signals": ValueDefinition(
        {**SAMPLED, "sigma": None, "places": "2"},
        lambda p: ", ".join(format_signal(s, _places(p["places"])) for s in _normalised(p).signals),
    ),
    "training-expected-reward": ValueDefinition(
        {**TRAINED, "round": "last", "places": "4"},
        lambda p: format_number(_after_round(p, "expected_reward"), _places(p["places"])),
    ),
    "training-kl": ValueDefinition(
        {**TRAINED, "round": "last", "places": "4"}, lambda p: format_number(_after_round(p, "kl"), _places(p["places"]))
    ),
    "training-probability": ValueDefinition(
        {**TRAINED, "round": "last", "candidate": None, "places": "4"},
        lambda p: format_number(_training_probability(p), _places(p["places"])),
    ),
    "training-clipped": ValueDefinition({**TRAINED, "round": "all", "epoch": "all"}, _training_clipped),
    "training-ratio": ValueDefinition(
        {**TRAINED, "round": None, "epoch": None, "candidate": None, "places": "4"},
        lambda p: format_number(_training_ratio(p), _places(p["places"])),
    ),
    "shown-total": ValueDefinition(
        {"T": "1"}, lambda p: present_probabilities(softmax_probabilities(check_temperature(p["T"])))["shown_total"]
    ),
    "mean": ValueDefinition(dict(SAMPLED), lambda p: format_number(_record(p)["mean"])),
    "draw": ValueDefinition({**SAMPLED, "n": None, "field": None}, _draw_field),
    "indices": ValueDefinition(dict(SAMPLED), lambda p: ", ".join(str(d["index"]) for d in _record(p)["draws"])),
    "rewards": ValueDefinition(dict(SAMPLED), lambda p: ", ".join(format_number(d["reward"]) for d in _record(p)["draws"])),
    "signals": ValueDefinition(dict(SAMPLED), lambda p: ", ".join(format_signal(d["signal"]) for d in _record(p)["draws"])),
    "comparison": ValueDefinition({**SAMPLED, "n": None}, _comparison),
    "group-mean": ValueDefinition({"rewards": None}, lambda p: format_number(group_statistics(p["rewards"]).mean)),
    "group-signal": ValueDefinition({"rewards": None, "n": None}, _group_signal),
    "group-signals": ValueDefinition(
        {"rewards": None}, lambda p: ", ".join(format_signal(s) for s in group_statistics(p["rewards"]).signals)
    ),
    "logit": ValueDefinition({"candidate": None}, lambda p: format_logit(CANDIDATES[_candidate(p["candidate"])].logit)),
    "reward": ValueDefinition({"candidate": None}, lambda p: format_number(CANDIDATES[_candidate(p["candidate"])].reward)),
    "completion": ValueDefinition({"candidate": None}, lambda p: CANDIDATES[_candidate(p["candidate"])].completion),
    "prompt": ValueDefinition({}, lambda p: PROMPT),
}


def split_settings(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """Read `key=value` words into a dict; return it and the words that are not key=value."""
    settings: dict[str, str] = {}
    malformed = []
    for word in words:
        key, equals, value = word.partition("=")
        if not equals or not key:
            malformed.append(word)
        else:
            settings[key] = value
    return settings, malformed


@cache
def compute_value(expression: str) -> str:
    """Return the text of `name key=value ...`, or raise ComputedValueError saying what is wrong."""
    words = expression.split()
    if not words:
        raise ComputedValueError("empty computed value '{{ }}'")
    name, rest = words[0], words[1:]
    definition = DEFINITIONS.get(name)
    if definition is None:
        raise ComputedValueError(f"unknown computed value '{excerpt(name)}'{suggest_name(name[:40], DEFINITIONS)}")
    given, malformed = split_settings(rest)
    expected = ", ".join(definition.parameters) or "none"
    if malformed:
        raise ComputedValueError(f"computed value '{name}': write parameters as key=value, got '{excerpt(malformed[0])}'")
    for key in given:
        if key not in definition.parameters:
            raise ComputedValueError(f"computed value '{name}' has no parameter '{excerpt(key)}' (parameters: {expected})")
    for key, default in definition.parameters.items():
        if default is None and key not in given:
            raise ComputedValueError(f"computed value '{name}' needs the parameter '{key}'")
    # Every parameter without a default was given (checked above), so no value is None.
    settings = {key: value for key, default in definition.parameters.items() if (value := given.get(key, default)) is not None}
    try:
        return definition.compute(settings)
    except ComputedValueError as error:
        raise ComputedValueError(f"bad parameter for computed value '{name}': {error}") from None
    except ValueError as error:  # the core's SettingError: its message names the setting and range (and echoes the value)
        raise ComputedValueError(f"bad parameter for computed value '{name}': {excerpt(str(error), 160)}") from None


# --- the syntax: {{ name key=value }} ----------------------------------------


def parse_computed_value(state: StateInline, silent: bool) -> bool:
    """Inline rule: read `{{ name key=value ... }}` into a `computed_value` token."""
    start = state.pos
    if not state.src.startswith("{{", start):
        return False
    end = _next_after(state, "}}", start + 2)
    line_end = _next_after(state, "\n", start)
    if end == -1 or start <= line_end < end:
        return False
    if not silent:
        token = state.push(COMPUTED_VALUE, "", 0)
        token.content = state.src[start + 2 : end].strip()
        token.markup = state.src[start : end + 2]
    state.pos = end + 2
    return True


def _next_after(state: StateInline, needle: str, position: int) -> int:
    """Return the first index of needle at or after position (-1 if none), remembering it for this block.

    A line of ten thousand `{{` with no `}}` would otherwise be scanned to its
    end once per `{{`; the rule's positions only grow, so remembering the last
    answer keeps the whole scan linear.
    """
    memo = state.__dict__.setdefault("_rollouts_next_match", {})
    searched_from, found = memo.get(needle, (None, -1))
    if searched_from is None or position < searched_from or (found != -1 and found < position):
        found = state.src.find(needle, position)
        memo[needle] = (position, found)
    return int(found)


def render_computed_value(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """Write a computed value as escaped plain text (parse put the text into meta)."""
    return escape(str(tokens[index].meta.get("text", tokens[index].markup)), quote=False)


def add_computed_values(md: MarkdownIt) -> None:
    """Teach a parser `{{ … }}`: the inline rule and its render rule."""
    md.inline.ruler.before("text", COMPUTED_VALUE, parse_computed_value)
    md.add_render_rule(COMPUTED_VALUE, render_computed_value)
