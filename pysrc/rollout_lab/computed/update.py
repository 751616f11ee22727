"""The computed values about updates: what a step, a ratio, a clip or a KL does with the sampler's group and the toy world.

Chapters 4 to 6 ask for these (`{{ probability-ratio T=0.5 candidate=0 }}`,
`{{ logit-move K=8 candidate=1 }}`, …); each is computed by the core's own
functions (rollout_lab/update.py, learning/estimator.py) and written by its
display functions, so the prose cannot drift from the lab.
"""

import re
from decimal import Decimal
from functools import cache
from typing import Any

from rollout_lab.display import format_fixed, format_fixed_signal, format_number, format_signal
from rollout_lab.exact import CONTEXT, exact_decimal
from rollout_lab.learning.estimator import compare_signal_rules, compute_policy_gradient
from rollout_lab.sampling import softmax_probabilities
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
from rollout_lab.validation import check_temperature
from rollout_lab.values import ParameterError, ValueDefinition, quote_value, read_candidate, read_places, read_position
from rollout_lab.widgets.probabilities import probability_at
from rollout_lab.widgets.sampler import SAMPLED, sampled_record


def _decimal(value: str, name: str, low: float, high: float) -> float:
    """Read a plain decimal setting (step, advantage, epsilon) within [low, high]."""
    text = value.strip().replace("\u2212", "-")
    if re.fullmatch(r"[+-]?[0-9]{1,4}(\.[0-9]{1,6})?", text) and low <= float(text) <= high:
        return float(text)
    raise ParameterError(f"{name} must be a number from {format_number(low)} to {format_number(high)}, got {quote_value(value)}")


def _sigma(value: str) -> bool:
    if value in ("population", "sample"):
        return value == "sample"
    raise ParameterError(f"sigma must be population or sample, got {quote_value(value)}")


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
    raise ParameterError(
        f"estimator must be {', '.join(KL_ESTIMATORS[:-1])} or {KL_ESTIMATORS[-1]}, got {quote_value(p['estimator'])}"
    )


def _kl_estimate_mean(p: dict[str, str]) -> float:
    # The average of one estimator of KL(p_T || p_over) over answers drawn from p_T (draws=current) or p_over (draws=reference).
    current = softmax_probabilities(check_temperature(p["T"]))
    reference = softmax_probabilities(check_temperature(p["over"]))
    if p["draws"] not in ("current", "reference"):
        raise ParameterError(f"draws must be current or reference, got {quote_value(p['draws'])}")
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
        raise ParameterError(f"rule must be {', '.join(names[:-1])} or {names[-1]}, got {quote_value(p['rule'])}")
    described: dict[str, Any] = rules[p["rule"]]
    return described


def _optional(value: float | None, places: int) -> str:
    # The estimator's and the KL's values fill tables (chapter 7's, chapter 5's), so they are written to fixed places
    # (0.1040, never 0.104 above 0.2424).
    # A ratio or cosine the core leaves undefined (a zero gradient component) is written as such.
    return "undefined" if value is None else format_fixed(value, places)


# The estimator's settings: chapter 6's exact enumeration at the recorded run's T and K.
ESTIMATED = {"T": SAMPLED["T"], "K": SAMPLED["K"]}


def _normalised(p: dict[str, str]) -> Any:
    rewards = [d["reward"] for d in sampled_record(p)["draws"]]
    return normalised_signals(rewards, sample=_sigma(p["sigma"]))


def _places(p: dict[str, str]) -> int:
    return read_places(p["places"])


# What an update does with the sampler's group and the toy world's probabilities (chapters 4 to 6), by name.
VALUES: dict[str, ValueDefinition] = {
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
    "kl": ValueDefinition({"T": None, "over": "1", "places": "4"}, lambda p: format_fixed(_kl(p), _places(p))),
    "kl-sample": ValueDefinition(
        {"T": None, "over": "1", "candidate": None, "places": "4"}, lambda p: format_fixed(_kl_sample(p), _places(p))
    ),
    "kl-estimate": ValueDefinition(
        {"T": None, "over": "1", "candidate": None, "estimator": None, "places": "4"},
        lambda p: format_fixed(
            kl_sample_estimate(_estimator(p), probability_at({**p, "T": p["over"]}) / probability_at(p)), _places(p)
        ),
    ),
    "kl-estimate-mean": ValueDefinition(
        {"T": None, "over": "1", "estimator": None, "draws": None, "places": "4"},
        lambda p: format_fixed(_kl_estimate_mean(p), _places(p)),
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
        lambda p: format_fixed_signal(_rule(p)["expected_update"][read_candidate(p["candidate"])], _places(p)),
    ),
    "update-ratio": ValueDefinition(
        {**ESTIMATED, "rule": None, "candidate": None, "places": "4"},
        lambda p: _optional(_rule(p)["ratios_to_gradient"][read_candidate(p["candidate"])], _places(p)),
    ),
    "update-cosine": ValueDefinition(
        {**ESTIMATED, "rule": None, "places": "4"}, lambda p: _optional(_rule(p)["cosine_to_gradient"], _places(p))
    ),
    "update-variance": ValueDefinition(
        {**ESTIMATED, "rule": None, "places": "4"}, lambda p: format_fixed(_rule(p)["variance"], _places(p))
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
}
