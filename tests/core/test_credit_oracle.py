"""Per-token credit and the batch of prompts against an independent plain-float implementation of issue 57's text.

The oracle is written from the issue, not from the core: the tree and the three
prompts typed again, math.exp on floats, V by walking every completion, GAE by
its defining sum, the generator's integer steps. The core computes in 50-digit
decimal; the two agree within the issue's 1e-9, and tokens, answers and rewards
exactly.
"""

import math
import random

import pytest

from rollout_lab import batch_signals, sample_token_group, token_credit, token_values

TOLERANCE = 1e-9

TREE = {
    "": [("5", 2.0), ("The", 1.2), ("6", 0.6)],
    "5": [("<end>", 1.0), (".", 0.0)],
    "6": [("<end>", 1.0), (".", 0.0)],
    "The": [(" answer is", 0.0)],
    "The answer is": [(" 5", 1.0), (" 6", -0.5)],
    "The answer is 5": [(".", 1.0), ("<end>", 0.0)],
    "The answer is 6": [(".", 1.0), ("<end>", 0.0)],
}
ENDS = {"<end>", "."}
PROMPTS = [
    [("5", 2.0, 1.0), ("The answer is 5.", 1.2, 0.75), ("6", 0.6, 0.0)],
    [("2", 3.0, 1.0), ("11", 0.0, 0.0)],
    [("41", 1.7, 0.0), ("51", 0.0, 1.0), ("61", 0.65, 0.0)],
]


def softmax(logits, temperature):
    top = max(z / temperature for z in logits)
    weights = [math.exp(z / temperature - top) for z in logits]
    return [w / sum(weights) for w in weights]


def reward(text):
    if text == "5":
        return 1.0
    digits = [ch for ch in text if ch.isdigit()]
    return 0.75 if digits and digits[-1] == "5" else 0.0


def completions_from(prefix, temperature):
    """Yield (probability of finishing this way from prefix, final text) for every completion through prefix."""
    p = softmax([z for _, z in TREE[prefix]], temperature)
    for (token, _), probability in zip(TREE[prefix], p):
        text = prefix if token == "<end>" else prefix + token
        if token in ENDS:
            yield probability, text
        else:
            for rest, final in completions_from(text, temperature):
                yield probability * rest, final


def oracle_values(temperature):
    return {prefix: sum(p * reward(text) for p, text in completions_from(prefix, temperature)) for prefix in TREE}


def lcg(state):
    return (1664525 * state + 1013904223) % 2**32


def draw(u, probabilities):
    cumulative = 0.0
    for index, p in enumerate(probabilities):
        cumulative += p
        if u < cumulative:
            return index
    return len(probabilities) - 1


def oracle_credit(temperature, group_size, seed, lam):
    values = oracle_values(temperature)
    policy = {prefix: softmax([z for _, z in options], temperature) for prefix, options in TREE.items()}
    state, rollouts = seed, []
    for _ in range(group_size):
        prefix, tokens, prefixes = "", [], []
        while True:
            state = lcg(state)
            token = TREE[prefix][draw(state / 2**32, policy[prefix])][0]
            tokens.append(token)
            prefixes.append(prefix)
            if token in ENDS:
                break
            prefix += token
        text = "".join(t for t in tokens if t != "<end>")
        rollouts.append((tokens, prefixes, reward(text)))
    mean = sum(r for _, _, r in rollouts) / group_size
    out = []
    for tokens, prefixes, r in rollouts:
        before = [values[p] for p in prefixes]
        after = before[1:] + [r]
        deltas = [b - a for a, b in zip(before, after)]
        gae = [sum(lam**step * deltas[t + step] for step in range(len(deltas) - t)) for t in range(len(deltas))]
        out.append({"tokens": tokens, "reward": r, "values": before, "advantages": deltas, "gae": gae, "signal": r - mean})
    return mean, out


