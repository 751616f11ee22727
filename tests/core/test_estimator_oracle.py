"""numpy as an independent oracle for compare_signal_rules (tests only; the core never imports numpy).

The oracle builds all 3^K ordered groups as one integer array, computes each
group's signals under every rule and its update u_j = (1/K) sum_i c_i
(1[a_i = j] - p_j) / T in float64, and takes the probability-weighted mean and
the variance E[(u - E[u])^2] directly (two passes, not the core's
E[u^2] - E[u]^2). Tolerance: 1e-12 absolute on numbers of order 1e-1 to 1e1
(float64 sums over at most 6561 groups), which the core's 50-digit decimals
meet with a wide margin.

Inside Pyodide there is no numpy wheel in the test environment, so the module
is skipped there; in CPython a missing numpy is an error, never a skip.
"""

import sys

import pytest

if sys.platform == "emscripten":
    np = pytest.importorskip("numpy")
else:
    import numpy as np

from rollout_lab import ESTIMATOR_RULES, compare_signal_rules

LOGITS = np.array([2.0, 1.2, 0.6])
REWARDS = np.array([1.0, 0.75, 0.0])
TOLERANCE = 1e-12


def signals_of(rewards: np.ndarray, rule: str) -> np.ndarray:
    """Each group's signals (rows are groups), as issue 38 and chapter 6 define them."""
    k = rewards.shape[1]
    mean = rewards.mean(axis=1, keepdims=True)
    if rule == "raw":
        return rewards
    if rule == "mean":
        return rewards - mean
    if rule == "leave_one_out":
        return rewards - (rewards.sum(axis=1, keepdims=True) - rewards) / (k - 1)
    sigma = rewards.std(axis=1, keepdims=True)  # numpy's default: the population sigma
    return np.where(sigma > 0, (rewards - mean) / np.where(sigma > 0, sigma, 1.0), 0.0)


def oracle(temperature: float, group_size: int) -> dict:
    weights = np.exp(LOGITS / temperature - (LOGITS / temperature).max())
    p = weights / weights.sum()
    j_value = p @ REWARDS
    gradient = p * (REWARDS - j_value) / temperature
    groups = np.array(np.meshgrid(*[np.arange(3)] * group_size, indexing="ij")).reshape(group_size, -1).T
    probability = p[groups].prod(axis=1)
    one_hot = np.eye(3)[groups]  # groups x K x 3
    rules = {}
    for rule in ESTIMATOR_RULES:
        c = signals_of(REWARDS[groups], rule)
        u = (c[:, :, None] * (one_hot - p)).sum(axis=1) / (group_size * temperature)
        expected = probability @ u
        variances = probability @ (u - expected) ** 2
        rules[rule] = {
            "expected_update": expected,
            "component_variances": variances,
            "variance": variances.sum(),
            "cosine_to_gradient": expected @ gradient / np.linalg.norm(expected) / np.linalg.norm(gradient),
            "relative_variance": variances.sum() / (expected @ expected),
            "ratios_to_gradient": expected / gradient,
        }
    return {"probabilities": p, "expected_reward": j_value, "gradient": gradient, "groups": len(groups), "rules": rules}


SETTINGS = [(1.0, 6), (1.0, 2), (1.0, 8), (0.05, 6), (0.3, 5), (0.5, 6), (2.0, 6), (2.0, 3), (7.77, 7), (20.0, 6), (20.0, 4)]


@pytest.mark.parametrize(("temperature", "group_size"), SETTINGS)
def test_the_core_agrees_with_numpy(temperature, group_size):
    core, expected = compare_signal_rules(temperature, group_size), oracle(temperature, group_size)
    assert core["groups"] == expected["groups"] == 3**group_size
    np.testing.assert_allclose(core["probabilities"], expected["probabilities"], rtol=1e-13)
    np.testing.assert_allclose(core["expected_reward"], expected["expected_reward"], rtol=1e-13)
    np.testing.assert_allclose(core["gradient"], expected["gradient"], rtol=0, atol=TOLERANCE)
    for rule in ESTIMATOR_RULES:
        mine, theirs = core["rules"][rule], expected["rules"][rule]
        for name in ("expected_update", "component_variances", "variance"):
            np.testing.assert_allclose(mine[name], theirs[name], rtol=0, atol=TOLERANCE, err_msg=f"{rule} {name}")
        # Ratios divide by the gradient, whose float64 value cancels badly at T = 0.05 (J is near 1):
        # the oracle is good to about 1e-9 relative there, so these are compared to 1e-8 relative.
        for name in ("cosine_to_gradient", "relative_variance", "ratios_to_gradient"):
            np.testing.assert_allclose(mine[name], theirs[name], rtol=1e-8, err_msg=f"{rule} {name}")


def test_the_oracle_is_not_the_core_by_another_name():
    # Sanity checks on the oracle alone: (K-1)/K for the group mean, 1 for leave-one-out, not a constant for std.
    rules = oracle(1.0, 6)["rules"]
    np.testing.assert_allclose(rules["mean"]["ratios_to_gradient"], [5 / 6] * 3, rtol=1e-12)
    np.testing.assert_allclose(rules["leave_one_out"]["ratios_to_gradient"], [1.0] * 3, rtol=1e-12)
    assert np.ptp(rules["std"]["ratios_to_gradient"]) > 1
