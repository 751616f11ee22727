"""What an update would do with a group: the arithmetic behind chapters 3, 5 and 6.

The lab itself never updates anything; these functions compute the numbers the
prose shows about updates (one policy-gradient step on the toy logits, the
probability ratio, PPO's clipped term, a KL divergence, GRPO's normalised
signals), so that no such number is typed by hand. Everything runs in the
core's fixed decimal context and is converted to float once, like the sampler,
so the browser and the build print the same digits.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from rollout_lab.exact import CONTEXT, add_in_order, exact_decimal
from rollout_lab.validation import parse_rewards


def _softmax(scaled: Sequence[Decimal]) -> tuple[Decimal, ...]:
    largest = max(scaled)
    weights = [CONTEXT.exp(CONTEXT.subtract(z, largest)) for z in scaled]
    total = add_in_order(weights)
    return tuple(CONTEXT.divide(w, total) for w in weights)


def logit_step(record: dict[str, Any]) -> tuple[float, ...]:
    """Return how far one unit step of chapter 6's rule moves each logit, for the record's group.

    The rule adds, for every draw k with signal c_k, the term
    c_k * d log p_{i_k} / d z_j = c_k * (1[j = i_k] - p_j) / T, averaged over the K draws.
    Each draw's term raises its own answer's logit and lowers every logit in
    proportion to its probability; the sum over the group is what moves.
    """
    temperature = exact_decimal(record["settings"]["temperature"])
    probabilities = [exact_decimal(c["probability"]) for c in record["candidates"]]
    draws = record["draws"]
    moves = []
    for j, p_j in enumerate(probabilities):
        terms = (
            CONTEXT.multiply(exact_decimal(d["signal"]), CONTEXT.subtract(Decimal(1 if d["index"] == j else 0), p_j))
            for d in draws
        )
        moves.append(float(CONTEXT.divide(add_in_order(terms), CONTEXT.multiply(Decimal(len(draws)), temperature))))
    return tuple(moves)


def probabilities_after_step(record: dict[str, Any], step: float) -> tuple[float, ...]:
    """Return the probabilities after one step of size `step` of chapter 6's rule on the record's group."""
    temperature = exact_decimal(record["settings"]["temperature"])
    moved = [
        CONTEXT.add(exact_decimal(c["logit"]), CONTEXT.multiply(exact_decimal(step), exact_decimal(move)))
        for c, move in zip(record["candidates"], logit_step(record))
    ]
    return tuple(float(p) for p in _softmax([CONTEXT.divide(z, temperature) for z in moved]))


def probability_slopes(record: dict[str, Any]) -> tuple[float, ...]:
    """Return d p_i / d step at step 0: the sign says which way a small enough step moves each probability.

    With g_j the logit moves of `logit_step`, d p_i = p_i (g_i - sum_j p_j g_j) / T.
    """
    temperature = exact_decimal(record["settings"]["temperature"])
    probabilities = [exact_decimal(c["probability"]) for c in record["candidates"]]
    moves = [exact_decimal(g) for g in logit_step(record)]
    average = add_in_order(CONTEXT.multiply(p, g) for p, g in zip(probabilities, moves))
    return tuple(
        float(CONTEXT.divide(CONTEXT.multiply(p, CONTEXT.subtract(g, average)), temperature))
        for p, g in zip(probabilities, moves)
    )


def clip(ratio: float, epsilon: float) -> float:
    """Return the ratio clipped to [1 - epsilon, 1 + epsilon]."""
    return min(max(ratio, 1.0 - epsilon), 1.0 + epsilon)


def clipped_objective(ratio: float, advantage: float, epsilon: float = 0.2) -> float:
    """Return PPO's per-token term min(rho A, clip(rho, 1 - eps, 1 + eps) A)."""
    low = CONTEXT.subtract(Decimal(1), exact_decimal(epsilon))
    high = CONTEXT.add(Decimal(1), exact_decimal(epsilon))
    rho, a = exact_decimal(ratio), exact_decimal(advantage)
    clipped = min(max(rho, low), high)
    return float(min(CONTEXT.multiply(rho, a), CONTEXT.multiply(clipped, a)))


