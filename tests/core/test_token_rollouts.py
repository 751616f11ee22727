"""sample_token_group and completion_probabilities: the contract, the stream, exact properties and errors.

These tests run in CPython and, unchanged, inside Pyodide, so the golden
record (test_token_update.py) and every exact equality here hold in both.
"""

import json
import math
import sys
from itertools import islice

import pytest
from hypothesis import given, settings, strategies as st

from rollout_lab import (
    TOKEN_STATES,
    SettingError,
    check_group_size,
    check_seed,
    check_temperature,
    completion_probabilities,
    draw_index,
    first_uniforms,
    sample_token_group,
    softmax_probabilities,
)

PROPERTY = settings(deadline=None, max_examples=15 if sys.platform == "emscripten" else 80)
# The eight completions, each with the tokens that spell it.
TOKENS_OF = {
    "5": ["5", "<end>"],
    "5.": ["5", "."],
    "6": ["6", "<end>"],
    "6.": ["6", "."],
    "The answer is 5": ["The", " answer is", " 5", "<end>"],
    "The answer is 5.": ["The", " answer is", " 5", "."],
    "The answer is 6": ["The", " answer is", " 6", "<end>"],
    "The answer is 6.": ["The", " answer is", " 6", "."],
}
EIGHT = list(TOKENS_OF)

temperatures = st.one_of(st.sampled_from([0.05, 0.1, 1 / 3, 1.0, 2.0, 7.77, 20.0]), st.floats(0.05, 20.0))
groups = st.fixed_dictionaries(
    {
        "temperature": temperatures,
        "group_size": st.integers(1, 64),
        "seed": st.integers(0, 2**32 - 1),
    }
)


def test_the_defaults_are_the_contracts():
    record = sample_token_group()
    assert record["settings"] == {"temperature": 1.0, "group_size": 6, "seed": 20260903}
    assert record == sample_token_group(1.0, 6, 20260903) == sample_token_group(temperature=1.0, group_size=6, seed=20260903)


def test_the_record_has_the_contracts_shape():
    record = sample_token_group(1.0, 64, 0)
    assert len(record["rollouts"]) == 64
    for number, rollout in enumerate(record["rollouts"], start=1):
        assert {"tokens", "text", "logprobs", "reward"} <= set(rollout)
        assert rollout["rollout"] == number
        assert isinstance(rollout["text"], str) and isinstance(rollout["reward"], float)
        assert len(rollout["tokens"]) == len(rollout["logprobs"]) == len(rollout["us"]) == len(rollout["probabilities"])
        assert rollout["tokens"][-1] in ("<end>", ".")
        assert rollout["text"] == "".join(t for t in rollout["tokens"] if t != "<end>")
        assert rollout["text"] in EIGHT
    assert {"<end>", "."} <= {r["tokens"][-1] for r in record["rollouts"]}
    # JSON-ready: the record survives a round trip unchanged (floats by repr, no NaN or infinity).
    assert json.loads(json.dumps(record, allow_nan=False)) == record


@PROPERTY
@given(groups)
def test_every_token_consumes_one_u_of_one_stream(group):
    # The u's of all rollouts, in order, are the stream's first values from the seed: one per
    # token, the forced " answer is" included, carried from rollout to rollout.
    rollouts = sample_token_group(**group)["rollouts"]
    used = [u for rollout in rollouts for u in rollout["us"]]
    assert used == list(islice(first_uniforms(group["seed"]), len(used)))


@PROPERTY
@given(groups)
def test_each_token_is_the_draw_rules_pick_from_its_state(group):
    record = sample_token_group(**group)
    options = {state["prefix"]: state["options"] for state in record["states"]}
    for rollout in record["rollouts"]:
        prefix = ""
        for token, u, probability in zip(rollout["tokens"], rollout["us"], rollout["probabilities"]):
            offered = options[prefix]
            index = draw_index(u, [o["probability"] for o in offered])
            assert offered[index]["token"] == token and offered[index]["probability"] == probability
            prefix += "" if token == "<end>" else token


@PROPERTY
@given(groups)
def test_a_token_with_no_alternative_has_probability_one_and_log_probability_zero(group):
    forced = 0
    for rollout in sample_token_group(**group)["rollouts"]:
        for token, probability, logprob in zip(rollout["tokens"], rollout["probabilities"], rollout["logprobs"]):
            if token == " answer is":
                forced += 1
                assert (probability, logprob) == (1.0, 0.0)
                assert math.copysign(1, logprob) == 1  # 0.0, not -0.0
            else:
                assert logprob < 0
                assert math.isclose(math.exp(logprob), probability, rel_tol=1e-13)
    assert forced == sum(r["text"].startswith("The") for r in sample_token_group(**group)["rollouts"])


