"""What an update would do with a group (rollout_lab.update): the numbers chapters 4 to 6 print."""

import math
from html import escape

import pytest

from rollout_lab import format_number, format_signal, run_lab, softmax_probabilities
from rollout_lab.display import format_fixed
from rollout_lab.figures.clipped_objective import describe_clipped_objective, render_clipped_objective
from rollout_lab.update import (
    KL_ESTIMATORS,
    average_kl_estimate,
    clipped_objective,
    kl_divergence,
    kl_estimate,
    kl_sample_estimate,
    logit_step,
    normalised_signals,
    probabilities_after_step,
    probability_slopes,
)

SENTENCE = 1  # the index of "The answer is 5."


@pytest.mark.parametrize("step", [0.001, 0.01, 0.1, 0.5, 1.0])
def test_a_small_positive_signal_can_still_lose_probability(step: float):
    # Issue 24, item 1: in the T = 1, K = 8 group the sentence has signal +0.094, yet one step lowers it.
    record = run_lab(1, 8)
    signals = {d["signal"] for d in record["draws"] if d["index"] == SENTENCE}
    assert signals == {0.09375}
    assert logit_step(record)[SENTENCE] > 0  # its own logit rises ...
    assert probability_slopes(record)[SENTENCE] < 0  # ... but "5" rises more, and probability is shared
    assert probabilities_after_step(record, step)[SENTENCE] < record["candidates"][SENTENCE]["probability"]


def test_a_zero_signal_answer_still_moves_and_the_logit_moves_sum_the_group():
    record = run_lab()
    assert record["draws"][2]["signal"] == 0.0
    moves = logit_step(record)
    assert moves[SENTENCE] == 0.0
    # With signals summing to zero, each logit moves by its own draws' signals over K.
    for index, move in enumerate(moves):
        own = sum(d["signal"] for d in record["draws"] if d["index"] == index)
        assert move == pytest.approx(own / len(record["draws"]), abs=1e-15)
    after = probabilities_after_step(record, 0.5)
    assert after[SENTENCE] < record["candidates"][SENTENCE]["probability"]
    assert sum(after) == pytest.approx(1.0, abs=1e-15)


def test_the_step_matches_a_finite_difference_of_the_slopes():
    record = run_lab(1, 8)
    h = 1e-6
    before = [c["probability"] for c in record["candidates"]]
    after = probabilities_after_step(record, h)
    for slope, p, q in zip(probability_slopes(record), before, after):
        assert (q - p) / h == pytest.approx(slope, rel=1e-4)


def test_grpo_normalisation_of_the_recorded_group_with_either_sigma():
    rewards = [d["reward"] for d in run_lab()["draws"]]
    population, sample = normalised_signals(rewards), normalised_signals(rewards, sample=True)
    assert format_number(population.std) == "0.3536" and format_number(sample.std) == "0.3873"
    assert [format_signal(s, 2) for s in population.signals] == ["+0.71", "+0.71", "0", "0", "+0.71", "\u22122.12"]
    assert [format_signal(s, 2) for s in sample.signals] == ["+0.65", "+0.65", "0", "0", "+0.65", "\u22121.94"]


