"""The update as an estimator of the policy gradient, shown exactly on the one-action world.

The quantity a step should follow is the gradient of the expected reward
J = sum_j p_j r_j with respect to the logits, an expectation over answers drawn
from the current policy: dJ/dz_j = p_j (r_j - J) / T. Chapter 6's update
estimates it from one group a_1 .. a_K drawn from that policy,

    u_j = (1/K) sum_i c_i (1[a_i = j] - p_j) / T,

where the signal rule sets c_i: "raw" c_i = R_i; "mean" c_i = R_i - mean (the
mean includes R_i itself, so E[u] = (K-1)/K of the gradient); "leave_one_out"
c_i = R_i - (mean of the other K-1 rewards), RLOO, whose E[u] is the gradient;
"std" c_i = (R_i - mean) / sigma with the population sigma (all 0 when sigma
is 0), chapter 6's "std" rule, whose E[u] is not proportional to the gradient.

Every ordered group of K draws (3^K of them) is enumerated and weighted by its
probability, so the expectations and variances are exact, not sampled. The
arithmetic runs in the core's fixed decimal context and each number is
converted to float once, so the build and the browser write the same bits.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import product
from typing import Any

from rollout_lab.exact import CONTEXT, add_in_order, exact_decimal
from rollout_lab.learning.training import policy_from_logits

# The sampler's own check of a whole number in a range, for this module's narrower range of group sizes.
from rollout_lab.validation import check_temperature, check_whole_number
from rollout_lab.world import CANDIDATES, DEFAULT_GROUP_SIZE, DEFAULT_TEMPERATURE

ZERO, ONE = Decimal(0), Decimal(1)

ESTIMATOR_RULES = ("raw", "mean", "leave_one_out", "std")
# Leave-one-out needs another draw to average; 3^8 = 6561 groups is enough for a figure
# and keeps exact enumeration quick in the browser.
ESTIMATOR_GROUP_SIZE_RANGE = (2, 8)


@dataclass(frozen=True)
class Moments:
    """The exact mean and per-logit variance of one rule's update estimate."""

    expected: tuple[Decimal, ...]
    variances: tuple[Decimal, ...]


def soften(temperature: Decimal) -> tuple[Decimal, ...]:
    """Return the candidates' softmax(z / T) as exact decimals: the sampler's probabilities before their conversion to float."""
    return policy_from_logits([CONTEXT.divide(exact_decimal(c.logit), temperature) for c in CANDIDATES]).probabilities


def find_gradient(probabilities: Sequence[Decimal], rewards: Sequence[Decimal], temperature: Decimal) -> tuple[Decimal, ...]:
    """Return dJ/dz_j = p_j (r_j - J) / T, the exact policy gradient of J = sum_j p_j r_j."""
    expected = add_in_order(CONTEXT.multiply(p, r) for p, r in zip(probabilities, rewards))
    return tuple(
        CONTEXT.divide(CONTEXT.multiply(p, CONTEXT.subtract(r, expected)), temperature) for p, r in zip(probabilities, rewards)
    )


def raw_signals(rewards: Sequence[Decimal]) -> list[Decimal]:
    """c_i = R_i."""
    return list(rewards)


def centred_signals(rewards: Sequence[Decimal]) -> list[Decimal]:
    """c_i = R_i - mean, the mean over the whole group (R_i included)."""
    mean = CONTEXT.divide(add_in_order(rewards), Decimal(len(rewards)))
    return [CONTEXT.subtract(r, mean) for r in rewards]


def leave_one_out_signals(rewards: Sequence[Decimal]) -> list[Decimal]:
    """c_i = R_i - (sum of the others) / (K - 1), RLOO's baseline, which does not depend on R_i."""
    total = add_in_order(rewards)
    others = Decimal(len(rewards) - 1)
    return [CONTEXT.subtract(r, CONTEXT.divide(CONTEXT.subtract(total, r), others)) for r in rewards]


