"""compare_signal_rules and compute_policy_gradient: the identities issue 38 states, exactly.

Runs in CPython and, unchanged, inside Pyodide. The exact identities are
checked twice: on the core's floats (which are the correctly rounded values of
50-digit decimals, so an identity that holds exactly lands on the same float),
and by an independent enumeration in fractions.Fraction written here, where
(K-1)/K is checked with ==. numpy's independent check of every figure, the std
rule and the variances included, is in test_estimator_oracle.py.
"""

import json
import math
import sys
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings, strategies as st

from rollout_lab import (
    CANDIDATES,
    ESTIMATOR_RULES,
    SettingError,
    compare_signal_rules,
    compute_policy_gradient,
    expected_reward,
    softmax_probabilities,
)

PROPERTY = settings(deadline=None, max_examples=10 if sys.platform == "emscripten" else 40)
REWARDS = [Fraction(1), Fraction(3, 4), Fraction(0)]

temperatures = st.one_of(st.sampled_from([0.05, 0.5, 1.0, 2.0, 20.0]), st.floats(0.05, 20.0))
group_sizes = st.integers(2, 6)


def enumerate_in_fractions(probabilities, group_size, temperature):
    """E[u] under raw, mean and leave-one-out signals, by the definition, over every ordered group, in exact rationals."""
    expected = {rule: [Fraction(0)] * 3 for rule in ("raw", "mean", "leave_one_out")}
    for group in product(range(3), repeat=group_size):
        weight = math.prod((probabilities[a] for a in group), start=Fraction(1))
        rewards = [REWARDS[a] for a in group]
        mean = sum(rewards) / group_size
        signals = {
            "raw": rewards,
            "mean": [r - mean for r in rewards],
            "leave_one_out": [r - (sum(rewards) - r) / (group_size - 1) for r in rewards],
        }
        for rule, c in signals.items():
            for j in range(3):
                u = sum(c_i * ((1 if a == j else 0) - probabilities[j]) for c_i, a in zip(c, group)) / (group_size * temperature)
                expected[rule][j] += weight * u
    return expected


@pytest.mark.parametrize(("temperature", "group_size"), [(1.0, 6), (1.0, 2), (0.5, 3), (2.0, 4)])
def test_the_identities_hold_exactly_in_fractions_and_the_core_agrees(temperature, group_size):
    # The core's float probabilities, taken as exact rationals and rescaled to sum to exactly 1
    # (the identities hold for any distribution, and only for a distribution).
    floats = [Fraction(x) for x in softmax_probabilities(temperature)]
    p = [x / sum(floats) for x in floats]
    t = Fraction(temperature)
    j_value = sum(a * r for a, r in zip(p, REWARDS))
    gradient = [a * (r - j_value) / t for a, r in zip(p, REWARDS)]
    expected = enumerate_in_fractions(p, group_size, t)
    assert expected["raw"] == gradient
    assert expected["leave_one_out"] == gradient
    assert expected["mean"] == [Fraction(group_size - 1, group_size) * g for g in gradient]
    record = compare_signal_rules(temperature, group_size)
    for rule in ("raw", "mean", "leave_one_out"):
        assert all(
            abs(mine - float(exact)) <= 1e-15 for mine, exact in zip(record["rules"][rule]["expected_update"], expected[rule])
        )
    assert all(abs(mine - float(exact)) <= 1e-15 for mine, exact in zip(record["gradient"], gradient))


@PROPERTY
@given(temperatures, st.integers(2, 8))
def test_the_group_mean_shrinks_the_expected_update_by_exactly_k_minus_one_over_k(temperature, group_size):
    rules = compare_signal_rules(temperature, group_size)["rules"]
    assert rules["mean"]["ratios_to_gradient"] == [(group_size - 1) / group_size] * 3
    assert rules["raw"]["ratios_to_gradient"] == rules["leave_one_out"]["ratios_to_gradient"] == [1.0] * 3


@PROPERTY
@given(temperatures, group_sizes)
def test_raw_rewards_and_leave_one_out_are_unbiased(temperature, group_size):
    record = compare_signal_rules(temperature, group_size)
    assert record["rules"]["raw"]["expected_update"] == record["gradient"]
    assert record["rules"]["leave_one_out"]["expected_update"] == record["gradient"]
    assert record["rules"]["raw"]["cosine_to_gradient"] == record["rules"]["leave_one_out"]["cosine_to_gradient"] == 1.0


@PROPERTY
@given(temperatures, group_sizes)
def test_leave_one_out_is_the_centred_rule_scaled_by_k_over_k_minus_one(temperature, group_size):
    # R_i - mean of the others = K/(K-1) (R_i - mean): the same update up to a scale, so the same
    # relative variance, and (K/(K-1))^2 times the variance.
    rules = compare_signal_rules(temperature, group_size)["rules"]
    scale = group_size / (group_size - 1)
    assert math.isclose(rules["leave_one_out"]["variance"], scale**2 * rules["mean"]["variance"], rel_tol=1e-13)
    assert math.isclose(rules["leave_one_out"]["relative_variance"], rules["mean"]["relative_variance"], rel_tol=1e-13)


