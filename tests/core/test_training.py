"""run_training: the contract, the recorded run (golden), its properties and its reader-worded errors.

These tests run in CPython and, unchanged, inside Pyodide, so the golden
record is also a cross-runtime check. Property runs use small settings (each
example is a whole training run); the extremes of every range are fixed cases.
"""

import json
import math
import sys
from decimal import Decimal
from itertools import pairwise

import pytest
from hypothesis import given, settings, strategies as st

from rollout_lab import CANDIDATES, SettingError, check_group_size, check_seed, run_lab
from rollout_lab.learning.training import check_training_settings, policy_from_logits, run_training, update_step
from rollout_lab.world import CLIP_RANGE, EPOCHS_RANGE, KL_WEIGHT_RANGE, LEARNING_RATE_RANGE, ROUNDS_RANGE

PROPERTY = settings(deadline=None, max_examples=30 if sys.platform == "emscripten" else 80)
DEFAULTS = {
    "rounds": 5,
    "group_size": 8,
    "seed": 20260903,
    "learning_rate": 1.0,
    "epochs": 4,
    "clip": 0.2,
    "kl_weight": 0.0,
    "signal_rule": "mean",
}

runs = st.fixed_dictionaries(
    {
        "rounds": st.integers(1, 4),
        "group_size": st.integers(1, 16),
        "seed": st.integers(0, 2**32 - 1),
        "learning_rate": st.one_of(st.sampled_from([0.0, 1.0, 5.0]), st.floats(0.0, 5.0)),
        "epochs": st.integers(1, 4),
        "clip": st.one_of(st.sampled_from([0.01, 0.2, 1.0]), st.floats(0.01, 1.0)),
        "kl_weight": st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.floats(0.0, 1.0)),
        "signal_rule": st.sampled_from(["mean", "std"]),
    }
)


def test_the_defaults_are_the_contracts():
    record = run_training()
    assert record["settings"] == DEFAULTS
    assert record == run_training(**DEFAULTS)


def test_the_record_has_the_contracts_shape():
    record = run_training()
    assert len(record["rounds"]) == 5
    for r in record["rounds"]:
        assert {"indices", "rewards", "signals", "epochs", "expected_reward", "kl"} <= set(r)
        assert len(r["indices"]) == len(r["rewards"]) == len(r["signals"]) == 8
        assert len(r["epochs"]) == 4
        for epoch in r["epochs"]:
            assert set(epoch) == {"ratios", "clipped", "probabilities"}
            assert len(epoch["ratios"]) == len(epoch["clipped"]) == 8 and len(epoch["probabilities"]) == 3
            assert all(isinstance(flag, bool) for flag in epoch["clipped"])
    # JSON-ready: the record survives a round trip unchanged (floats by repr, no NaN or infinity).
    assert json.loads(json.dumps(record, allow_nan=False)) == record


def test_the_default_run_matches_golden(golden):
    golden.check("training-default.json", json.dumps(run_training(), ensure_ascii=False, indent=1) + "\n")


def test_the_recorded_run_is_what_the_issue_describes():
    # Issue 25's example sentence: "Round 3, epoch 4: 2 of 8 samples clipped; expected reward 0.9127".
    third = run_training()["rounds"][2]
    assert sum(third["epochs"][3]["clipped"]) == 2
    assert round(third["expected_reward"], 4) == 0.9127


def test_the_first_round_draws_what_the_sampler_draws():
    # The starting policy is the toy at T = 1 and the stream starts at the seed, as in the sampler.
    for group_size, seed in [(8, 20260903), (64, 0), (1, 2**32 - 1)]:
        first = run_training(rounds=1, group_size=group_size, seed=seed)["rounds"][0]
        sampled = run_lab(1.0, group_size, seed)
        assert first["indices"] == [d["index"] for d in sampled["draws"]]
        assert first["signals"] == [d["signal"] for d in sampled["draws"]]
        assert first["behaviour"] == [c["probability"] for c in sampled["candidates"]]


def test_the_stream_goes_on_across_rounds():
    # Round 2 at alpha = 0 draws from the same policy as round 1, with the next K values of the stream.
    rounds = run_training(rounds=2, group_size=6, learning_rate=0)["rounds"]
    assert rounds[0]["indices"] + rounds[1]["indices"] == [d["index"] for d in run_lab(1.0, 12)["draws"]]


def test_each_round_collects_from_the_policy_the_last_round_left():
    rounds = run_training()["rounds"]
    for before, after in pairwise(rounds):
        assert after["behaviour"] == before["epochs"][-1]["probabilities"]


@PROPERTY
@given(runs)
def test_every_first_epoch_ratio_is_exactly_one(run):
    for r in run_training(**run)["rounds"]:
        assert r["epochs"][0]["ratios"] == [1.0] * len(r["indices"])
        assert not any(r["epochs"][0]["clipped"])