def population_sigma(centred: Sequence[Decimal]) -> Decimal:
    """Return the population sigma of a group from its centred rewards: sqrt(sum c_i^2 / K)."""
    squares = add_in_order(CONTEXT.multiply(c, c) for c in centred)
    return CONTEXT.sqrt(CONTEXT.divide(squares, Decimal(len(centred))))


def normalised_signals(rewards: Sequence[Decimal]) -> list[Decimal]:
    """c_i = (R_i - mean) / sigma with the population sigma; all 0 when sigma is 0, as chapter 6's "std" rule."""
    centred = centred_signals(rewards)
    sigma = population_sigma(centred)
    if sigma == 0:
        return [ZERO for _ in centred]
    return [CONTEXT.divide(c, sigma) for c in centred]


SIGNAL_FUNCTIONS: dict[str, Callable[[Sequence[Decimal]], list[Decimal]]] = {
    "raw": raw_signals,
    "mean": centred_signals,
    "leave_one_out": leave_one_out_signals,
    "std": normalised_signals,
}


def estimate_update(
    group: Sequence[int], signals: Sequence[Decimal], probabilities: Sequence[Decimal], temperature: Decimal
) -> list[Decimal]:
    """Return u_j = (1/K) sum_i c_i (1[a_i = j] - p_j) / T for one group of drawn answers a_i."""
    scale = CONTEXT.multiply(Decimal(len(group)), temperature)
    return [
        CONTEXT.divide(
            add_in_order(CONTEXT.multiply(c, CONTEXT.subtract(ONE if a == j else ZERO, p_j)) for c, a in zip(signals, group)),
            scale,
        )
        for j, p_j in enumerate(probabilities)
    ]


def weigh_groups(probabilities: Sequence[Decimal], group_size: int) -> dict[tuple[int, ...], Decimal]:
    """Return, for each multiset of answers (as counts per answer), the summed probability of the ordered groups that draw it.

    Every ordered group a_1 .. a_K is enumerated and weighted by p_{a_1} ... p_{a_K}.
    A group's update depends on which answers it holds, not on their order, so
    groups are gathered by their counts and each update is computed once per multiset.
    """
    weights: dict[tuple[int, ...], Decimal] = {}
    for group in product(range(len(probabilities)), repeat=group_size):
        weight = ONE
        for a in group:
            weight = CONTEXT.multiply(weight, probabilities[a])
        counts = tuple(group.count(j) for j in range(len(probabilities)))
        weights[counts] = CONTEXT.add(weights.get(counts, ZERO), weight)
    return weights


def enumerate_moments(
    probabilities: Sequence[Decimal], rewards: Sequence[Decimal], temperature: Decimal, group_size: int
) -> dict[str, Moments]:
    """Return each rule's exact E[u] and Var(u_j) = E[u_j^2] - E[u_j]^2 over every ordered group of `group_size` draws."""
    count = len(probabilities)
    firsts = {rule: [ZERO] * count for rule in ESTIMATOR_RULES}
    seconds = {rule: [ZERO] * count for rule in ESTIMATOR_RULES}
    for counts, weight in weigh_groups(probabilities, group_size).items():
        group = [j for j, n in enumerate(counts) for _ in range(n)]
        group_rewards = [rewards[a] for a in group]
        for rule in ESTIMATOR_RULES:
            update = estimate_update(group, SIGNAL_FUNCTIONS[rule](group_rewards), probabilities, temperature)
            first, second = firsts[rule], seconds[rule]
            for j, u_j in enumerate(update):
                weighted = CONTEXT.multiply(weight, u_j)
                first[j] = CONTEXT.add(first[j], weighted)
                second[j] = CONTEXT.add(second[j], CONTEXT.multiply(weighted, u_j))
    return {
        rule: Moments(
            expected=tuple(firsts[rule]),
            variances=tuple(CONTEXT.subtract(s, CONTEXT.multiply(m, m)) for m, s in zip(firsts[rule], seconds[rule])),
        )
        for rule in ESTIMATOR_RULES
    }