@PROPERTY
@given(temperatures, group_sizes)
def test_the_figures_are_consistent(temperature, group_size):
    record = compare_signal_rules(temperature, group_size)
    assert record["probabilities"] == list(softmax_probabilities(temperature))
    assert math.isclose(record["expected_reward"], expected_reward(temperature), rel_tol=1e-15)
    assert record["gradient"] == compute_policy_gradient(temperature)
    assert record["groups"] == 3**group_size
    # A logit update only shifts probability: its components, and so their means, sum to 0.
    assert abs(math.fsum(record["gradient"])) <= 1e-16
    for rule in ESTIMATOR_RULES:
        figures = record["rules"][rule]
        assert abs(math.fsum(figures["expected_update"])) <= 1e-16
        assert all(v >= 0 for v in figures["component_variances"])
        assert math.isclose(figures["variance"], math.fsum(figures["component_variances"]), rel_tol=1e-14)
        assert -1 <= figures["cosine_to_gradient"] <= 1


def test_the_std_rule_is_not_proportional_to_the_gradient():
    # Issue 38: with sigma-normalised signals the expected update is not a multiple of the gradient.
    for temperature in (0.5, 1.0, 2.0):
        figures = compare_signal_rules(temperature, 6)["rules"]["std"]
        ratios = figures["ratios_to_gradient"]
        assert max(ratios) - min(ratios) > 1
        assert figures["cosine_to_gradient"] < 0.99


def test_the_baselines_lower_the_variance_of_raw_rewards_at_the_default():
    rules = compare_signal_rules()["rules"]
    assert rules["mean"]["variance"] < rules["leave_one_out"]["variance"] < rules["raw"]["variance"]
    assert rules["mean"]["relative_variance"] < rules["raw"]["relative_variance"]


def test_the_gradient_is_p_times_reward_minus_j_over_t():
    for temperature in (0.05, 1.0, 20.0):
        p = softmax_probabilities(temperature)
        j_value = math.fsum(a * c.reward for a, c in zip(p, CANDIDATES))
        expected = [a * (c.reward - j_value) / temperature for a, c in zip(p, CANDIDATES)]
        # At T = 0.05, 1 - J cancels in floats: the oracle itself is good only to about 1e-16 absolute there.
        assert all(
            math.isclose(g, e, rel_tol=1e-12, abs_tol=1e-15) for g, e in zip(compute_policy_gradient(temperature), expected)
        )


def test_the_defaults_and_the_records_shape():
    record = compare_signal_rules()
    assert record["settings"] == {"temperature": 1.0, "group_size": 6}
    assert record == compare_signal_rules(1.0, 6) == compare_signal_rules("1", " 6 ")
    assert record["groups"] == 729
    assert record["answers"] == [c.completion for c in CANDIDATES]
    assert list(record["rules"]) == list(ESTIMATOR_RULES) == ["raw", "mean", "leave_one_out", "std"]
    for figures in record["rules"].values():
        assert set(figures) == {
            "expected_update",
            "ratios_to_gradient",
            "cosine_to_gradient",
            "component_variances",
            "variance",
            "relative_variance",
        }
    assert json.loads(json.dumps(record, allow_nan=False)) == record


def test_the_default_figures_match_golden(golden):
    golden.check("estimator-default.json", json.dumps(compare_signal_rules(), ensure_ascii=False, indent=1) + "\n")


GROUP_SIZE = "Group size must be a whole number from 2 to 8; "
TEMPERATURE = "Temperature must be a number from 0.05 to 20; "


@pytest.mark.parametrize(
    ("arguments", "field", "message"),
    [
        ((1.0, 1), "group_size", GROUP_SIZE + "1 is too low"),
        ((1.0, 9), "group_size", GROUP_SIZE + "9 is too high"),
        ((1.0, "64"), "group_size", GROUP_SIZE + "64 is too high"),
        ((1.0, "abc"), "group_size", GROUP_SIZE + "\u201cabc\u201d is not a number"),
        ((1.0, 2.5), "group_size", GROUP_SIZE + "2.5 is not a whole number"),
        ((1.0, ""), "group_size", GROUP_SIZE + "nothing was entered"),
        ((0, 6), "temperature", TEMPERATURE + "0 is too low"),
        (("x", 1), "temperature", TEMPERATURE + "\u201cx\u201d is not a number"),
    ],
)
def test_bad_settings_get_reader_worded_errors(arguments, field, message):
    with pytest.raises(SettingError) as error:
        compare_signal_rules(*arguments)
    assert (error.value.field, str(error.value)) == (field, message)


def test_the_gradient_checks_its_temperature():
    with pytest.raises(SettingError) as error:
        compute_policy_gradient(21)
    assert (error.value.field, str(error.value)) == ("temperature", TEMPERATURE + "21 is too high")