@PROPERTY
@given(runs)
def test_a_zero_learning_rate_changes_nothing(run):
    record = run_training(**{**run, "learning_rate": 0})
    start = record["start"]
    for r in record["rounds"]:
        assert r["behaviour"] == start["probabilities"]
        assert (r["expected_reward"], r["kl"]) == (start["expected_reward"], 0.0)
        for epoch in r["epochs"]:
            assert epoch["probabilities"] == start["probabilities"]
            assert epoch["ratios"] == [1.0] * len(r["indices"])


@PROPERTY
@given(runs)
def test_one_epoch_never_clips(run):
    assert not any(any(r["epochs"][0]["clipped"]) for r in run_training(**{**run, "epochs": 1})["rounds"])


@PROPERTY
@given(runs)
def test_probabilities_sum_to_one(run):
    record = run_training(**run)
    assert abs(math.fsum(record["start"]["probabilities"]) - 1) <= 1e-15
    for r in record["rounds"]:
        for epoch in r["epochs"]:
            assert all(0 <= p <= 1 for p in epoch["probabilities"])
            assert abs(math.fsum(epoch["probabilities"]) - 1) <= 1e-15


@PROPERTY
@given(runs)
def test_clipped_means_past_the_band_in_the_direction_of_the_signal(run):
    record = run_training(**run)
    epsilon = record["settings"]["clip"]
    for r in record["rounds"]:
        for epoch in r["epochs"]:
            for ratio, signal, clipped in zip(epoch["ratios"], r["signals"], epoch["clipped"]):
                past = (signal > 0 and ratio > 1 + epsilon) or (signal < 0 and ratio < 1 - epsilon)
                # The core compares exact decimals; floats can differ only within a rounding of the edge.
                if abs(ratio - (1 + epsilon)) > 1e-12 and abs(ratio - (1 - epsilon)) > 1e-12:
                    assert clipped == past


offsets = st.lists(st.floats(-1.5, 1.5), min_size=3, max_size=3)
drawn = st.lists(st.integers(0, 2), min_size=1, max_size=12)
answer_signals = st.lists(st.sampled_from([-1.0, -0.25, 0.0, 0.5, 2.0]), min_size=3, max_size=3)


@PROPERTY
@given(runs, offsets, drawn, answer_signals)
def test_a_clipped_sample_contributes_nothing(run, moved, indices, signals):
    # One step from a policy that has moved away from the behaviour policy: a clipped sample's
    # term is flat, so scaling its signal (it stays clipped) leaves the step exactly as it was,
    # while scaling an unclipped sample's signal changes the step. (Draws of one answer share
    # its reward, so they share its signal: the answer's signal is what is scaled.)
    start = [Decimal(repr(c.logit)) for c in CANDIDATES]
    behaviour = policy_from_logits(start)
    current = policy_from_logits([z + Decimal(repr(dz)) for z, dz in zip(start, moved)])
    checked = check_training_settings(**{**run, "learning_rate": 1})
    signal_of = {index: Decimal(repr(signals[index])) for index in indices}
    stepped, _, clipped = update_step(current, behaviour, behaviour, indices, signal_of, checked)
    for index, signal in signal_of.items():
        if signal == 0:
            continue
        again, _, clipped_again = update_step(current, behaviour, behaviour, indices, {**signal_of, index: signal * 2}, checked)
        assert clipped_again == clipped
        if clipped[index]:
            assert again == stepped
        else:
            assert again.logits != stepped.logits


def test_a_group_whose_rewards_are_equal_moves_nothing_under_either_rule():
    for rule in ("mean", "std"):
        record = run_training(group_size=1, rounds=10, signal_rule=rule)
        assert all(r["signals"] == [0.0] for r in record["rounds"])
        assert record["rounds"][-1]["expected_reward"] == record["start"]["expected_reward"]


def test_the_std_rule_divides_by_the_population_std():
    r = run_training(signal_rule="std", rounds=1)["rounds"][0]
    mean = math.fsum(r["rewards"]) / len(r["rewards"])
    sigma = math.sqrt(math.fsum((x - mean) ** 2 for x in r["rewards"]) / len(r["rewards"]))
    assert all(math.isclose(s, (x - mean) / sigma, rel_tol=1e-14) for s, x in zip(r["signals"], r["rewards"]))


def test_a_kl_penalty_keeps_the_policy_nearer_the_reference():
    kls = [run_training(kl_weight=beta)["rounds"][-1]["kl"] for beta in (0, 0.5, 1)]
    assert kls[0] > kls[1] > kls[2] > 0


def test_the_extremes_of_every_range_run():
    for rounds, group_size, epochs in [(10, 64, 10), (1, 1, 1), (10, 1, 10), (1, 64, 1)]:
        for learning_rate, clip, kl_weight in [(5, 0.01, 1), (5, 1, 0), (0, 0.01, 0), (0.5, 1, 1)]:
            record = run_training(rounds, group_size, 2**32 - 1, learning_rate, epochs, clip, kl_weight, "std")
            json.dumps(record, allow_nan=False)
            assert len(record["rounds"]) == rounds
            assert all(len(r["epochs"]) == epochs for r in record["rounds"])


