"""token_update: the contract, the recorded step (golden), its properties and its reader-worded errors.

These tests run in CPython and, unchanged, inside Pyodide, so the golden
record is also a cross-runtime check.
"""

import json
import math
import sys

import pytest
from hypothesis import given, settings, strategies as st

from rollout_lab import (
    LENGTH_RULES,
    SettingError,
    check_group_size,
    check_length_rule,
    check_seed,
    check_temperature,
    completion_probabilities,
    sample_token_group,
    token_update,
)

PROPERTY = settings(deadline=None, max_examples=15 if sys.platform == "emscripten" else 80)
DEFAULTS = {"temperature": 1.0, "group_size": 6, "seed": 20260903, "learning_rate": 1.0, "length_rule": "sequence_mean"}

updates = st.fixed_dictionaries(
    {
        "temperature": st.one_of(st.sampled_from([0.05, 0.1, 1.0, 2.0, 20.0]), st.floats(0.05, 20.0)),
        "group_size": st.integers(1, 64),
        "seed": st.integers(0, 2**32 - 1),
        "learning_rate": st.one_of(st.sampled_from([0.0, 1.0, 5.0]), st.floats(0.0, 5.0)),
        "length_rule": st.sampled_from(LENGTH_RULES),
    }
)


def test_the_defaults_are_the_contracts():
    record = token_update()
    assert record["settings"] == DEFAULTS
    assert record == token_update(**DEFAULTS) == token_update(1.0, 6, 20260903, 1.0, "sequence_mean")


def test_the_record_has_the_contracts_shape():
    record = token_update()
    assert {"rollouts", "ratios", "sequence_ratios", "before", "after", "states", "mean", "signals", "weights"} <= set(record)
    k = len(record["rollouts"])
    assert k == len(record["ratios"]) == len(record["sequence_ratios"]) == len(record["signals"]) == len(record["weights"]) == 6
    for rollout, ratios in zip(record["rollouts"], record["ratios"]):
        assert len(ratios) == len(rollout["tokens"])
    assert list(record["before"]) == list(record["after"]) == list(completion_probabilities())
    for state in record["states"]:
        for option in state["options"]:
            assert {"token", "logit", "probability", "gradient", "move", "logit_after", "probability_after"} <= set(option)
    assert json.loads(json.dumps(record, allow_nan=False)) == record


def test_the_default_records_match_golden(golden):
    records = {
        "sample_token_group()": sample_token_group(),
        "completion_probabilities()": completion_probabilities(),
        "token_update()": token_update(),
        'token_update(length_rule="token_sum")': token_update(length_rule="token_sum"),
    }
    golden.check("token-update-default.json", json.dumps(records, ensure_ascii=False, indent=1) + "\n")


@PROPERTY
@given(updates)
def test_the_update_starts_from_the_samplers_group_and_policy(update):
    record = token_update(**update)
    sampled = sample_token_group(update["temperature"], update["group_size"], update["seed"])
    assert record["rollouts"] == sampled["rollouts"]
    assert record["before"] == completion_probabilities(update["temperature"])
    assert [[o["probability"] for o in s["options"]] for s in record["states"]] == [
        [o["probability"] for o in s["options"]] for s in sampled["states"]
    ]


@PROPERTY
@given(updates)
def test_a_sequence_ratio_is_its_tokens_product(update):
    record = token_update(**update)
    for ratios, sequence in zip(record["ratios"], record["sequence_ratios"]):
        assert math.isclose(sequence, math.prod(ratios), rel_tol=1e-14)


@PROPERTY
@given(updates)
def test_a_sequence_ratio_is_the_completions_new_probability_over_its_old(update):
    record = token_update(**update)
    for rollout, sequence in zip(record["rollouts"], record["sequence_ratios"]):
        text = rollout["text"]
        assert math.isclose(sequence, record["after"][text] / record["before"][text], rel_tol=1e-13)


@PROPERTY
@given(updates)
def test_a_token_with_no_alternative_has_a_ratio_of_exactly_one(update):
    record = token_update(**update)
    for rollout, ratios in zip(record["rollouts"], record["ratios"]):
        for token, ratio in zip(rollout["tokens"], ratios):
            if token == " answer is":
                assert ratio == 1.0
    forced = next(s for s in record["states"] if s["prefix"] == "The")["options"]
    assert [(o["gradient"], o["move"], o["probability_after"]) for o in forced] == [(0.0, 0.0, 1.0)]


@PROPERTY
@given(updates)
def test_a_zero_learning_rate_changes_nothing(update):
    record = token_update(**{**update, "learning_rate": 0})
    assert all(ratio == 1.0 for ratios in record["ratios"] for ratio in ratios)
    assert record["sequence_ratios"] == [1.0] * len(record["rollouts"])
    assert record["after"] == record["before"]
    for state in record["states"]:
        for option in state["options"]:
            assert (option["move"], option["logit_after"], option["probability_after"]) == (
                0.0,
                option["logit"],
                option["probability"],
            )


