"""The token world's contract against an independent plain-float implementation of issue 37's text.

The oracle below is written from the issue, not from the core: the table typed
again, math.exp and math.log on floats, sums in plain loops, the generator's
integer steps. The core computes in 50-digit decimal and rounds each recorded
number once, so the two agree well within the issue's 1e-9; tokens, texts,
rewards and u's (integer generator, the same draw rule) must agree exactly.
"""

import math
import random
import sys

import pytest

from rollout_lab import completion_probabilities, sample_token_group, token_update

TOLERANCE = 1e-9

TABLE = {
    "": [("5", 2.0), ("The", 1.2), ("6", 0.6)],
    "5": [("<end>", 1.0), (".", 0.0)],
    "6": [("<end>", 1.0), (".", 0.0)],
    "The": [(" answer is", 0.0)],
    "The answer is": [(" 5", 1.0), (" 6", -0.5)],
    "The answer is 5": [(".", 1.0), ("<end>", 0.0)],
    "The answer is 6": [(".", 1.0), ("<end>", 0.0)],
}
ENDS = {"<end>", "."}


def softmax(logits, temperature):
    top = max(z / temperature for z in logits)
    weights = [math.exp(z / temperature - top) for z in logits]
    total = sum(weights)
    return [w / total for w in weights]


def draw(u, probabilities):
    cumulative = 0.0
    for index, p in enumerate(probabilities):
        cumulative += p
        if u < cumulative:
            return index
    return len(probabilities) - 1


def reward(text):
    if text == "5":
        return 1.0
    digits = [ch for ch in text if ch.isdigit()]
    return 0.75 if digits and digits[-1] == "5" else 0.0


def policy(logits, temperature):
    return {prefix: softmax([z for _, z in options], temperature) for prefix, options in logits.items()}


def sample(temperature, group_size, seed):
    """Issue 37's sampler: one stream, one u per token, the running-total draw rule."""
    logits = {prefix: list(options) for prefix, options in TABLE.items()}
    p = policy(logits, temperature)
    state = seed
    rollouts = []
    for _ in range(group_size):
        prefix, tokens, us, steps = "", [], [], []
        while True:
            state = (1664525 * state + 1013904223) % 2**32
            u = state / 2**32
            j = draw(u, p[prefix])
            token = TABLE[prefix][j][0]
            tokens.append(token)
            us.append(u)
            steps.append((prefix, j))
            if token in ENDS:
                break
            prefix += token
        text = "".join(t for t in tokens if t != "<end>")
        rollouts.append(
            {
                "tokens": tokens,
                "text": text,
                "reward": reward(text),
                "us": us,
                "steps": steps,
                "probabilities": [p[s][j] for s, j in steps],
                "logprobs": [math.log(p[s][j]) for s, j in steps],
            }
        )
    return rollouts


def enumerate_texts(p):
    """Every completion's probability, by walking the tree."""
    found = {}

    def walk(prefix, probability):
        for j, (token, _) in enumerate(TABLE[prefix]):
            q = probability * p[prefix][j]
            if token in ENDS:
                found[prefix + ("" if token == "<end>" else token)] = q
            else:
                walk(prefix + token, q)

    walk("", 1.0)
    return found


def update(temperature, group_size, seed, alpha, rule):
    """Issue 37's step: c_i = R_i - mean on every token, g_s as written, z_s <- z_s + alpha g_s."""
    rollouts = sample(temperature, group_size, seed)
    p = policy(TABLE, temperature)
    rewards = [r["reward"] for r in rollouts]
    mean = sum(rewards) / group_size
    c = [r - mean for r in rewards]
    w = [1 / len(r["tokens"]) if rule == "sequence_mean" else 1 / 4 for r in rollouts]
    gradient = {prefix: [0.0] * len(options) for prefix, options in TABLE.items()}
    for rollout, c_i, w_i in zip(rollouts, c, w):
        for prefix, taken in rollout["steps"]:
            for j in range(len(TABLE[prefix])):
                gradient[prefix][j] += w_i * c_i * ((1.0 if j == taken else 0.0) - p[prefix][j]) / temperature
    gradient = {prefix: [g / group_size for g in gs] for prefix, gs in gradient.items()}
    moved = {prefix: [(t, z + alpha * g) for (t, z), g in zip(options, gradient[prefix])] for prefix, options in TABLE.items()}
    q = policy(moved, temperature)
    ratios = [[q[s][j] / p[s][j] for s, j in r["steps"]] for r in rollouts]
    return {
        "rollouts": rollouts,
        "mean": mean,
        "signals": c,
        "weights": w,
        "ratios": ratios,
        "sequence_ratios": [math.prod(r) for r in ratios],
        "before": enumerate_texts(p),
        "after": enumerate_texts(q),
        "gradient": gradient,
        "moves": {prefix: [alpha * g for g in gs] for prefix, gs in gradient.items()},
        "probabilities_after": q,
    }


NAMED = {
    "defaults": (1.0, 6, 20260903, 1.0, "sequence_mean"),
    "token sum": (1.0, 6, 20260903, 1.0, "token_sum"),
    "alpha 0": (1.0, 6, 20260903, 0.0, "sequence_mean"),
    "alpha 5": (1.0, 6, 20260903, 5.0, "token_sum"),
    "coldest": (0.05, 64, 0, 5.0, "sequence_mean"),
    "hottest": (20.0, 64, 2**32 - 1, 5.0, "token_sum"),
    "K 1": (1.0, 1, 20260903, 1.0, "sequence_mean"),
    "K 64": (1.0, 64, 20260903, 1.0, "sequence_mean"),
    "T 2": (2.0, 8, 12345, 2.5, "token_sum"),
    "T 0.3": (0.3, 16, 1, 1.0, "sequence_mean"),
}