def test_equal_rewards_give_zero_std_and_zero_signals():
    group = normalised_signals("1,1,1,1")
    assert (group.std, group.signals) == (0.0, (0.0, 0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="at least 2 rewards"):
        normalised_signals([1.0], sample=True)


def test_kl_of_the_doubled_logits_is_exact_and_asymmetric():
    new, old = softmax_probabilities(0.5), softmax_probabilities(1.0)
    assert format_number(kl_divergence(new, old)) == "0.0996"
    assert kl_divergence(new, old) != pytest.approx(kl_divergence(old, new), abs=1e-3)
    assert kl_divergence(old, old) == 0.0
    # DeepSeekMath eq. 4 is an unbiased per-sample estimate: its average under the sampling policy is the KL.
    average = sum(p * kl_estimate(q / p) for p, q in zip(new, old))
    assert average == pytest.approx(kl_divergence(new, old), abs=1e-12)
    assert all(kl_estimate(q / p) >= 0 for p, q in zip(new, old))


@pytest.mark.parametrize(
    "ratio, advantage, expected",
    [
        (1.0, 1.0, 1.0),
        (1.5, 1.0, 1.2),  # past 1 + eps in the favoured direction: flat
        (0.5, 1.0, 0.5),  # against the signal: the unclipped, smaller product
        (0.5, -1.0, -0.8),  # past 1 - eps in the favoured direction: flat
        (1.5, -1.0, -1.5),  # against the signal: keeps its slope
    ],
)
def test_clipped_objective_takes_the_smaller_product(ratio: float, advantage: float, expected: float):
    assert clipped_objective(ratio, advantage, 0.2) == pytest.approx(expected, abs=1e-15)


def test_the_clipped_objective_figure_is_drawn_from_the_core():
    svg = render_clipped_objective(title="T")
    assert svg.count("<polyline") == 2 and svg.count('class="clip-edge"') == 4
    assert "<title>T</title>" in svg and escape(describe_clipped_objective()) in svg
    assert "flat at 1.2" in describe_clipped_objective() and "flat at \u22120.8" in describe_clipped_objective()


def test_the_update_step_figure_draws_the_logit_moves_against_their_average():
    from rollout_lab.figures.update_step import describe_update_step, render_update_step

    record = run_lab()
    svg = render_update_step(record, title="T")
    assert svg.count('class="update-bar"') == 3 and svg.count('class="update-average"') == 1
    description = describe_update_step(record)
    assert escape(description) in svg
    # The zero-signal sentence does not move, yet loses: its bar ends left of the average line.
    assert "\u201cThe answer is 5.\u201d: logit move 0, probability 0.2649 to 0.2574" in description
    assert "average move, +0.0555" in description


def test_the_three_kl_estimates_of_one_sample_are_the_textbook_formulas():
    r = softmax_probabilities(1.0)[0] / softmax_probabilities(0.5)[0]
    expected = {"k1": -math.log(r), "k2": math.log(r) ** 2 / 2, "k3": r - math.log(r) - 1}
    for name in KL_ESTIMATORS:
        assert kl_sample_estimate(name, r) == pytest.approx(expected[name], abs=1e-15)
    assert kl_sample_estimate("k3", r) == kl_estimate(r)
    with pytest.raises(ValueError, match="estimator must be one of k1, k2, k3, got 'k4'"):
        kl_sample_estimate("k4", r)


def test_k1_and_k3_average_to_the_exact_kl_only_over_draws_from_the_policy_they_divide_by():
    current, reference = softmax_probabilities(0.5), softmax_probabilities(1.0)
    exact = kl_divergence(current, reference)
    assert average_kl_estimate("k1", current, current, reference) == pytest.approx(exact, abs=1e-15)
    assert average_kl_estimate("k3", current, current, reference) == pytest.approx(exact, abs=1e-15)
    assert abs(average_kl_estimate("k2", current, current, reference) - exact) > 0.01
    # Over the reference's draws k1 averages to minus the reverse divergence, below zero.
    assert average_kl_estimate("k1", reference, current, reference) == pytest.approx(
        -kl_divergence(reference, current), abs=1e-15
    )
    for name in ("k2", "k3"):
        assert abs(average_kl_estimate(name, reference, current, reference) - exact) > 0.01


def test_the_estimator_figure_draws_each_rule_s_variance_for_its_size_and_its_average():
    from rollout_lab.figures.estimator_variance import describe_estimator_variance, render_estimator_variance
    from rollout_lab.learning.estimator import compare_signal_rules

    comparison = compare_signal_rules(1, 6)
    svg = render_estimator_variance(comparison, title="T")
    assert svg.count('class="update-bar"') == 4 and "<title>T</title>" in svg
    description = describe_estimator_variance(comparison)
    assert escape(description) in svg
    for rule, words in (
        ("raw", "raw reward: variance 0.0433, relative to the average's size 1.5027, average = 1 \u00d7 gradient"),
        ("mean", "group mean: variance 0.0117, relative to the average's size 0.5846, average = 0.8333 \u00d7 gradient"),
        ("leave_one_out", "leave-one-out: variance 0.0168, relative to the average's size 0.5846, average = 1 \u00d7 gradient"),
        ("std", "mean and \u03c3: variance 0.1071, relative to the average's size 0.495, average not a multiple (cosine 0.9606)"),
    ):
        assert format_number(comparison["rules"][rule]["variance"]) in words
        assert format_number(comparison["rules"][rule]["relative_variance"]) in words
        assert words in description
        # The bars are drawn to the variance for its size (issue 58): its number is printed at the bar's end, to fixed
        # places like its neighbours' (0.4950 under 1.5027, not 0.495).
        assert f">{format_fixed(comparison['rules'][rule]['relative_variance'])}</text>" in svg
    assert "all 729 ordered groups" in description


def test_the_frontier_figure_draws_the_training_lab_s_end_for_each_kl_weight():
    from rollout_lab.figures.reward_kl_frontier import (
        KL_WEIGHTS,
        describe_reward_kl_frontier,
        render_reward_kl_frontier,
        trace_frontier,
    )
    from rollout_lab.learning.training import run_training

    points = trace_frontier()
    assert [p["kl_weight"] for p in points] == list(KL_WEIGHTS)
    svg = render_reward_kl_frontier(points, title="T")
    assert svg.count('class="frontier-point"') == len(KL_WEIGHTS) and "<title>T</title>" in svg
    description = describe_reward_kl_frontier(points)
    assert escape(description) in svg
    half = run_training(kl_weight=0.5)["rounds"][-1]
    assert (
        f"\u03b2 = 0.5: KL {format_number(half['kl'])}, expected reward {format_number(half['expected_reward'])}" in description
    )
    # A heavier penalty never ends further from the reference, nor with more reward.
    assert [p["kl"] for p in points] == sorted((p["kl"] for p in points), reverse=True)
    assert [p["expected_reward"] for p in points] == sorted((p["expected_reward"] for p in points), reverse=True)
