"""Numbers in the prose computed by the core: `{{ mean T=1 K=3 }}` and friends.

An author never types a toy number by hand, so the prose cannot drift from
the lab. Every value is formatted by the core's own display functions.

The whole convention is here: the markdown-it rule that reads `{{ … }}`
(`add_computed_values`), the registry of values (`DEFINITIONS`, the world's
and the update's, with each lab widget's `values`: `list_definitions`), computing one
while the page is parsed (`compute_value`, called by parse.py, which stores the
text in the token) and writing it (`render_computed_value`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
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
    PROMPT,
    check_temperature,
    format_logit,
    format_number,
    format_signal,
    softmax_probabilities,
)
from rollout_lab.estimator import compare_signal_rules, compute_policy_gradient
from rollout_lab.exact import CONTEXT, exact_decimal
from rollout_lab.update import (
    KL_ESTIMATORS,
    average_kl_estimate,
    clipped_objective,
    kl_divergence,
    kl_estimate,
    kl_sample_estimate,
    logit_step,
    normalised_signals,
    probabilities_after_step,
    probability_slopes,
)
from rollout_lab.values import ParameterError, ValueDefinition, read_candidate, read_places, read_position
from rollout_lab.widgets import WIDGETS
from rollout_lab.widgets.probabilities import probability_at
from rollout_lab.widgets.sampler import SAMPLED, sampled_record
from sitegen.diagnostics import excerpt, quote, suggest_name

COMPUTED_VALUE = "computed_value"  # the inline token's type


class ComputedValueError(ValueError):
    """A `{{ ... }}` the core cannot compute; the message is what the author reads."""


def _decimal(value: str, name: str, low: float, high: float) -> float:
    """Read a plain decimal setting (step, advantage, epsilon) within [low, high]."""
    text = value.strip().replace("\u2212", "-")
    if re.fullmatch(r"[+-]?[0-9]{1,4}(\.[0-9]{1,6})?", text) and low <= float(text) <= high:
        return float(text)
    raise ParameterError(f"{name} must be a number from {format_number(low)} to {format_number(high)}, got {quote(value)}")


def _sigma(value: str) -> bool:
    if value in ("population", "sample"):
        return value == "sample"
    raise ParameterError(f"sigma must be population or sample, got {quote(value)}")


def _ratio(p: dict[str, str]) -> float:
    return probability_at(p) / probability_at({**p, "T": p["over"]})


def _after_step(p: dict[str, str]) -> float:
    return probabilities_after_step(sampled_record(p), _decimal(p["step"], "step", 0, 100))[read_candidate(p["candidate"])]


def _direction(p: dict[str, str]) -> str:
    slope = probability_slopes(sampled_record(p))[read_candidate(p["candidate"])]
    return "higher" if slope > 0 else "lower" if slope < 0 else "unchanged"


def _kl(p: dict[str, str]) -> float:
    return kl_divergence(softmax_probabilities(check_temperature(p["T"])), softmax_probabilities(check_temperature(p["over"])))


def _kl_sample(p: dict[str, str]) -> float:
    # DeepSeekMath eq. 4 for one sampled answer: r - ln r - 1 with r = pi_ref / pi_theta (`over` is the reference).
    return kl_estimate(probability_at({**p, "T": p["over"]}) / probability_at(p))


def _estimator(p: dict[str, str]) -> str:
    if p["estimator"] in KL_ESTIMATORS:
        return p["estimator"]
    raise ParameterError(f"estimator must be {', '.join(KL_ESTIMATORS[:-1])} or {KL_ESTIMATORS[-1]}, got {quote(p['estimator'])}")


def _kl_estimate_mean(p: dict[str, str]) -> float:
    # The average of one estimator of KL(p_T || p_over) over answers drawn from p_T (draws=current) or p_over (draws=reference).
    current = softmax_probabilities(check_temperature(p["T"]))
    reference = softmax_probabilities(check_temperature(p["over"]))
    if p["draws"] not in ("current", "reference"):
        raise ParameterError(f"draws must be current or reference, got {quote(p['draws'])}")
    sampling = current if p["draws"] == "current" else reference
    return average_kl_estimate(_estimator(p), sampling, current, reference)


def _logit_move(p: dict[str, str]) -> float:
    move = logit_step(sampled_record(p))[read_candidate(p["candidate"])]
    return float(CONTEXT.multiply(exact_decimal(move), exact_decimal(_decimal(p["step"], "step", 0, 100)))) + 0.0


def _log_probability_slope(p: dict[str, str]) -> float:
    # d log p_i / d z_j = (1[i = j] - p_j) / T: how fast candidate i's log-probability changes as logit j rises.
    chosen, moved = read_candidate(p["candidate"]), read_candidate(p["logit"])
    temperature = exact_decimal(check_temperature(p["T"]))
    share = exact_decimal(probability_at({**p, "candidate": str(moved)}))
    return float(CONTEXT.divide(CONTEXT.subtract(Decimal(1 if chosen == moved else 0), share), temperature)) + 0.0


@cache
def _rules(temperature: str, group_size: str) -> dict[str, Any]:
    return compare_signal_rules(temperature, group_size)


def _rule(p: dict[str, str]) -> dict[str, Any]:
    rules = _rules(p["T"], p["K"])["rules"]
    if p["rule"] not in rules:
        names = list(rules)
        raise ParameterError(f"rule must be {', '.join(names[:-1])} or {names[-1]}, got {quote(p['rule'])}")
    described: dict[str, Any] = rules[p["rule"]]
    return described


def _optional(value: float | None, places: int) -> str:
    # A ratio or cosine the core leaves undefined (a zero gradient component) is written as such.
    return "undefined" if value is None else format_number(value, places)


# The estimator's settings: chapter 6's exact enumeration at the recorded run's T and K.
ESTIMATED = {"T": SAMPLED["T"], "K": SAMPLED["K"]}


def _normalised(p: dict[str, str]) -> Any:
    rewards = [d["reward"] for d in sampled_record(p)["draws"]]
    return normalised_signals(rewards, sample=_sigma(p["sigma"]))


def _places(p: dict[str, str]) -> int:
    return read_places(p["places"])


# The values of no one widget: the toy world's table, and what an update does with the sampler's group
# (chapters 4 to 6). Each widget declares the values about its own record (`Widget.values`).
DEFINITIONS: dict[str, ValueDefinition] = {
    "probability-ratio": ValueDefinition(
        {"T": None, "over": "1", "candidate": None, "places": "4"},
        lambda p: format_number(_ratio(p), _places(p)),
    ),
    "clipped-term": ValueDefinition(
        {"T": None, "over": "1", "candidate": None, "advantage": None, "epsilon": "0.2", "places": "4"},
        lambda p: format_number(
            clipped_objective(
                _ratio(p), _decimal(p["advantage"], "advantage", -1000, 1000), _decimal(p["epsilon"], "epsilon", 0, 1)
            ),
            _places(p),
        ),
    ),
    "kl": ValueDefinition({"T": None, "over": "1", "places": "4"}, lambda p: format_number(_kl(p), _places(p))),
    "kl-sample": ValueDefinition(
        {"T": None, "over": "1", "candidate": None, "places": "4"}, lambda p: format_number(_kl_sample(p), _places(p))
    ),
    "kl-estimate": ValueDefinition(
        {"T": None, "over": "1", "candidate": None, "estimator": None, "places": "4"},
        lambda p: format_number(
            kl_sample_estimate(_estimator(p), probability_at({**p, "T": p["over"]}) / probability_at(p)), _places(p)
        ),
    ),
    "kl-estimate-mean": ValueDefinition(
        {"T": None, "over": "1", "estimator": None, "draws": None, "places": "4"},
        lambda p: format_number(_kl_estimate_mean(p), _places(p)),
    ),
    "logit-move": ValueDefinition(
        {**SAMPLED, "candidate": None, "step": "1", "places": "4"},
        lambda p: format_signal(_logit_move(p), _places(p)),
    ),
    "log-probability-slope": ValueDefinition(
        {"T": SAMPLED["T"], "candidate": None, "logit": None, "places": "4"},
        lambda p: format_signal(_log_probability_slope(p), _places(p)),
    ),
    "policy-gradient": ValueDefinition(
        {"T": SAMPLED["T"], "candidate": None, "places": "4"},
        lambda p: format_signal(compute_policy_gradient(p["T"])[read_candidate(p["candidate"])], _places(p)),
    ),
    "expected-update": ValueDefinition(
        {**ESTIMATED, "rule": None, "candidate": None, "places": "4"},
        lambda p: format_signal(_rule(p)["expected_update"][read_candidate(p["candidate"])], _places(p)),
    ),
    "update-ratio": ValueDefinition(
        {**ESTIMATED, "rule": None, "candidate": None, "places": "4"},
        lambda p: _optional(_rule(p)["ratios_to_gradient"][read_candidate(p["candidate"])], _places(p)),
    ),
    "update-cosine": ValueDefinition(
        {**ESTIMATED, "rule": None, "places": "4"}, lambda p: _optional(_rule(p)["cosine_to_gradient"], _places(p))
    ),
    "update-variance": ValueDefinition(
        {**ESTIMATED, "rule": None, "places": "4"}, lambda p: format_number(_rule(p)["variance"], _places(p))
    ),
    "update-relative-variance": ValueDefinition(
        {**ESTIMATED, "rule": None, "places": "4"}, lambda p: _optional(_rule(p)["relative_variance"], _places(p))
    ),
    "probability-after": ValueDefinition(
        {**SAMPLED, "step": None, "candidate": None, "places": "4"},
        lambda p: format_number(_after_step(p), _places(p)),
    ),
    "step-direction": ValueDefinition({**SAMPLED, "candidate": None}, _direction),
    "std": ValueDefinition({**SAMPLED, "sigma": None, "places": "4"}, lambda p: format_number(_normalised(p).std, _places(p))),
    "normalised-signal": ValueDefinition(
        {**SAMPLED, "n": None, "sigma": None, "places": "2"},
        lambda p: format_signal(
            _normalised(p).signals[read_position(p["n"], len(_normalised(p).signals), "a draw of the group") - 1],
            _places(p),
        ),
    ),
    "normalised-signals": ValueDefinition(
        {**SAMPLED, "sigma": None, "places": "2"},
        lambda p: ", ".join(format_signal(s, _places(p)) for s in _normalised(p).signals),
    ),
    "logit": ValueDefinition({"candidate": None}, lambda p: format_logit(CANDIDATES[read_candidate(p["candidate"])].logit)),
    "reward": ValueDefinition({"candidate": None}, lambda p: format_number(CANDIDATES[read_candidate(p["candidate"])].reward)),
    "completion": ValueDefinition({"candidate": None}, lambda p: CANDIDATES[read_candidate(p["candidate"])].completion),
    "prompt": ValueDefinition({}, lambda p: PROMPT),
}


def list_definitions() -> dict[str, ValueDefinition]:
    """Return every computed value by name: the ones above and each registered widget's."""
    return {**DEFINITIONS, **{name: value for widget in WIDGETS.values() for name, value in widget.values.items()}}


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


# Each expression's text, computed once per process (the dev server's build process lives as long as the code does: an
# edit under pysrc/ restarts it) and seeded from the tool's cache by a build (render/core_results.py). Errors are not kept.
_COMPUTED: dict[str, str] = {}


def compute_value(expression: str) -> str:
    """Return the text of `name key=value ...`, or raise ComputedValueError saying what is wrong."""
    text = _COMPUTED.get(expression)
    if text is None:
        text = _COMPUTED[expression] = _compute(expression)
    return text


def remember_computed_values(values: Mapping[str, str]) -> None:
    """Take these texts as computed (the kept results of this very code)."""
    _COMPUTED.update(values)


def list_computed_values() -> dict[str, str]:
    """Return every text computed or remembered in this process, by expression."""
    return dict(_COMPUTED)


def _compute(expression: str) -> str:
    words = expression.split()
    if not words:
        raise ComputedValueError("empty computed value '{{ }}'")
    name, rest = words[0], words[1:]
    definitions = list_definitions()
    definition = definitions.get(name)
    if definition is None:
        raise ComputedValueError(f"unknown computed value '{excerpt(name)}'{suggest_name(name[:40], definitions)}")
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
    except ParameterError as error:
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