def test_the_expected_reward_is_the_policys():
    for r in run_training()["rounds"]:
        probabilities = r["epochs"][-1]["probabilities"]
        assert math.isclose(
            r["expected_reward"], math.fsum(p * c.reward for p, c in zip(probabilities, CANDIDATES)), rel_tol=1e-15
        )


# Every message: the control's label first, the rule, then what was wrong with the value, a minus typed as −.
BAD_SETTINGS = [
    ({"rounds": 0}, "rounds", "Rounds must be a whole number from 1 to 10; 0 is too low"),
    ({"rounds": "11"}, "rounds", "Rounds must be a whole number from 1 to 10; 11 is too high"),
    ({"rounds": "2.5"}, "rounds", "Rounds must be a whole number from 1 to 10; 2.5 is not a whole number"),
    ({"rounds": "-1"}, "rounds", "Rounds must be a whole number from 1 to 10; \u22121 is too low"),
    ({"rounds": ""}, "rounds", "Rounds must be a whole number from 1 to 10; nothing was entered"),
    ({"epochs": "abc"}, "epochs", "Epochs must be a whole number from 1 to 10; \u201cabc\u201d is not a number"),
    ({"epochs": 11}, "epochs", "Epochs must be a whole number from 1 to 10; 11 is too high"),
    ({"learning_rate": "-0.5"}, "learning_rate", "Learning rate must be a number from 0 to 5; \u22120.5 is too low"),
    ({"learning_rate": "5.01"}, "learning_rate", "Learning rate must be a number from 0 to 5; 5.01 is too high"),
    ({"learning_rate": "nan"}, "learning_rate", "Learning rate must be a number from 0 to 5; \u201cnan\u201d is not a number"),
    ({"learning_rate": float("-inf")}, "learning_rate", "Learning rate must be a number from 0 to 5; \u2212inf is too low"),
    ({"learning_rate": "-x"}, "learning_rate", "Learning rate must be a number from 0 to 5; \u201c-x\u201d is not a number"),
    ({"clip": "0"}, "clip", "Clip must be a number from 0.01 to 1; 0 is too low"),
    ({"clip": "1e-3"}, "clip", "Clip must be a number from 0.01 to 1; 1e\u22123 is too low"),
    ({"clip": "1.5"}, "clip", "Clip must be a number from 0.01 to 1; 1.5 is too high"),
    ({"clip": " "}, "clip", "Clip must be a number from 0.01 to 1; nothing was entered"),
    ({"kl_weight": "2"}, "kl_weight", "KL weight must be a number from 0 to 1; 2 is too high"),
    ({"kl_weight": True}, "kl_weight", "KL weight must be a number from 0 to 1; True is not a number"),
    (
        {"signal_rule": "median"},
        "signal_rule",
        "Signal rule must be \u201cmean\u201d or \u201cstd\u201d; \u201cmedian\u201d is not one of them",
    ),
    ({"signal_rule": ""}, "signal_rule", "Signal rule must be \u201cmean\u201d or \u201cstd\u201d; nothing was chosen"),
    ({"signal_rule": 1}, "signal_rule", "Signal rule must be \u201cmean\u201d or \u201cstd\u201d; 1 is not one of them"),
]


@pytest.mark.parametrize(("settings_given", "field", "message"), BAD_SETTINGS, ids=[m for _, _, m in BAD_SETTINGS])
def test_bad_settings_get_the_cores_reader_worded_error(settings_given, field, message):
    with pytest.raises(SettingError) as error:
        run_training(**settings_given)
    assert (error.value.field, str(error.value)) == (field, message)


def test_group_size_and_seed_are_checked_as_the_sampler_checks_them():
    for name, value, check in [("group_size", "65", check_group_size), ("seed", "-1", check_seed)]:
        with pytest.raises(SettingError) as expected:
            check(value)
        with pytest.raises(SettingError) as error:
            run_training(**{name: value})
        assert (error.value.field, str(error.value)) == (expected.value.field, str(expected.value))


def test_the_first_bad_setting_in_the_controls_order_is_named():
    with pytest.raises(SettingError) as error:
        run_training(rounds=0, epochs=0, clip=0)
    assert error.value.field == "rounds"


def test_settings_are_read_as_typed():
    assert run_training(rounds=" 3 ", learning_rate="1.0", clip="0.20", signal_rule=" STD ")["settings"] == {
        **DEFAULTS,
        "rounds": 3,
        "signal_rule": "std",
    }


def test_the_ranges_are_the_issues():
    assert (ROUNDS_RANGE, EPOCHS_RANGE, LEARNING_RATE_RANGE, CLIP_RANGE, KL_WEIGHT_RANGE) == (
        (1, 10),
        (1, 10),
        (0.0, 5.0),
        (0.01, 1.0),
        (0.0, 1.0),
    )
