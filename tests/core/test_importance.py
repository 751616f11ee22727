"""Importance sampling as an estimator (learning/importance.py) against an oracle that enumerates every group.

The oracle works in fractions from the core's float probabilities: the
estimate and effective sample size of the seeded group are recomputed by
hand, and the standard errors are the spread of the estimate over every
ordered group of K draws, each weighted by its probability, so the closed
forms √(Var/K) the core uses are checked by brute force, not by themselves.
"""

import math
from fractions import Fraction
from itertools import product

import pytest

from rollout_lab import CANDIDATES, DEFAULT_SEED, sample_group, softmax_probabilities
from rollout_lab.learning.importance import estimate_by_importance

REWARDS = [Fraction(c.reward) for c in CANDIDATES]


def spread_over_every_group(draw_from: list[Fraction], weights: list[Fraction], size: int) -> float:
    """The standard deviation of (1/K) Σ w_i R_i over every ordered group of `size` draws from `draw_from`."""
    mean = Fraction(0)
    square = Fraction(0)
    for group in product(range(len(draw_from)), repeat=size):
        probability = math.prod((draw_from[i] for i in group), start=Fraction(1))
        value = sum((weights[i] * REWARDS[i] for i in group), start=Fraction(0)) / size
        mean += probability * value
        square += probability * value * value
    return math.sqrt(square - mean * mean)


@pytest.mark.parametrize("temperature", [1.0, 0.5, 0.25, 0.1, 2.0])
@pytest.mark.parametrize("size", [1, 2, 4])
def test_the_standard_errors_are_the_spread_over_every_group(temperature: float, size: int):
    old = [Fraction(p) for p in softmax_probabilities(1.0)]
    new = [Fraction(p) for p in softmax_probabilities(temperature)]
    ratios = [n / o for n, o in zip(new, old)]
    result = estimate_by_importance(temperature, size, DEFAULT_SEED)
    assert result.standard_error == pytest.approx(spread_over_every_group(old, ratios, size), rel=1e-9, abs=1e-15)
    assert result.on_policy_error == pytest.approx(spread_over_every_group(new, [Fraction(1)] * 3, size), rel=1e-9, abs=1e-15)
    assert result.expected_reward == pytest.approx(float(sum(n * r for n, r in zip(new, REWARDS))), rel=1e-15)


@pytest.mark.parametrize("temperature", [1.0, 0.5, 0.1])
@pytest.mark.parametrize(("size", "seed"), [(8, DEFAULT_SEED), (3, 7), (20, 12345)])
def test_the_estimate_and_effective_size_are_those_of_the_seeded_group(temperature: float, size: int, seed: int):
    old = [Fraction(p) for p in softmax_probabilities(1.0)]
    new = [Fraction(p) for p in softmax_probabilities(temperature)]
    drawn = [index for _, index in sample_group(softmax_probabilities(1.0), size, seed)]
    weights = [new[i] / old[i] for i in drawn]
    result = estimate_by_importance(temperature, size, seed)
    assert list(result.drawn) == drawn
    assert result.estimate == pytest.approx(float(sum(w * REWARDS[i] for w, i in zip(weights, drawn)) / size), rel=1e-15)
    assert result.effective_size == pytest.approx(float(sum(weights) ** 2 / sum(w * w for w in weights)), rel=1e-15)


def test_without_a_move_the_estimate_is_the_plain_mean_and_every_draw_counts():
    result = estimate_by_importance(1.0, 8, DEFAULT_SEED)
    assert result.ratios == (1.0, 1.0, 1.0)
    assert result.effective_size == 8.0
    assert result.estimate == sum(CANDIDATES[i].reward for i in result.drawn) / 8
    assert result.standard_error == result.on_policy_error


def test_the_further_the_policy_moves_the_fewer_draws_carry_the_estimate():
    # Chapter 5's table: sharper and sharper policies, the same eight draws at T = 1.
    rows = [estimate_by_importance(t, 8, DEFAULT_SEED) for t in (1.0, 0.5, 0.25, 0.1)]
    assert [round(r.effective_size, 2) for r in rows] == [8.0, 6.29, 3.6, 3.0]
    assert [r.standard_error for r in rows] == sorted(r.standard_error for r in rows)
    assert [r.on_policy_error for r in rows] == sorted((r.on_policy_error for r in rows), reverse=True)