def random_settings(n):
    rng = random.Random(37000 + n)
    return (
        rng.choice([0.05, 0.5, 1.0, 2.0, 20.0, rng.uniform(0.05, 20), rng.uniform(0.05, 3)]),
        rng.randint(1, 64),
        rng.randint(0, 2**32 - 1),
        rng.choice([0.0, 1.0, 5.0, rng.uniform(0, 5)]),
        rng.choice(["sequence_mean", "token_sum"]),
    )


# Inside Pyodide a few random settings suffice: test_parity.py proves its records bit-identical to CPython's.
RANDOM_CASES = 6 if sys.platform == "emscripten" else 40
CASES = list(NAMED.items()) + [(f"random {n}", random_settings(n)) for n in range(RANDOM_CASES)]


def largest_difference(pairs) -> float:
    worst = 0.0
    for got, want in pairs:
        assert len(got) == len(want)
        worst = max([worst, *(abs(a - b) for a, b in zip(got, want))])
    return worst


@pytest.mark.parametrize(("name", "arguments"), CASES, ids=[name for name, _ in CASES])
def test_the_sampler_agrees_with_a_plain_float_implementation(name, arguments):
    temperature, group_size, seed = arguments[:3]
    core = sample_token_group(temperature, group_size, seed)["rollouts"]
    oracle = sample(temperature, group_size, seed)
    assert len(core) == len(oracle) == group_size
    pairs = []
    for mine, theirs in zip(core, oracle):
        assert (mine["tokens"], mine["text"], mine["reward"], mine["us"]) == (
            theirs["tokens"],
            theirs["text"],
            theirs["reward"],
            theirs["us"],
        )
        pairs += [(mine["logprobs"], theirs["logprobs"]), (mine["probabilities"], theirs["probabilities"])]
    worst = largest_difference(pairs)
    assert worst <= TOLERANCE, f"{name}: largest difference {worst:g}"


TEMPERATURES = [0.05, 0.06, 0.1, 1 / 3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.14159, 7.77, 13.37, 20.0] + [
    random.Random(n).uniform(0.05, 20) for n in range(RANDOM_CASES // 2)
]


@pytest.mark.parametrize("temperature", TEMPERATURES)
def test_the_enumeration_agrees_with_a_plain_float_implementation(temperature):
    core = completion_probabilities(temperature)
    oracle = enumerate_texts(policy(TABLE, temperature))
    assert set(core) == set(oracle) and len(core) == 8
    worst = max(abs(core[text] - oracle[text]) for text in core)
    assert worst <= TOLERANCE, f"T = {temperature}: largest difference {worst:g}"


@pytest.mark.parametrize(("name", "arguments"), CASES, ids=[name for name, _ in CASES])
def test_the_update_agrees_with_a_plain_float_implementation(name, arguments):
    core = token_update(*arguments)
    oracle = update(*arguments)
    assert [r["tokens"] for r in core["rollouts"]] == [r["tokens"] for r in oracle["rollouts"]]
    assert list(core["before"]) == list(core["after"]) and set(core["before"]) == set(oracle["before"])
    texts = list(core["before"])
    states = {state["prefix"]: state["options"] for state in core["states"]}
    assert set(states) == set(TABLE)
    pairs = [
        ([core["mean"]], [oracle["mean"]]),
        (core["signals"], oracle["signals"]),
        (core["weights"], oracle["weights"]),
        (core["sequence_ratios"], oracle["sequence_ratios"]),
        ([core["before"][t] for t in texts], [oracle["before"][t] for t in texts]),
        ([core["after"][t] for t in texts], [oracle["after"][t] for t in texts]),
        *zip(core["ratios"], oracle["ratios"], strict=True),
    ]
    for prefix, options in states.items():
        assert [o["token"] for o in options] == [token for token, _ in TABLE[prefix]]
        pairs += [
            ([o["gradient"] for o in options], oracle["gradient"][prefix]),
            ([o["move"] for o in options], oracle["moves"][prefix]),
            ([o["probability_after"] for o in options], oracle["probabilities_after"][prefix]),
        ]
    worst = largest_difference(pairs)
    assert worst <= TOLERANCE, f"{name}: largest difference {worst:g}"


def test_the_oracle_is_not_the_core_by_another_name():
    # Sanity checks on the oracle itself, from the floats alone: the eight completions,
    # the default group's texts, and the two length rules moving the start state's logits apart.
    assert sorted(enumerate_texts(policy(TABLE, 1.0))) == sorted(
        ["5", "5.", "6", "6.", "The answer is 5", "The answer is 5.", "The answer is 6", "The answer is 6."]
    )
    assert math.isclose(sum(enumerate_texts(policy(TABLE, 1.0)).values()), 1.0, rel_tol=1e-15)
    texts = [r["text"] for r in sample(1.0, 6, 20260903)]
    assert texts == ["5", "The answer is 5", "The answer is 5", "5", "5", "The answer is 5."]
    assert update(*NAMED["defaults"])["gradient"][""] != update(*NAMED["token sum"])["gradient"][""]
