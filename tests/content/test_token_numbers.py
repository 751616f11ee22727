"""The token world's numbers in chapters 1, 5 and 6 are the core's (issue 37): each expected text is computed here.

The prose is read with the lab widgets taken out (conftest.py), so these are
the numbers in the sentences and tables; the words around them (gains, loses,
twice, exactly 1) are checked against the core's records too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rollout_lab import format_number, format_signal, format_u, token_update
from rollout_lab.figures.token_charts import format_probability, show_token

CONTENT = Path(__file__).resolve().parents[2] / "content"


def logprob(value: float) -> str:
    return format_signal(value).lstrip("+")


def test_chapter_1_shows_the_second_rollouts_trajectory(prose: dict[str, str]):
    record = token_update()
    second = record["rollouts"][1]
    assert second["tokens"] == ["The", " answer is", " 5", "<end>"]
    text = prose["01-rollout.html"]
    assert f"Its second rollout reads {second['text']}, and this is its trajectory" in text
    for step, (token, u, p, lp) in enumerate(
        zip(second["tokens"], second["us"], second["probabilities"], second["logprobs"]), start=1
    ):
        options = "1" if token == " answer is" else "2" if step > 1 else "3"
        row = f"{step} {show_token(token)} {format_u(u)} {options} {format_probability(p)} {logprob(lp)}"
        assert row in text, row
    # The forced token: probability 1, log-probability 0, a u used up all the same.
    assert (second["probabilities"][1], second["logprobs"][1]) == (1.0, 0.0)
    assert f"log-probability 0, yet it still used up a u, {format_u(second['us'][1])}," in text
    assert f"the sum of its tokens\u2019, {logprob(sum(second['logprobs']))};" in text
    assert (
        f"product of its tokens\u2019 probabilities, {format_probability(record['before'][second['text']])} (both computed before rounding"
        in text
    )
    # At the last state "." was the likelier option, and the stop token was drawn anyway.
    assert second["probabilities"][3] < 0.5


def test_chapter_5_ratios_multiply_to_the_sequence_ratio(prose: dict[str, str]):
    record, steep = token_update(), token_update(learning_rate=5)
    second, ratios = record["rollouts"][1], record["ratios"][1]
    text = prose["05-provenance.html"]
    for step, (token, ratio) in enumerate(zip(second["tokens"], ratios), start=1):
        assert f"{step} {show_token(token)} {format_probability(ratio)}" in text
    assert ratios[1] == steep["ratios"][1][1] == 1.0
    sequence = format_probability(record["sequence_ratios"][1])
    assert sequence == format_probability(record["after"][second["text"]] / record["before"][second["text"]])
    assert f"tokens\u2019 ratios: {sequence} for this rollout" in text
    assert f"The ratio of answer is is {format_probability(steep['ratios'][1][1])}:" in text
    assert f"sequence ratio is {format_probability(steep['sequence_ratios'][1])}," in text
    assert abs(steep["ratios"][1][0] - 1) > abs(ratios[0] - 1)


def test_chapter_7_compares_the_two_length_rules(prose: dict[str, str]):
    mean_rule, sum_rule = token_update(), token_update(length_rule="token_sum")
    text = prose["07-signal.html"]
    short, long = mean_rule["rollouts"][0], mean_rule["rollouts"][1]
    assert (len(short["tokens"]), len(long["tokens"])) == (2, 4)
    assert (mean_rule["weights"][0], mean_rule["weights"][1], sum_rule["weights"][0], sum_rule["weights"][1]) == (
        0.5,
        0.25,
        0.25,
        0.25,
    )

    def change(record, text_):
        return record["after"][text_] - record["before"][text_]

    # "Under both rules 5 gains and the longer answers lose"; sequence_mean pushes 5 harder.
    for record in (mean_rule, sum_rule):
        assert change(record, "5") > 0
        assert all(change(record, t) < 0 for t in record["before"] if t.startswith("The answer"))
    assert change(mean_rule, "5") > change(sum_rule, "5")
    for row in ("5", "5.", "The answer is 5.", "The answer is 5", "6"):
        cells = " ".join(
            format_probability(value) for value in (mean_rule["before"][row], mean_rule["after"][row], sum_rule["after"][row])
        )
        assert f"{row} {cells}" in text, row
    assert (
        f"so 5 gains {format_signal(change(mean_rule, '5'))} and The answer is 5. loses "
        f"{format_signal(change(mean_rule, 'The answer is 5.'))}." in text
    )
    assert f"weighs {format_number(0.25)}, and the changes are {format_signal(change(sum_rule, '5'))} and" in text
    still = token_update(learning_rate=0)
    assert all(ratio == 1.0 for ratio in still["sequence_ratios"]) and still["after"] == still["before"]
    assert f"sequence ratio is {format_probability(1.0)})" in text


# Numbers of the token world only the core may write in a chapter's Markdown.
TOKEN_ONLY_NUMBERS = ("1.0191", "0.9632", "0.9752", "0.4393", "0.4366", "0.2689", "0.7311", "0.8176", "1.3282", "0.5282")
COMPUTED = re.compile(r"\{\{.*?\}\}")


@pytest.mark.parametrize("path", sorted(CONTENT.glob("0*.md")), ids=lambda p: p.name)
def test_no_token_number_is_typed_by_hand(path: Path):
    typed = [
        f"{path.name}:{number}: {value}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if not line.startswith(":::")
        for value in TOKEN_ONLY_NUMBERS
        if re.search(rf"(?<![\d.]){re.escape(value)}(?!\d)", COMPUTED.sub("", line))
    ]
    assert typed == []
