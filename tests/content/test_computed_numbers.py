"""The toy's numbers in the built prose are the core's numbers.

Every expected text is computed here with rollout_lab's own functions, and
where the curriculum states the value, the core's text is also compared with
the curriculum's, so a wrong number in either place fails. The prose is read
with the lab widgets taken out, so these are the numbers in the sentences.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rollout_lab import (
    CANDIDATES,
    PROMPT,
    format_number,
    format_percent,
    format_signal,
    group_statistics,
    present_probabilities,
    run_lab,
    softmax_probabilities,
)


def join_signals(signals) -> str:
    """Write signals the way the prose lists them."""
    return ", ".join(format_signal(s) for s in signals)


def contains_sentence(text: str, sentence: str) -> bool:
    """Say whether the prose holds the sentence; KaTeX writes "K = 3" without spaces, so " = " may be "="."""
    pattern = re.escape(sentence).replace(re.escape(" = "), r"\s*=\s*")
    return re.search(pattern, text) is not None


def test_default_run_in_chapter_4(prose: dict[str, str]):
    record = run_lab()
    indices = ", ".join(str(d["index"]) for d in record["draws"])
    rewards = ", ".join(format_number(d["reward"]) for d in record["draws"])
    signals = join_signals(d["signal"] for d in record["draws"])
    assert (indices, rewards, format_number(record["mean"]), signals) == (
        "0, 0, 1, 1, 0, 2",
        "1, 1, 0.75, 0.75, 1, 0",
        "0.75",
        "+0.25, +0.25, 0, 0, +0.25, \u22120.75",
    )
    text = prose["04-follow-draw-3.html"]
    assert f"the lab draws candidate indices {indices}." in text
    assert f"rollouts are {rewards}, their mean is 0.75, and the centred signals are {signals}." in text


@pytest.mark.parametrize(
    "group_size, mean, comparison",
    [(3, "0.9167", "below"), (6, "0.75", "equal to"), (8, "0.6563", "above")],
)
def test_draw_3_against_each_group_mean(prose: dict[str, str], group_size: int, mean: str, comparison: str):
    record = run_lab(1, group_size)
    draw_3 = record["draws"][2]
    assert (draw_3["completion"], draw_3["reward"]) == ("The answer is 5.", 0.75)
    assert format_number(record["mean"]) == mean
    computed = "below" if draw_3["reward"] < record["mean"] else "above" if draw_3["reward"] > record["mean"] else "equal to"
    assert computed == comparison
    assert contains_sentence(
        prose["04-follow-draw-3.html"],
        f"With K = {group_size} the group mean is {mean}, so draw 3’s reward is {comparison} the mean "
        f"and its signal is {format_signal(draw_3['signal'])}.",
    )


def test_hand_made_group_in_chapter_3(prose: dict[str, str]):
    statistics = group_statistics("1,0.75,0,1")
    assert format_number(statistics.mean) == "0.6875"
    assert join_signals(statistics.signals) == "+0.3125, +0.0625, \u22120.6875, +0.3125"
    assert (
        f"Their mean is {format_number(statistics.mean)}, and the centred signals are {join_signals(statistics.signals)}."
    ) in prose["03-scoring.html"]


def test_exercise_group_in_chapter_6(prose: dict[str, str]):
    statistics = group_statistics("1,0.6,0,1")
    assert format_number(statistics.mean) == "0.65"
    assert join_signals(statistics.signals) == "+0.35, \u22120.05, \u22120.65, +0.35"
    text = prose["06-learning.html"]
    assert f"The mean is {format_number(statistics.mean)}." in text
    assert f"gives the centred signals {join_signals(statistics.signals)}." in text
    assert f"so its signal is {format_signal(statistics.signals[1])}:" in text


def test_probabilities_at_temperature_1_in_chapter_2(prose: dict[str, str]):
    percentages = [format_percent(p) for p in softmax_probabilities(1.0)]
    assert percentages == ["58.96\u00a0%", "26.49\u00a0%", "14.54\u00a0%"]
    text = prose["02-possibilities.html"]
    for candidate, percentage in zip(CANDIDATES, percentages):
        assert f"{candidate.completion}: {percentage}" in text
    shown_total = present_probabilities(softmax_probabilities(1.0))["shown_total"]
    assert shown_total == "99.99\u00a0%"
    assert f"you get {shown_total}, not 100 %." in text


@pytest.mark.parametrize("temperature, value", [(0.5, "0.7919"), (1.0, "0.5896"), (2.0, "0.4615")])
def test_probability_of_5_at_each_temperature_in_chapter_2(prose: dict[str, str], temperature: float, value: str):
    assert format_number(softmax_probabilities(temperature)[0]) == value
    sentence = f"at T = {format_number(temperature)} {'its probability is' if temperature == 0.5 else 'it is'} {value}"
    assert contains_sentence(prose["02-possibilities.html"], sentence)


def test_prompt_is_shown_verbatim_in_chapter_1(prose: dict[str, str]):
    assert PROMPT == "A box has 3 red labels and 2 blue labels. How many labels? Reply with one digit."
    assert PROMPT in prose["01-rollout.html"]


# Numbers only the core may write: if one of these appears in a chapter's
# Markdown outside a {{ ... }} or a lab/figure directive line, it was typed by hand.
CORE_ONLY_NUMBERS = (
    "58.96",
    "26.49",
    "14.54",
    "99.99",
    "0.5896",
    "0.2649",
    "0.1454",
    "0.7919",
    "0.4615",
    "46.15",
    "0.9167",
    "0.6563",
    "0.6667",
    "0.6875",
    "0.3125",
    "0.0625",
    "0.65",
    "0.35",
    "0.05",
    "0.3982",
    "0.4663",
    "0.7087",
    "0.6670",
    "0.5855",
    "0.9719",
    "0.75",
    "0.25",
    "0.7884",
    "78.84",
    "1.3431",
    "0.6035",
    "0.3312",
    # Issue 24: the update, GRPO's normalisation and the KL.
    "0.0938",
    "0.094",
    "0.2612",
    "0.2574",
    "0.3536",
    "0.3873",
    "0.71",
    "2.12",
    "1.94",
    "0.0996",
    "0.0395",
    "0.8",
    "1.2",
    "0.7826",
    "0.0391",
)
COMPUTED = re.compile(r"\{\{.*?\}\}")


@pytest.mark.parametrize(
    "path", sorted(Path(__file__).resolve().parents[2].joinpath("content").glob("0*.md")), ids=lambda p: p.name
)
def test_no_toy_number_is_typed_by_hand(path: Path):
    typed = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith(":::"):
            continue  # directive arguments are settings, e.g. rewards=1,0.75,0,1
        for value in CORE_ONLY_NUMBERS:
            if re.search(rf"(?<![\d.]){re.escape(value)}(?!\d)", COMPUTED.sub("", line)):
                typed.append(f"{path.name}:{number}: {value}")
    assert typed == []


def test_the_training_lab_numbers_in_chapter_6(prose: dict[str, str]):
    from rollout_lab.learning.training import run_training

    record = run_training()
    rounds = record["rounds"]
    third = rounds[2]
    sixth_ratio = third["epochs"][3]["ratios"][third["indices"].index(2)]
    clipped = sum(flag for r in rounds for epoch in r["epochs"] for flag in epoch["clipped"])
    text = prose["06-learning.html"]
    assert (
        f"In the recorded run the expected reward rises from {format_number(record['start']['expected_reward'])} before training "
        f"to {format_number(rounds[-1]['expected_reward'])} after round 5, and the KL divergence from the starting policy grows "
        f"to {format_number(rounds[-1]['kl'])}."
    ) in text
    assert f"has a ratio of {format_number(sixth_ratio)}, below" in text
    assert f"({sum(third['epochs'][3]['clipped'])} of the 8)" in text
    assert f"Over the whole run, {clipped} (sample, epoch) pairs are clipped." in text
    one_epoch = run_training(epochs=1)["rounds"]
    assert f"None: {sum(f for r in one_epoch for e in r['epochs'] for f in e['clipped'])} clipped samples in five rounds." in text
    assert f"Exactly where it started, {format_number(run_training(learning_rate=0)['rounds'][-1]['expected_reward'])}:" in text
    assert f"Lower: {format_number(run_training(kl_weight=0.5)['rounds'][-1]['expected_reward'])}." in text


def test_the_words_around_the_training_numbers_fit_them():
    # The prose says "further from the reference", "Lower", "falls" and "None": the core must agree.
    from rollout_lab.learning.training import run_training

    default = run_training()["rounds"][-1]
    assert run_training(clip=1)["rounds"][-1]["kl"] > default["kl"]
    assert run_training(kl_weight=0.5)["rounds"][-1]["expected_reward"] < default["expected_reward"]
    assert run_training(kl_weight=1)["rounds"][-1]["kl"] < run_training(kl_weight=0.5)["rounds"][-1]["kl"] < default["kl"]
    assert default["epochs"][-1]["probabilities"][1] < run_training()["start"]["probabilities"][1]
    assert run_training(epochs=1)["rounds"][-1]["expected_reward"] < default["expected_reward"]
    assert not any(flag for r in run_training(clip=1)["rounds"] for e in r["epochs"] for flag in e["clipped"])


def test_the_estimator_table_in_chapter_7_is_the_core_s_exact_enumeration(prose: dict[str, str]):
    from rollout_lab import compare_signal_rules, compute_policy_gradient

    comparison = compare_signal_rules(1, 6)
    text = prose["07-signal.html"]
    g = [format_signal(value, 4) for value in compute_policy_gradient(1)]
    assert f"with respect to the three logits is {g[0]}, {g[1]} and {g[2]}" in text
    # The group mean shrinks the average update to (K - 1)/K of the gradient; leave-one-out does not.
    assert format_number(comparison["rules"]["mean"]["ratios_to_gradient"][0], 4) == format_number(5 / 6, 4)
    assert f"{format_number(5 / 6, 4)} on every logit" in text
    assert comparison["rules"]["leave_one_out"]["ratios_to_gradient"] == pytest.approx([1, 1, 1], abs=1e-12)
    for rule in ("raw", "mean", "leave_one_out", "std"):
        assert format_number(comparison["rules"][rule]["variance"], 4) in text
        assert format_number(comparison["rules"][rule]["relative_variance"], 4) in text
    assert f"cosine with the gradient is {format_number(comparison['rules']['std']['cosine_to_gradient'], 4)}, not 1" in text


def test_the_kl_estimates_in_chapter_5_average_to_the_exact_kl_under_the_new_policy(prose: dict[str, str]):
    from rollout_lab.update import average_kl_estimate, kl_divergence, kl_sample_estimate

    new, old = softmax_probabilities(0.5), softmax_probabilities(1.0)
    exact = format_number(kl_divergence(new, old))
    text = prose["05-provenance.html"]
    row = [format_number(kl_sample_estimate("k3", old[0] / new[0]))]
    row += [format_number(average_kl_estimate("k3", sampling, new, old)) for sampling in (new, old)]
    assert row[1] == exact
    assert " ".join(row) in text
    assert f"k1 and k3 both average to the exact {exact}" in text
