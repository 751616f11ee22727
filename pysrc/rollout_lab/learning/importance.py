"""Importance sampling as an estimator: one group drawn from the behaviour policy, reweighted to a policy that moved.

Chapter 5 checks the identity E_old[ρR] = E_new[R] exactly; this module shows
what the identity costs when it is used with a handful of draws. The group is
the sampler's (the toy at T = 1, the behaviour policy, with the lab's seeded
stream); the policy it is reweighted to is the toy at a lower temperature,
which is the toy's logits multiplied by 1/T (the update chapter 5 uses,
doubling every logit, is T = 0.5). The further that policy moves, the fewer
draws carry the estimate (its effective sample size), and the wider the
estimate spreads, while drawing from the new policy itself would have
narrowed it. Every sum is a Decimal sum in the core's fixed context, so the
numbers are the same in CPython and in Pyodide. Standard library only.
"""

from dataclasses import dataclass
from decimal import Decimal

from rollout_lab.exact import CONTEXT, add_in_order, exact_decimal, float_from_decimal
from rollout_lab.sampling import sample_group, softmax_probabilities
from rollout_lab.world import CANDIDATES

# The policy that drew the data: the toy at T = 1, as in chapter 5's example.
BEHAVIOUR_TEMPERATURE = 1.0


@dataclass(frozen=True)
class ImportanceEstimate:
    """What K draws from the behaviour policy say about the expected reward of the policy at `temperature`.

    `expected_reward` is exact (E_new[R]); `estimate` is the importance-sampling
    estimate from the seeded group, (1/K) Σ ρ_k R_k; `effective_size` is that
    group's (Σρ_k)² / Σρ_k², how many draws from the new policy it is worth;
    `standard_error` is the estimate's exact spread over all groups of size K,
    √(Var_old(ρR) / K), and `on_policy_error` the spread of the plain mean of
    K draws from the new policy itself, √(Var_new(R) / K).
    """

    temperature: float
    group_size: int
    seed: int
    drawn: tuple[int, ...]
    ratios: tuple[float, ...]
    expected_reward: float
    estimate: float
    effective_size: float
    standard_error: float
    on_policy_error: float


def estimate_by_importance(temperature: float, group_size: int, seed: int) -> ImportanceEstimate:
    """Reweight the seeded group drawn at T = 1 to the toy at `temperature` (checked settings)."""
    old = [exact_decimal(p) for p in softmax_probabilities(BEHAVIOUR_TEMPERATURE)]
    new = [exact_decimal(p) for p in softmax_probabilities(temperature)]
    rewards = [exact_decimal(c.reward) for c in CANDIDATES]
    ratios = [CONTEXT.divide(n, o) for n, o in zip(new, old)]
    drawn = tuple(index for _, index in sample_group(softmax_probabilities(BEHAVIOUR_TEMPERATURE), group_size, seed))
    size = Decimal(group_size)

    weights = [ratios[i] for i in drawn]
    estimate = CONTEXT.divide(add_in_order(CONTEXT.multiply(ratios[i], rewards[i]) for i in drawn), size)
    weight_sum = add_in_order(weights)
    effective_size = CONTEXT.divide(
        CONTEXT.multiply(weight_sum, weight_sum), add_in_order(CONTEXT.multiply(w, w) for w in weights)
    )

    expected = add_in_order(CONTEXT.multiply(n, r) for n, r in zip(new, rewards))
    # E_old[(ρR)²] − E_new[R]²: the variance of one reweighted draw; a mean of K of them has 1/K of it.
    weighted = [CONTEXT.multiply(x, r) for x, r in zip(ratios, rewards)]
    weighted_square = add_in_order(CONTEXT.multiply(o, CONTEXT.multiply(w, w)) for o, w in zip(old, weighted))
    plain_square = add_in_order(CONTEXT.multiply(n, CONTEXT.multiply(r, r)) for n, r in zip(new, rewards))
    expected_square = CONTEXT.multiply(expected, expected)

    return ImportanceEstimate(
        temperature=temperature,
        group_size=group_size,
        seed=seed,
        drawn=drawn,
        ratios=tuple(float_from_decimal(x) for x in ratios),
        expected_reward=float_from_decimal(expected),
        estimate=float_from_decimal(estimate),
        effective_size=float_from_decimal(effective_size),
        standard_error=float_from_decimal(_spread(weighted_square, expected_square, size)),
        on_policy_error=float_from_decimal(_spread(plain_square, expected_square, size)),
    )


def _spread(mean_square: Decimal, square_mean: Decimal, size: Decimal) -> Decimal:
    """√((E[X²] − E[X]²) / K), with a variance that is zero on paper kept at zero (never a tiny negative)."""
    variance = CONTEXT.subtract(mean_square, square_mean)
    return CONTEXT.sqrt(CONTEXT.divide(max(variance, Decimal(0)), size))
