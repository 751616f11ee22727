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