@PROPERTY
@given(updates)
def test_the_completions_still_sum_to_one_after_the_step(update):
    after = token_update(**update)["after"]
    assert all(0 < p < 1 for p in after.values())
    assert abs(math.fsum(after.values()) - 1) <= 1e-15


@PROPERTY
@given(updates)
def test_the_signal_is_the_centred_reward_and_the_weight_the_length_rules(update):
    record = token_update(**update)
    rewards = [r["reward"] for r in record["rollouts"]]
    mean = math.fsum(rewards) / len(rewards)
    assert math.isclose(record["mean"], mean, rel_tol=1e-15)
    assert all(math.isclose(c, r - mean, rel_tol=1e-14, abs_tol=1e-15) for c, r in zip(record["signals"], rewards))
    lengths = [len(r["tokens"]) for r in record["rollouts"]]
    expected = [1 / n for n in lengths] if update["length_rule"] == "sequence_mean" else [1 / 4] * len(lengths)
    assert record["weights"] == expected


@PROPERTY
@given(updates)
def test_each_states_logit_moves_sum_to_zero_and_are_the_step_times_the_gradient(update):
    # sum_j (1[j = t] - p_j) = 0 for every token, so a state's moves only shift probability among its options.
    record = token_update(**update)
    alpha = record["settings"]["learning_rate"]
    for state in record["states"]:
        moves = [o["move"] for o in state["options"]]
        assert abs(math.fsum(moves)) <= 1e-15
        for option in state["options"]:
            assert math.isclose(option["move"], alpha * option["gradient"], rel_tol=1e-14, abs_tol=1e-300)
            assert math.isclose(option["logit_after"], option["logit"] + option["move"], rel_tol=1e-14, abs_tol=1e-15)


@PROPERTY
@given(updates)
def test_a_state_no_rollout_visited_does_not_move(update):
    record = token_update(**update)
    visited = set()
    for rollout in record["rollouts"]:
        prefix = ""
        for token in rollout["tokens"]:
            visited.add(prefix)
            prefix += "" if token == "<end>" else token
    for state in record["states"]:
        if state["prefix"] not in visited:
            assert all((o["move"], o["probability_after"]) == (0.0, o["probability"]) for o in state["options"])


def test_a_group_whose_rewards_are_equal_moves_nothing_under_either_rule():
    for rule in LENGTH_RULES:
        record = token_update(group_size=1, length_rule=rule, learning_rate=5)
        assert record["signals"] == [0.0]
        assert record["after"] == record["before"]


def find_seed(temperature, group_size, length):
    """The first seed whose group has only rollouts of this many tokens and rewards that differ (so the step moves)."""
    for seed in range(10_000):
        rollouts = sample_token_group(temperature, group_size, seed)["rollouts"]
        if {len(r["tokens"]) for r in rollouts} == {length} and len({r["reward"] for r in rollouts}) > 1:
            return seed
    raise AssertionError(f"no such group of {group_size} at T = {temperature}")


def test_when_every_rollout_has_two_tokens_the_sequence_mean_step_is_twice_the_constants():
    # |o_i| = 2 for every i: w_i = 1/2 against 1/4.
    seed = find_seed(1.0, 4, 2)
    mean_rule, constant = (token_update(1.0, 4, seed, 1, rule) for rule in LENGTH_RULES)
    assert any(o["gradient"] != 0 for s in constant["states"] for o in s["options"])
    for a, b in zip(mean_rule["states"], constant["states"]):
        for x, y in zip(a["options"], b["options"]):
            assert math.isclose(x["gradient"], 2 * y["gradient"], rel_tol=1e-15, abs_tol=1e-300)


def test_when_every_rollout_has_four_tokens_the_two_rules_agree():
    # |o_i| = 4 for every i: 1/|o_i| is the constant 1/4.
    seed = find_seed(5.0, 3, 4)
    mean_rule, constant = (token_update(5.0, 3, seed, 2.5, rule) for rule in LENGTH_RULES)
    assert any(o["gradient"] != 0 for s in constant["states"] for o in s["options"])
    assert {key: value for key, value in mean_rule.items() if key != "settings"} == {
        key: value for key, value in constant.items() if key != "settings"
    }


def test_a_state_the_signals_leave_alone_keeps_its_logits_exactly():
    # A group of two-token rollouts that all start with "5": at the start state every weight is
    # 1/2 (or 1/4) and the signals sum to 0, so nothing moves there, exactly, and each first
    # token's ratio is exactly 1 (no rounding residue of the decimal sums).
    for seed in range(10_000):
        rollouts = sample_token_group(1.0, 3, seed)["rollouts"]
        if {r["text"] for r in rollouts} == {"5", "5."}:
            break
    for rule in LENGTH_RULES:
        record = token_update(1.0, 3, seed, 5, rule)
        assert [(o["gradient"], o["move"]) for o in record["states"][0]["options"]] == [(0.0, 0.0)] * 3
        assert [ratios[0] for ratios in record["ratios"]] == [1.0] * 3
        assert [ratios[1] for ratios in record["ratios"]] != [1.0] * 3


