"""Group mean and centred group-relative signals.

Rewards are read as the decimals the reader typed (repr of the float) and the
mean and signals are computed exactly in decimal before one conversion to
float, so 1 - 0.65 shows as 0.35 rather than 0.35000000000000003 and the
numbers in the prose match the numbers in the lab.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from rollout_lab.exact import CONTEXT, add_in_order, exact_decimal
from rollout_lab.sampling import softmax_probabilities
from rollout_lab.validation import parse_rewards
from rollout_lab.world import CANDIDATES, Candidate


@dataclass(frozen=True)
class GroupStatistics:
    """The rewards of one group, their mean r̄ and the centred signals A_i = r_i - r̄."""

    rewards: tuple[float, ...]
    mean: float
    signals: tuple[float, ...]

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict."""
        return {"rewards": list(self.rewards), "mean": self.mean, "signals": list(self.signals)}


def group_statistics(rewards: Sequence[float] | str) -> GroupStatistics:
    """Return mean and centred signals of a list of rewards (or of a comma-separated string)."""
    return summarise_checked_rewards(parse_rewards(rewards if isinstance(rewards, str) else list(rewards)))


def summarise_checked_rewards(rewards: tuple[float, ...]) -> GroupStatistics:
    """Return mean and centred signals of rewards that parse_rewards (or the candidate table) vouches for."""
    # A group repeats a few distinct rewards many times: convert each distinct
    # value once. The sum runs in list order, as in the formula.
    exact = {reward: exact_decimal(reward) for reward in dict.fromkeys(rewards)}
    exact_mean = CONTEXT.divide(add_in_order(exact[reward] for reward in rewards), Decimal(len(rewards)))
    signal_of = {reward: float(CONTEXT.subtract(value, exact_mean)) + 0.0 for reward, value in exact.items()}
    return GroupStatistics(
        rewards=rewards,
        mean=float(exact_mean),
        signals=tuple(signal_of[reward] for reward in rewards),
    )


def expected_reward(temperature: float, candidates: Sequence[Candidate] = CANDIDATES) -> float:
    """Return the policy's expected reward at T, sum_i p_i r_i: what a group mean estimates.

    Each probability is the float the sampler draws with, taken exactly as a
    decimal; the products are summed in index order and converted to float once.
    """
    probabilities = softmax_probabilities(temperature, tuple(candidates))
    terms = (CONTEXT.multiply(exact_decimal(p), exact_decimal(c.reward)) for p, c in zip(probabilities, candidates))
    return float(add_in_order(terms))
