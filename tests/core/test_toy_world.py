"""Every number that curriculum.md's "The toy world" states, checked against the core.

The expected values are copied from the brief, not recomputed: if the core
drifts from the brief, these fail.
"""

import pytest

from rollout_lab import (
    CANDIDATES,
    DEFAULT_GROUP_SIZE,
    DEFAULT_SEED,
    DEFAULT_TEMPERATURE,
    PROMPT,
    expected_reward,
    format_number,
    format_signal,
    group_statistics,
    present_group,
    present_probabilities,
    run_lab,
    softmax_probabilities,
)

NBSP = "\u00a0"
MINUS = "\u2212"


def test_prompt_is_the_brief_verbatim():
    assert PROMPT == "A box has 3 red labels and 2 blue labels. How many labels? Reply with one digit."


def test_candidates_are_the_table_in_the_brief():
    table = [(c.index, c.completion, c.logit, c.reward) for c in CANDIDATES]
    assert table == [(0, "5", 2.0, 1.0), (1, "The answer is 5.", 1.2, 0.75), (2, "6", 0.6, 0.0)]


def test_reset_defaults_are_t1_k6_seed20260903():
    assert (DEFAULT_TEMPERATURE, DEFAULT_GROUP_SIZE, DEFAULT_SEED) == (1.0, 6, 20260903)


@pytest.mark.parametrize(
    ("temperature", "candidate", "four_places"),
    [
        (0.5, 0, "0.7919"),
        (1, 0, "0.5896"),
        (1, 1, "0.2649"),
        (1, 2, "0.1454"),
        (2, 0, "0.4615"),
    ],
)
def test_probability_to_four_places(temperature, candidate, four_places):
    probability = softmax_probabilities(temperature)[candidate]
    # Two roundings: Python's own, independent of the core, and the core's
    # display function that the prose placeholder `probability-value` uses.
    assert f"{probability:.4f}" == four_places
    assert format_number(probability, 4) == four_places


def test_percentages_and_their_shown_total_at_t1():
    table = present_probabilities(softmax_probabilities(1))
    assert [row["probability"] for row in table["rows"]] == [f"58.96{NBSP}%", f"26.49{NBSP}%", f"14.54{NBSP}%"]
    assert table["shown_total"] == f"99.99{NBSP}%"
    assert table["total_is_exact"] is False


def test_probability_table_rows_at_t1():
    rows = present_probabilities(softmax_probabilities(1))["rows"]
    assert rows == [
        {"index": 0, "completion": "5", "logit": "2.0", "reward": "1", "probability": f"58.96{NBSP}%"},
        {"index": 1, "completion": "The answer is 5.", "logit": "1.2", "reward": "0.75", "probability": f"26.49{NBSP}%"},
        {"index": 2, "completion": "6", "logit": "0.6", "reward": "0", "probability": f"14.54{NBSP}%"},
    ]


def test_raising_t_from_1_to_2_makes_5_less_probable():
    assert softmax_probabilities(2)[0] < softmax_probabilities(1)[0]


def test_recorded_default_run():
    record = run_lab()
    assert record["settings"] == {"temperature": 1.0, "group_size": 6, "seed": 20260903}
    assert [d["index"] for d in record["draws"]] == [0, 0, 1, 1, 0, 2]
    assert [d["reward"] for d in record["draws"]] == [1, 1, 0.75, 0.75, 1, 0]
    assert record["mean"] == 0.75
    assert [d["signal"] for d in record["draws"]] == [0.25, 0.25, 0, 0, 0.25, -0.75]
    assert [d["draw"] for d in record["draws"]] == [1, 2, 3, 4, 5, 6]


def test_recorded_default_run_as_the_prose_shows_it():
    draws = run_lab()["draws"]
    assert ", ".join(str(d["index"]) for d in draws) == "0, 0, 1, 1, 0, 2"
    assert ", ".join(format_number(d["reward"]) for d in draws) == "1, 1, 0.75, 0.75, 1, 0"
    assert ", ".join(format_signal(d["signal"]) for d in draws) == f"+0.25, +0.25, 0, 0, +0.25, {MINUS}0.75"
    assert format_number(run_lab()["mean"]) == "0.75"


@pytest.mark.parametrize(
    ("rewards", "mean", "signals", "shown_mean", "shown_signals"),
    [
        pytest.param(
            [1, 0.75, 0, 1],
            0.6875,
            (0.3125, 0.0625, -0.6875, 0.3125),
            "0.6875",
            ["+0.3125", "+0.0625", f"{MINUS}0.6875", "+0.3125"],
            id="chapter-3",
        ),
        pytest.param(
            # Exactly the floats 0.35, -0.05, ...: not 0.35000000000000003.
            [1, 0.6, 0, 1],
            0.65,
            (0.35, -0.05, -0.65, 0.35),
            "0.65",
            ["+0.35", f"{MINUS}0.05", f"{MINUS}0.65", "+0.35"],
            id="chapter-6",
        ),
    ],
)
@pytest.mark.parametrize("as_text", [False, True], ids=["list", "typed"])
def test_hand_authored_groups(rewards, mean, signals, shown_mean, shown_signals, as_text):
    statistics = group_statistics(",".join(map(str, rewards)) if as_text else rewards)
    assert statistics.rewards == tuple(rewards)
    assert statistics.mean == mean and repr(statistics.mean) == repr(mean)
    assert [repr(s) for s in statistics.signals] == [repr(s) for s in signals]
    shown = present_group(statistics)
    assert shown["mean"] == shown_mean
    assert [row["signal"] for row in shown["rows"]] == shown_signals


@pytest.mark.parametrize(
    ("group_size", "comparison", "shown_mean"),
    # 0.65625 is a tie at four places; the core rounds ties away from zero (0.6563).
    [(3, "below", "0.9167"), (6, "equal to", "0.75"), (8, "above", "0.6563")],
)
def test_follow_draw_3(group_size, comparison, shown_mean):
    record = run_lab(1, group_size)
    draw_3 = record["draws"][2]
    assert (draw_3["completion"], draw_3["reward"]) == ("The answer is 5.", 0.75)
    # "0.75 lies below the group's mean" etc.: the draw's reward compared with the mean.
    relation = {-1: "below", 0: "equal to", 1: "above"}[(draw_3["reward"] > record["mean"]) - (draw_3["reward"] < record["mean"])]
    assert relation == comparison
    assert format_number(record["mean"]) == shown_mean


def test_draw_3_is_the_same_for_every_group_size_at_t1():
    draws_3 = [run_lab(1, k)["draws"][2] for k in range(3, 65)]
    assert {(d["u"], d["completion"], d["reward"]) for d in draws_3} == {(run_lab()["draws"][2]["u"], "The answer is 5.", 0.75)}


def test_expected_reward_at_t1_is_the_probability_weighted_reward():
    # Issue 13: the policy's expected reward at T = 1 is 0.7884; a group mean estimates it.
    probabilities = softmax_probabilities(1.0)
    exact = sum(p * c.reward for p, c in zip(probabilities, CANDIDATES))
    assert expected_reward(1.0) == pytest.approx(exact, abs=1e-15)
    assert format_number(expected_reward(1.0)) == "0.7884"


def test_expected_reward_falls_as_temperature_rises():
    assert expected_reward(0.5) > expected_reward(1.0) > expected_reward(2.0)