def kl_divergence(p: Sequence[float], q: Sequence[float]) -> float:
    """Return KL(p || q) = sum_i p_i ln(p_i / q_i), exactly over the listed outcomes (natural log)."""
    terms = (
        CONTEXT.multiply(exact_decimal(a), CONTEXT.ln(CONTEXT.divide(exact_decimal(a), exact_decimal(b))))
        for a, b in zip(p, q)
        if a > 0
    )
    return float(add_in_order(terms))


def kl_estimate(ratio_ref_over_current: float) -> float:
    """Return GRPO's per-sample KL estimate (DeepSeekMath eq. 4): r - ln r - 1, with r = pi_ref / pi_theta."""
    r = exact_decimal(ratio_ref_over_current)
    return float(CONTEXT.subtract(CONTEXT.subtract(r, CONTEXT.ln(r)), Decimal(1)))


# The three per-sample estimates of KL(pi_theta || pi_ref) from one answer drawn from pi_theta, with
# r = pi_ref / pi_theta for that answer: k1 = -ln r (the log-ratio itself), k2 = (ln r)^2 / 2, and
# k3 = r - ln r - 1 (DeepSeekMath's eq. 4). k1 and k3 average to the exact KL over draws from
# pi_theta; k2 does not, and none of them does over draws from another policy.
KL_ESTIMATORS = ("k1", "k2", "k3")


def _kl_estimator_term(estimator: str, r: Decimal) -> Decimal:
    log_r = CONTEXT.ln(r)
    if estimator == "k1":
        return CONTEXT.minus(log_r)
    if estimator == "k2":
        return CONTEXT.divide(CONTEXT.multiply(log_r, log_r), Decimal(2))
    if estimator == "k3":
        return CONTEXT.subtract(CONTEXT.subtract(r, log_r), Decimal(1))
    raise ValueError(f"estimator must be one of {', '.join(KL_ESTIMATORS)}, got {estimator!r}")


def kl_sample_estimate(estimator: str, ratio_ref_over_current: float) -> float:
    """Return one sample's estimate k1, k2 or k3 of KL(pi_theta || pi_ref), given r = pi_ref / pi_theta for it."""
    return float(_kl_estimator_term(estimator, exact_decimal(ratio_ref_over_current))) + 0.0


def average_kl_estimate(estimator: str, sampling: Sequence[float], current: Sequence[float], reference: Sequence[float]) -> float:
    """Return the exact average of one estimator over answers drawn from `sampling`: sum_i s_i k(ref_i / cur_i)."""
    terms = (
        CONTEXT.multiply(exact_decimal(s), _kl_estimator_term(estimator, CONTEXT.divide(exact_decimal(ref), exact_decimal(cur))))
        for s, cur, ref in zip(sampling, current, reference)
    )
    return float(add_in_order(terms)) + 0.0


@dataclass(frozen=True)
class NormalisedGroup:
    """A group's mean, its standard deviation and the signals (R_k - mean) / std."""

    mean: float
    std: float
    signals: tuple[float, ...]


def normalised_signals(rewards: Sequence[float] | str, *, sample: bool = False) -> NormalisedGroup:
    """Return GRPO's outcome-supervision signals (R_k - mean) / std for one group.

    DeepSeekMath writes only std(r); `sample=False` divides the squared
    deviations by K (the population standard deviation), `sample=True` by
    K - 1 (what torch's std, and so TRL, computes). When every reward is equal
    every centred signal is exactly 0 and so is the std; the signals are then
    reported as 0, which is what implementations that add a small constant to
    the std get.
    """
    checked = parse_rewards(rewards if isinstance(rewards, str) else list(rewards))
    exact = [exact_decimal(r) for r in checked]
    count = len(exact)
    if sample and count < 2:
        raise ValueError("the sample standard deviation needs at least 2 rewards")
    mean = CONTEXT.divide(add_in_order(exact), Decimal(count))
    squares = add_in_order(CONTEXT.multiply(CONTEXT.subtract(r, mean), CONTEXT.subtract(r, mean)) for r in exact)
    std = CONTEXT.sqrt(CONTEXT.divide(squares, Decimal(count - 1 if sample else count)))
    if std == 0:
        return NormalisedGroup(float(mean), 0.0, tuple(0.0 for _ in exact))
    signals = tuple(float(CONTEXT.divide(CONTEXT.subtract(r, mean), std)) + 0.0 for r in exact)
    return NormalisedGroup(float(mean), float(std), signals)