@PROPERTY
@given(temperatures)
def test_the_first_token_is_drawn_from_the_one_action_worlds_softmax(temperature):
    start = sample_token_group(temperature, 1, 0)["states"][0]
    assert start["prefix"] == ""
    assert tuple(o["probability"] for o in start["options"]) == softmax_probabilities(temperature)


@PROPERTY
@given(temperatures)
def test_the_first_tokens_marginal_is_the_one_action_worlds_softmax(temperature):
    p = completion_probabilities(temperature)
    marginal = [
        math.fsum(p[t] for t in ("5", "5.")),
        math.fsum(p[t] for t in EIGHT if t.startswith("The")),
        math.fsum(p[t] for t in ("6", "6.")),
    ]
    assert all(math.isclose(m, s, rel_tol=1e-14) for m, s in zip(marginal, softmax_probabilities(temperature)))


@PROPERTY
@given(temperatures)
def test_the_eight_probabilities_sum_to_one(temperature):
    p = completion_probabilities(temperature)
    assert sorted(p) == sorted(EIGHT)
    assert all(0 < q < 1 for q in p.values())
    assert abs(math.fsum(p.values()) - 1) <= 1e-15


@PROPERTY
@given(temperatures)
def test_a_completions_probability_is_its_tokens_product(temperature):
    states = {
        s["prefix"]: {o["token"]: o["probability"] for o in s["options"]} for s in sample_token_group(temperature, 1, 0)["states"]
    }
    for text, probability in completion_probabilities(temperature).items():
        tokens = TOKENS_OF[text]
        prefix, product = "", 1.0
        for token in tokens:
            product *= states[prefix][token]
            prefix += "" if token == "<end>" else token
        assert prefix == text
        assert math.isclose(probability, product, rel_tol=1e-14)


def test_the_stop_token_is_an_action_that_changes_the_reward():
    # "5" and "5." share their first token; the second, a stop token chosen like any other, decides 1 or 0.75.
    rollouts = sample_token_group(1.0, 64, 0)["rollouts"]
    rewards = {r["text"]: r["reward"] for r in rollouts}
    assert (rewards["5"], rewards["5."]) == (1.0, 0.75)


def test_a_cold_policy_almost_always_says_5_and_stops():
    rollouts = sample_token_group(0.05, 64, 20260903)["rollouts"]
    assert [r["tokens"] for r in rollouts] == [["5", "<end>"]] * 64


def test_settings_as_typed_give_the_same_record_as_numbers():
    assert sample_token_group(" 1 ", "6", "20260903") == sample_token_group(1.0, 6, 20260903)
    assert completion_probabilities("0.50") == completion_probabilities(0.5)


@pytest.mark.parametrize(
    ("arguments", "check", "value"),
    [
        ((0, 6, 0), check_temperature, 0),
        (("abc", 0, -1), check_temperature, "abc"),
        ((20.5, 6, 0), check_temperature, 20.5),
        ((1, 0, -1), check_group_size, 0),
        ((1, "65", 0), check_group_size, "65"),
        ((1, 2.5, 0), check_group_size, 2.5),
        ((1, 6, -1), check_seed, -1),
        ((1, 6, "4294967296"), check_seed, "4294967296"),
        ((1, 6, ""), check_seed, ""),
    ],
)
def test_bad_settings_get_the_samplers_reader_worded_error(arguments, check, value):
    with pytest.raises(SettingError) as expected:
        check(value)
    with pytest.raises(SettingError) as error:
        sample_token_group(*arguments)
    assert (error.value.field, str(error.value)) == (expected.value.field, str(expected.value))


@pytest.mark.parametrize(
    ("arguments", "field", "message"),
    [
        (("abc", 0, -1), "temperature", "Temperature must be a number from 0.05 to 20; \u201cabc\u201d is not a number"),
        ((1, 0, -1), "group_size", "Group size must be a whole number from 1 to 64; 0 is too low"),
        ((1, 6, -1), "seed", "Seed must be a whole number from 0 to 4294967295; \u22121 is too low"),
    ],
)
def test_the_first_bad_setting_is_named_in_the_samplers_words(arguments, field, message):
    with pytest.raises(SettingError) as error:
        sample_token_group(*arguments)
    assert (error.value.field, str(error.value)) == (field, message)


def test_a_bad_temperature_is_refused_by_the_enumeration_too():
    with pytest.raises(SettingError) as error:
        completion_probabilities("0.01")
    assert (error.value.field, str(error.value)) == (
        "temperature",
        "Temperature must be a number from 0.05 to 20; 0.01 is too low",
    )


def test_the_tree_is_the_table_at_t():
    states = sample_token_group(2.0, 1, 0)["states"]
    assert [s["prefix"] for s in states] == [s.prefix for s in TOKEN_STATES]
    for state, table in zip(states, TOKEN_STATES):
        assert [(o["token"], o["logit"]) for o in state["options"]] == [(o.token, o.logit) for o in table.options]
        assert abs(math.fsum(o["probability"] for o in state["options"]) - 1) <= 1e-15
