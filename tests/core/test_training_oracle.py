"""run_training against an independent plain-float implementation of issue 25's rule.

The oracle below is written from the issue's text, not from the core: math.exp
and math.log on floats, sums in plain loops. The core computes in 50-digit
decimal and rounds each recorded number once, so the two agree to well within
the issue's 1e-9 (the largest difference seen over 300 random settings was
2.3e-13); the draws (integer generator, same draw rule) and the clipped flags
must agree exactly.
"""

import math
import random

import pytest

from rollout_lab.learning.training import run_training

LOGITS = (2.0, 1.2, 0.6)
REWARDS = (1.0, 0.75, 0.0)
TOLERANCE = 1e-9


def softmax(logits):
    top = max(logits)
    weights = [math.exp(z - top) for z in logits]
    total = sum(weights)
    return [w / total for w in weights]


def kl(p, q):
    return sum(a * math.log(a / b) for a, b in zip(p, q) if a > 0)


def draw(u, probabilities):
    cumulative = 0.0
    for index, p in enumerate(probabilities):
        cumulative += p
        if u < cumulative:
            return index
    return len(probabilities) - 1


def signals_of(rewards, rule):
    mean = sum(rewards) / len(rewards)
    if rule == "mean":
        return [r - mean for r in rewards]
    sigma = math.sqrt(sum((r - mean) ** 2 for r in rewards) / len(rewards))
    return [0.0] * len(rewards) if sigma == 0 else [(r - mean) / sigma for r in rewards]


def train(rounds, group_size, seed, alpha, epochs, epsilon, beta, rule):
    """Issue 25's loop, step by step, in floats."""
    theta = list(LOGITS)
    reference = softmax(theta)
    state = seed
    result = []
    for _ in range(rounds):
        old = softmax(theta)
        indices = []
        for _ in range(group_size):
            state = (1664525 * state + 1013904223) % 2**32
            indices.append(draw(state / 2**32, old))
        rewards = [REWARDS[i] for i in indices]
        c = signals_of(rewards, rule)
        epoch_records = []
        for _ in range(epochs):
            p = softmax(theta)
            rho = [p[y] / old[y] for y in indices]
            clipped = [(ck > 0 and r > 1 + epsilon) or (ck < 0 and r < 1 - epsilon) for ck, r in zip(c, rho)]
            divergence = kl(p, reference)
            gradient = []
            for j in range(3):
                surrogate = sum(
                    ck * r * ((1.0 if j == y else 0.0) - p[j]) for ck, r, y, cut in zip(c, rho, indices, clipped) if not cut
                )
                penalty = beta * p[j] * (math.log(p[j] / reference[j]) - divergence) if p[j] > 0 else 0.0
                gradient.append(surrogate / group_size - penalty)
            theta = [z + alpha * g for z, g in zip(theta, gradient)]
            epoch_records.append({"ratios": rho, "clipped": clipped, "probabilities": softmax(theta)})
        p = softmax(theta)
        result.append(
            {
                "indices": indices,
                "rewards": rewards,
                "signals": c,
                "epochs": epoch_records,
                "expected_reward": sum(a * r for a, r in zip(p, REWARDS)),
                "kl": kl(p, reference),
            }
        )
    return result


# The required settings, then random ones over every range.
NAMED = {
    "defaults": (5, 8, 20260903, 1.0, 4, 0.2, 0.0, "mean"),
    "alpha 0": (5, 8, 20260903, 0.0, 4, 0.2, 0.0, "mean"),
    "one epoch": (5, 8, 20260903, 1.0, 1, 0.2, 0.0, "mean"),
    "clip 1": (5, 8, 20260903, 1.0, 4, 1.0, 0.0, "mean"),
    "beta 0.5": (5, 8, 20260903, 1.0, 4, 0.2, 0.5, "mean"),
    "std rule": (5, 8, 20260903, 1.0, 4, 0.2, 0.0, "std"),
    "K 1": (5, 1, 20260903, 1.0, 4, 0.2, 0.0, "mean"),
    "R 10": (10, 8, 20260903, 1.0, 4, 0.2, 0.0, "mean"),
    "K 64": (5, 64, 20260903, 1.0, 4, 0.2, 0.0, "mean"),
    "everything at its top": (10, 64, 2**32 - 1, 5.0, 10, 1.0, 1.0, "std"),
    "smallest clip, largest step": (10, 64, 0, 5.0, 10, 0.01, 0.0, "std"),
}


def random_settings(n):
    rng = random.Random(20260903 + n)
    return (
        rng.randint(1, 10),
        rng.randint(1, 64),
        rng.randint(0, 2**32 - 1),
        rng.choice([0.0, 0.5, 1.0, 2.0, 5.0, rng.uniform(0, 5)]),
        rng.randint(1, 10),
        rng.choice([0.01, 0.2, 1.0, rng.uniform(0.01, 1)]),
        rng.choice([0.0, 0.1, 1.0, rng.uniform(0, 1)]),
        rng.choice(["mean", "std"]),
    )


CASES = list(NAMED.items()) + [(f"random {n}", random_settings(n)) for n in range(24)]


@pytest.mark.parametrize(("name", "arguments"), CASES, ids=[name for name, _ in CASES])
def test_the_core_agrees_with_a_plain_float_implementation(name, arguments):
    core = run_training(*arguments)["rounds"]
    oracle = train(*arguments)
    assert len(core) == len(oracle) == arguments[0]
    worst = 0.0
    for mine, theirs in zip(core, oracle):
        assert mine["indices"] == theirs["indices"]
        assert mine["rewards"] == theirs["rewards"]
        values = [
            (mine["signals"], theirs["signals"]),
            ([mine["expected_reward"], mine["kl"]], [theirs["expected_reward"], theirs["kl"]]),
        ]
        for epoch, expected in zip(mine["epochs"], theirs["epochs"], strict=True):
            assert epoch["clipped"] == expected["clipped"]
            values += [(epoch["ratios"], expected["ratios"]), (epoch["probabilities"], expected["probabilities"])]
        for got, want in values:
            assert len(got) == len(want)
            worst = max([worst, *(abs(a - b) for a, b in zip(got, want))])
    assert worst <= TOLERANCE, f"{name}: largest difference {worst:g}"


def test_the_oracle_is_not_the_core_by_another_name():
    # A sanity check on the oracle itself: the example sentence, from the floats alone.
    third = train(*NAMED["defaults"])[2]
    assert sum(third["epochs"][3]["clipped"]) == 2
    assert f"{third['expected_reward']:.4f}" == "0.9127"