def test_the_length_rule_changes_which_way_the_default_group_moves_the_first_token():
    # The same group and signals, two weightings: the per-completion average gives each short "5"
    # twice the weight per token of a long one, the constant does not; the start state moves differently.
    first = {rule: token_update(length_rule=rule)["states"][0]["options"] for rule in LENGTH_RULES}
    assert [o["gradient"] for o in first["sequence_mean"]] != [o["gradient"] for o in first["token_sum"]]


def test_settings_are_read_as_typed():
    assert token_update(" 1 ", "6", "20260903", "1.0", " TOKEN_SUM ")["settings"] == {**DEFAULTS, "length_rule": "token_sum"}
    assert token_update(" 1 ", "6", "20260903", "1.0", " Sequence_Mean ") == token_update()


LENGTH_RULE = "Length rule must be \u201csequence_mean\u201d or \u201ctoken_sum\u201d; "
LEARNING_RATE = "Learning rate must be a number from 0 to 5; "

# Every message: the control's label first, the rule, then what was wrong with the value, a minus typed as −.
BAD_SETTINGS = [
    ({"learning_rate": "-0.5"}, "learning_rate", LEARNING_RATE + "\u22120.5 is too low"),
    ({"learning_rate": "5.01"}, "learning_rate", LEARNING_RATE + "5.01 is too high"),
    ({"learning_rate": 6}, "learning_rate", LEARNING_RATE + "6 is too high"),
    ({"learning_rate": "nan"}, "learning_rate", LEARNING_RATE + "\u201cnan\u201d is not a number"),
    ({"learning_rate": float("nan")}, "learning_rate", LEARNING_RATE + "nan is not a number"),
    ({"learning_rate": float("-inf")}, "learning_rate", LEARNING_RATE + "\u2212inf is too low"),
    ({"learning_rate": ""}, "learning_rate", LEARNING_RATE + "nothing was entered"),
    ({"learning_rate": None}, "learning_rate", LEARNING_RATE + "None is not a number"),
    ({"length_rule": "mean"}, "length_rule", LENGTH_RULE + "\u201cmean\u201d is not one of them"),
    ({"length_rule": "sequence mean"}, "length_rule", LENGTH_RULE + "\u201csequence mean\u201d is not one of them"),
    ({"length_rule": ""}, "length_rule", LENGTH_RULE + "nothing was chosen"),
    ({"length_rule": "  "}, "length_rule", LENGTH_RULE + "nothing was chosen"),
    ({"length_rule": 1}, "length_rule", LENGTH_RULE + "1 is not one of them"),
    ({"length_rule": None}, "length_rule", LENGTH_RULE + "None is not one of them"),
    ({"temperature": "0"}, "temperature", "Temperature must be a number from 0.05 to 20; 0 is too low"),
    ({"group_size": "65"}, "group_size", "Group size must be a whole number from 1 to 64; 65 is too high"),
    ({"seed": "-1"}, "seed", "Seed must be a whole number from 0 to 4294967295; \u22121 is too low"),
]


@pytest.mark.parametrize(("settings_given", "field", "message"), BAD_SETTINGS, ids=[m for _, _, m in BAD_SETTINGS])
def test_bad_settings_get_the_cores_reader_worded_error(settings_given, field, message):
    with pytest.raises(SettingError) as error:
        token_update(**settings_given)
    assert (error.value.field, str(error.value)) == (field, message)
    assert isinstance(error.value, ValueError)


def test_the_length_rule_check_normalises_what_it_accepts():
    assert [check_length_rule(v) for v in ("sequence_mean", " token_sum ", "TOKEN_SUM")] == [
        "sequence_mean",
        "token_sum",
        "token_sum",
    ]


def test_temperature_group_size_and_seed_are_checked_as_the_sampler_checks_them():
    for name, value, check in [
        ("temperature", "abc", check_temperature),
        ("group_size", "2.5", check_group_size),
        ("seed", "x", check_seed),
    ]:
        with pytest.raises(SettingError) as expected:
            check(value)
        with pytest.raises(SettingError) as error:
            token_update(**{name: value})
        assert (error.value.field, str(error.value)) == (expected.value.field, str(expected.value))


def test_the_first_bad_setting_in_the_controls_order_is_named():
    # Temperature, Group size, Seed, Learning rate, Length rule.
    bad = {"temperature": 0, "group_size": 0, "seed": -1, "learning_rate": -1, "length_rule": "x"}
    for field in DEFAULTS:
        with pytest.raises(SettingError) as error:
            token_update(**{**DEFAULTS, **bad})
        assert error.value.field == field
        bad.pop(field)
