"""Issue 38's corrections stay corrected: the old, wrong sentences are gone from what a reader gets.

Each case names a page and a sentence the third review found wrong (errors 1,
3, 4, 7 and 9), as the reader read it. The built prose is searched, with runs of
white space made one space and typographic quotes made plain, so a sentence
re-wrapped or re-typeset is still found. Error 7's symbol is math, which KaTeX
spreads over many elements, so it is looked for in the Markdown. Each case also
asserts what replaced the sentence, so the test cannot pass by a page missing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rollout_lab import format_signal, run_lab
from rollout_lab.update import logit_step

CONTENT = Path(__file__).resolve().parents[2] / "content"
QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def plain(text: str) -> str:
    """Runs of white space made one space, curly quotes made straight."""
    return re.sub(r"\s+", " ", text.translate(QUOTES))


def markdown(name: str) -> str:
    return plain((CONTENT / name).read_text(encoding="utf-8"))


# (page, the old sentence, what the corrected page says instead)
OLD_SENTENCES = [
    pytest.param(
        "glossary.html",
        "it makes positive-signal completions more likely and negative ones less likely",
        "any one completion's net change depends on the whole group",
        id="1-optimization-step",
    ),
    pytest.param(
        "03-scoring.html",
        "nothing in the tutorial's lab goes further",
        "chapter 6's training lab goes further",
        id="3-nothing-goes-further",
    ),
    pytest.param(
        "06-learning.html",
        "clipping bites from the second epoch on",
        "with one step per batch, as in DeepSeekMath's GRPO and TRL's default, it never does",
        id="4-key-point",
    ),
    pytest.param(
        "06-learning.html",
        "Clipping needs a second epoch.",
        "With one step per batch the ratio is identically 1 and clipping never acts",
        id="4-predict-first-answer",
    ),
    # Issue 58, the fourth review (errors M1, M3, L2, L6, L7, L8, copying, the newcomer's defects).
    pytest.param(
        "06-learning.html",
        "They have no token-by-token likelihoods, because they sample whole completions.",
        "only chapter 1's token lab records a log-probability for each token",
        id="58-M1-which-labs-sample-whole-completions",
    ),
    pytest.param(
        "glossary.html",
        "PPO- and GRPO-style objectives are built on it.",
        "an approximation trusted only while the two policies stay close",
        id="58-M3-ratio-exact-only-per-sequence",
    ),
    pytest.param(
        "glossary.html",
        "Scoring only the finished output, once: every token of a completion then gets the same signal",
        "a method with a critic turns the one final score into different advantages for different tokens",
        id="58-L2-outcome-supervision",
    ),
    pytest.param(
        "06-learning.html",
        "ln pi_old per token (TRL: old_per_token_logps)",
        "sampling_per_token_logps",
        id="58-L6-trl-recomputes-old-logprobs",
    ),
    pytest.param(
        "05-provenance.html",
        "(k3). The core computes each for a sampled 5",
        "The names k1, k2 and k3 are Schulman's",
        id="58-L7-k1-k2-k3-cited",
    ),
    pytest.param(
        "glossary.html",
        "on the data at hand, improves the objective",
        "aims to improve the objective; for a small enough step it does",
        id="58-L8-a-step-aims-to-improve",
    ),
    pytest.param(
        "03-scoring.html",
        "is an arithmetic example, not a seeded sample or a claim about",
        "This group was written down by hand to show the subtraction",
        id="58-copied-run-reworded",
    ),
    pytest.param(
        "02-possibilities.html",
        "The lab below is the tutorial's first.",
        "The lab below is the first that draws whole answers rather than tokens.",
        id="58-chapter-2-lab-is-not-the-first",
    ),
    pytest.param(
        "06-learning.html",
        "adds a toy of each of those four",
        "adds a toy of three of those four",
        id="58-three-of-four-toys",
    ),
    pytest.param(
        "04-follow-draw-3.html",
        "does divide by it,",
        "does divide by the group's spread",
        id="58-divide-by-what",
    ),
    pytest.param(
        "05-provenance.html",
        "The reweighting becomes unreliable when the ratio is far from 1: a few rollouts then dominate the estimate",
        "so the effective sample size",
        id="58-importance-sampling-as-an-estimator",
    ),
    pytest.param(
        "01-rollout.html",
        "the product of its tokens' probabilities, 0.0583. The first rollout",
        "0.0583 (both computed before rounding, so the table's four-place numbers can give another last digit)",
        id="58-rounding-the-product-of-rounded-probabilities",
    ),
    pytest.param(
        "05-provenance.html",
        "so the ratio is 0.7826. The ratio is below",
        "so the ratio is 0.7826 (the ratio of the unrounded probabilities; dividing the four-place ones gives another last digit)",
        id="58-rounding-the-ratio-of-rounded-probabilities",
    ),
    pytest.param(
        "05-provenance.html",
        "divided by its probability before, 0.9632. That product",
        "(both from unrounded numbers: the rounded probabilities in chapter 1's lab divide to a slightly different last digit)",
        id="58-rounding-the-sequence-ratio",
    ),
    pytest.param(
        "07-signal.html",
        "+0.3745, −0.132, −0.2424 3.0005, 12.989, 2.115 0.1071 0.495",
        "+0.3745, −0.1320, −0.2424 3.0005, 12.9890, 2.1150 0.1071 0.4950",
        id="58-a-table-column-keeps-its-decimal-places",
    ),
    pytest.param(
        "01-rollout.html",
        "spells the same three answers out one token at a time",
        "It is a larger policy than chapter 2's, not the same one written differently",
        id="58-M2-the-token-world-is-an-extended-policy",
    ),
    pytest.param(
        "01-rollout.html",
        "Either . or <end> ends the rollout, so eight texts are possible",
        "In this toy . also ends generation, as a stop string does in a serving setup",
        id="58-L1-the-full-stop-ends-generation-too",
    ),
]


@pytest.mark.parametrize("page, old, new", OLD_SENTENCES)
def test_the_old_sentence_is_gone(prose: dict[str, str], page: str, old: str, new: str):
    text = plain(prose[page])
    assert old not in text, f"{page} still says: {old!r}"
    assert new in text, f"{page} lacks its correction: {new!r}"


def test_rounds_are_not_written_r(prose: dict[str, str]):
    # Error 7: R is the reward; the training lab's rounds are counted in words.
    text = markdown("06-learning.md")
    assert re.search(r"\$R = \d+\$ rounds", text) is None
    assert "(5 rounds of $K = 8$" in text


def test_the_logit_moves_are_those_of_the_step_the_sentence_takes(prose: dict[str, str]):
    # Error 9: the sentence takes a step of 0.5, so it must give the moves of that step, not of a unit step.
    unit = logit_step(run_lab())
    per_unit = f"but 5's rose by {format_signal(unit[0])} and 6's changed by {format_signal(unit[2])}"
    halved = f"but 5's rose by {format_signal(unit[0] * 0.5)} and 6's changed by {format_signal(unit[2] * 0.5)}"
    text = plain(prose["06-learning.html"])
    assert per_unit not in text
    assert halved in text