def oracle_batch(temperature, group_size, seed, rule):
    state, rows = seed, []
    for answers in PROMPTS:
        p = softmax([z for _, z, _ in answers], temperature)
        picks = []
        for _ in range(group_size):
            state = lcg(state)
            picks.append(draw(state / 2**32, p))
        rewards = [answers[j][2] for j in picks]
        mean = sum(rewards) / group_size
        sigma = math.sqrt(sum((r - mean) ** 2 for r in rewards) / group_size)
        signals = [r - mean for r in rewards]
        if rule == "std":
            signals = [s / sigma if sigma > 1e-12 else 0.0 for s in signals]
        gradient = [
            sum(c * ((1.0 if pick == j else 0.0) - p[j]) for c, pick in zip(signals, picks)) / group_size / temperature
            for j in range(len(answers))
        ]
        rows.append((picks, answers, rewards, mean, sigma, signals, gradient))
    return rows


def unannounced_settings(count):
    chosen = random.Random(57)
    return [
        (round(chosen.uniform(0.05, 20.0), 3), chosen.randint(1, 64), chosen.randint(0, 2**32 - 1), round(chosen.random(), 3))
        for _ in range(count)
    ] + [(1.0, 6, 20260903, 0.0), (0.05, 64, 0, 1.0), (20.0, 1, 2**32 - 1, 0.5)]


@pytest.mark.parametrize("temperature", [0.05, 0.3, 1.0, 2.0, 7.77, 20.0])
def test_values_match_the_oracle(temperature):
    expected = oracle_values(temperature)
    got = token_values(temperature)
    assert list(got) == list(TREE)
    for prefix, value in expected.items():
        assert got[prefix] == pytest.approx(value, abs=TOLERANCE)


@pytest.mark.parametrize(("temperature", "group_size", "seed", "lam"), unannounced_settings(40))
def test_credit_matches_the_oracle(temperature, group_size, seed, lam):
    mean, expected = oracle_credit(temperature, group_size, seed, lam)
    got = token_credit(temperature, group_size, seed, lam)
    assert got["mean"] == pytest.approx(mean, abs=TOLERANCE)
    assert len(got["rollouts"]) == len(expected)
    tokens_sampled = [r["tokens"] for r in sample_token_group(temperature, group_size, seed)["rollouts"]]
    for rollout, oracle, sampled in zip(got["rollouts"], expected, tokens_sampled):
        assert rollout["tokens"] == oracle["tokens"] == sampled
        assert rollout["reward"] == oracle["reward"]
        for key in ("values", "advantages", "gae"):
            assert len(rollout[key]) == len(rollout["tokens"])
            assert rollout[key] == pytest.approx(oracle[key], abs=TOLERANCE)
        assert rollout["group_signal"] == pytest.approx([oracle["signal"]] * len(oracle["tokens"]), abs=TOLERANCE)


@pytest.mark.parametrize(("temperature", "group_size", "seed", "lam"), unannounced_settings(40))
def test_batch_matches_the_oracle(temperature, group_size, seed, lam):
    rule = "std" if lam > 0.5 else "mean"
    got = batch_signals(temperature, group_size, seed, rule)
    assert len(got) == 3
    for row, (picks, answers, rewards, mean, sigma, signals, gradient) in zip(
        got, oracle_batch(temperature, group_size, seed, rule)
    ):
        assert set(row) == {"prompt", "answers", "rewards", "mean", "sigma", "signals", "gradient", "zero_variance"}
        assert row["answers"] == [answers[j][0] for j in picks]
        assert row["rewards"] == rewards
        assert row["zero_variance"] == (sigma < 1e-12)
        assert row["mean"] == pytest.approx(mean, abs=TOLERANCE)
        assert row["sigma"] == pytest.approx(sigma, abs=TOLERANCE)
        assert row["signals"] == pytest.approx(signals, abs=TOLERANCE)
        assert row["gradient"] == pytest.approx(gradient, abs=TOLERANCE)
