"""The computed values of importance sampling as an estimator (chapter 5): `{{ importance T=0.5 field=estimate }}`.

Each is a field of rollout_lab/learning/importance.py's `ImportanceEstimate`
for the group of K draws the sampler's seed gives at T = 1, reweighted to the
toy at temperature T. Numbers are written to fixed places, so a table's
column reads alike (0.6250, never 0.625 above 0.6734).
"""

from collections.abc import Callable

from rollout_lab.display import format_fixed
from rollout_lab.learning.importance import ImportanceEstimate, estimate_by_importance
from rollout_lab.validation import check_group_size, check_seed, check_temperature
from rollout_lab.values import ParameterError, ValueDefinition, quote_value, read_candidate, read_places
from rollout_lab.world import DEFAULT_SEED

# Each field, and what it reads of the estimate (count: how many of the draws are the candidate).
FIELDS: dict[str, Callable[[ImportanceEstimate, dict[str, str]], float]] = {
    "expected": lambda e, p: e.expected_reward,
    "estimate": lambda e, p: e.estimate,
    "effective-size": lambda e, p: e.effective_size,
    "error": lambda e, p: e.standard_error,
    "on-policy-error": lambda e, p: e.on_policy_error,
    "ratio": lambda e, p: e.ratios[read_candidate(p["candidate"])],
    "count": lambda e, p: e.drawn.count(read_candidate(p["candidate"])),
}


def _importance(p: dict[str, str]) -> str:
    field = p["field"]
    if field not in FIELDS:
        raise ParameterError(f"field must be one of {', '.join(FIELDS)}, got {quote_value(field)}")
    estimate = estimate_by_importance(check_temperature(p["T"]), check_group_size(p["K"]), check_seed(p["seed"]))
    return format_fixed(FIELDS[field](estimate, p), 0 if field == "count" else read_places(p["places"]))


VALUES: dict[str, ValueDefinition] = {
    "importance": ValueDefinition(
        {"T": None, "K": "8", "seed": str(DEFAULT_SEED), "field": None, "candidate": "0", "places": "4"}, _importance
    ),
}