def dot(a: Sequence[Decimal], b: Sequence[Decimal]) -> Decimal:
    """Return sum_j a_j b_j, in order."""
    return add_in_order(CONTEXT.multiply(x, y) for x, y in zip(a, b))


def check_estimator_group_size(value: object) -> int:
    """Return the group size as an int from 2 to 8, or raise SettingError worded as the sampler's group size error."""
    return check_whole_number(value, "group_size", ESTIMATOR_GROUP_SIZE_RANGE)


def _float(value: Decimal) -> float:
    # + 0.0 turns a -0.0 into 0.0, so the JSON never carries a negative zero.
    return float(value) + 0.0


def describe_rule(moments: Moments, gradient: Sequence[Decimal]) -> dict[str, Any]:
    """Return one rule's figures: E[u], E[u_j] / grad_j, the cosine to the gradient, the variances and the relative variance."""
    expected = moments.expected
    variance = add_in_order(moments.variances)
    length_product = CONTEXT.multiply(dot(expected, expected), dot(gradient, gradient))
    return {
        "expected_update": [_float(e) for e in expected],
        # None where the gradient's component is 0 (a reward exactly equal to J): no ratio exists there.
        "ratios_to_gradient": [_float(CONTEXT.divide(e, g)) if g != 0 else None for e, g in zip(expected, gradient)],
        "cosine_to_gradient": _float(CONTEXT.divide(dot(expected, gradient), CONTEXT.sqrt(length_product)))
        if length_product != 0
        else None,
        "component_variances": [_float(v) for v in moments.variances],
        "variance": _float(variance),
        "relative_variance": _float(CONTEXT.divide(variance, dot(expected, expected))) if dot(expected, expected) != 0 else None,
    }


def compute_policy_gradient(temperature: object = DEFAULT_TEMPERATURE) -> list[float]:
    """Return the exact gradient of the expected reward with respect to the three logits at T: p_j (r_j - J) / T."""
    scale = exact_decimal(check_temperature(temperature))
    probabilities = soften(scale)
    return [_float(g) for g in find_gradient(probabilities, [exact_decimal(c.reward) for c in CANDIDATES], scale)]


def compare_signal_rules(temperature: object = DEFAULT_TEMPERATURE, group_size: object = DEFAULT_GROUP_SIZE) -> dict[str, Any]:
    """Return the true gradient beside each signal rule's exact expected update and variance, for one group size.

    {"settings": {"temperature", "group_size"}, "answers", "probabilities", "rewards",
    "expected_reward" (J), "gradient" (dJ/dz), "groups" (3^K, the ordered groups enumerated),
    "rules": {rule: {"expected_update" (E[u]), "ratios_to_gradient" (E[u_j] / grad_j; None
    where grad_j is 0), "cosine_to_gradient", "component_variances" (Var u_j), "variance"
    (their sum, the trace of u's covariance), "relative_variance" (variance / |E[u]|^2, which
    compares rules whose updates differ in scale)}} for rule in ESTIMATOR_RULES}.
    Raises SettingError naming the first bad setting (the group size from 2 to 8).
    """
    checked_temperature = check_temperature(temperature)
    checked_group_size = check_estimator_group_size(group_size)
    scale = exact_decimal(checked_temperature)
    probabilities = soften(scale)
    rewards = [exact_decimal(c.reward) for c in CANDIDATES]
    gradient = find_gradient(probabilities, rewards, scale)
    moments = enumerate_moments(probabilities, rewards, scale, checked_group_size)
    return {
        "settings": {"temperature": checked_temperature, "group_size": checked_group_size},
        "answers": [c.completion for c in CANDIDATES],
        "probabilities": [float(p) for p in probabilities],
        "rewards": [c.reward for c in CANDIDATES],
        "expected_reward": float(dot(probabilities, rewards)),
        "gradient": [_float(g) for g in gradient],
        "groups": len(CANDIDATES) ** checked_group_size,
        "rules": {rule: describe_rule(moments[rule], gradient) for rule in ESTIMATOR_RULES},
    }
