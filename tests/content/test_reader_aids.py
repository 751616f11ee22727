"""What the expert review (issue 13) asked of the tutorial, where a test can see it.

Section citations, the notation page, key points, quick checks and further
reading in every chapter, terms defined before they are used unlinked, no
exercise answered earlier on its page, and the claims the review corrected.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rollout_lab import expected_reward, format_number, softmax_probabilities
from rollout_lab.computed import list_values
from sitegen.pipeline import CheckedProject
from test_tutorial_structure import CHAPTER_TITLES, find_chapter

CONTENT = Path(__file__).resolve().parents[2] / "content"
CHAPTER_FILES = sorted(CONTENT.glob("0*.md"))


def markdown_body(path: Path) -> str:
    """Return a page's Markdown without its front matter."""
    text = path.read_text(encoding="utf-8")
    return text.split("\n---\n", 1)[1] if text.startswith("---\n") else text


def section_tokens(checked: CheckedProject, number: int, heading: str) -> list:
    """Return the tokens of a chapter's `## heading` section, up to the next level-2 heading."""
    tokens = find_chapter(checked, number).tokens
    starts = [i for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    for start in starts:
        if tokens[start + 1].content == heading:
            end = next((i for i in starts if i > start), len(tokens))
            return tokens[start + 3 : end]
    return []


# --- sources -------------------------------------------------------------


def test_rule_based_rewards_cite_deepseek_r1_v1_section_2_2_2(checked_content: CheckedProject):
    citations = find_chapter(checked_content, 3).citations
    assert any(use.key == "deepseek-r1" for use in citations)
    text = (CONTENT / "03-scoring.md").read_text(encoding="utf-8")
    assert "[§2.2.2, Reward Modeling (v1)](cite:deepseek-r1)" in text
    # DeepSeekMath's GRPO scores with a reward model: its §4.1.2 no longer backs the rule-based sentence.
    assert "[§3.1 and §3.5](cite:instructgpt) [§4.1.2](cite:deepseekmath)" not in text


def test_citation_to_a_section_links_to_that_section(built_site: Path):
    page = (built_site / "01-rollout.html").read_text(encoding="utf-8")
    assert (
        'href="https://spinningup.openai.com/en/latest/spinningup/rl_intro.html#trajectories">Spinning Up trajectories</a>'
        in page
    )


def test_every_chapter_ends_with_further_reading_that_cites_a_source(checked_content: CheckedProject):
    for number in CHAPTER_TITLES:
        tokens = section_tokens(checked_content, number, "Further reading")
        assert any(t.type == "sources" for t in tokens), f"chapter {number} has no further reading with a source"


def test_section_citations_are_used_where_the_source_has_sections(checked_content: CheckedProject):
    sectioned = {r.key for r in checked_content.parsed.references if r.sections}
    assert sectioned == {"spinning-up-part1", "spinning-up-part2", "spinning-up-part3"}
    for page in checked_content.parsed.chapters:
        for use in page.citations:
            assert use.key not in sectioned or use.anchor, f"{use.location}: cite a section of {use.key}"


# --- the notation page ---------------------------------------------------


def test_notation_page_is_built_and_linked_from_every_chapter(built_site: Path):
    assert (built_site / "notation.html").is_file()
    for number, name in enumerate(sorted(p.name for p in built_site.glob("0*.html")), start=1):
        page = (built_site / name).read_text(encoding="utf-8")
        prose = page.split('<div class="prose">', 1)[1]
        assert 'href="notation.html' in prose, f"chapter {number} does not link the notation page"


def test_notation_gives_each_symbol_one_meaning():
    symbols = re.findall(r"^\| (\$[^|]+\$) \|", (CONTENT / "notation.md").read_text(encoding="utf-8"), re.MULTILINE)
    assert len(symbols) > 20
    assert [s for s in symbols if symbols.count(s) > 1] == []


@pytest.mark.parametrize(
    "clash",
    [
        r"A_i",  # was the centred signal, which the text says is not the advantage: now c_k
        r"r_i",  # clashed with the per-step reward r_t: a group's rewards are now R_k
        r"\bar r",
        r"\$n\$",  # was the generator's state, and is the JSON key of chapter 6's exercise: now m
        r"n \\leftarrow",
    ],
)
def test_clashing_symbols_are_renamed(clash: str):
    for path in CHAPTER_FILES:
        assert not re.search(re.escape(clash) if "\\" not in clash else clash, path.read_text(encoding="utf-8")), path.name


# --- key points, exercises, quick checks ----------------------------------


@pytest.mark.parametrize("number", sorted(CHAPTER_TITLES))
def test_chapter_has_key_points_near_its_end(checked_content: CheckedProject, number: int):
    section = section_tokens(checked_content, number, "Key points")
    assert section and section[0].type == "bullet_list_open", f"chapter {number} has no '## Key points' list"
    tokens = find_chapter(checked_content, number).tokens
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    assert headings.index("Key points") >= len(headings) - 4, f"chapter {number}'s key points are not at its end"


@pytest.mark.parametrize("number", sorted(CHAPTER_TITLES))
def test_chapter_has_a_quick_check(built_site: Path, number: int):
    page = next(built_site.glob(f"{number:02d}-*.html")).read_text(encoding="utf-8")
    assert ">Quick check<" in page, f"chapter {number} has no quick check"


@pytest.mark.parametrize("number", sorted(CHAPTER_TITLES))
def test_each_exercise_on_a_page_has_a_name_of_its_own(built_site: Path, number: int):
    # An exercise is a <section> named by its title: two with one name are landmarks a screen reader cannot tell apart.
    page = next(built_site.glob(f"{number:02d}-*.html")).read_text(encoding="utf-8")
    titles = re.findall(r'<h3 class="exercise-title" id="[^"]+">([^<]+)</h3>', page)
    assert titles and len(titles) == len(set(titles)), titles


# Computed values that are answers, not givens: the same expression must not appear in the prose
# before the exercise that asks for it. (Probabilities, rewards and logits are the givens of the toy.)
ANSWER_VALUES = {"mean", "comparison", "signals", "group-mean", "group-signal", "group-signals", "expected-reward"}
EXERCISE = re.compile(r"^::::+ exercise.*?^::::+\s*$", re.MULTILINE | re.DOTALL)
COMPUTED = re.compile(r"\{\{\s*(.*?)\s*\}\}")


def normalise(expression: str) -> tuple[str, tuple[tuple[str, str], ...]] | None:
    """Return (name, settings with defaults filled in) for an answer value, or None for a given."""
    name, *words = expression.split()
    if name == "draw":
        fields = dict(w.partition("=")[::2] for w in words)
        if fields.get("field") not in ("signal",):
            return None
    elif name not in ANSWER_VALUES:
        return None
    defaults = {k: v for k, v in list_values()[name].parameters.items() if v is not None}
    given = dict(w.partition("=")[::2] for w in words)
    return name, tuple(sorted({**defaults, **given}.items()))


@pytest.mark.parametrize("path", CHAPTER_FILES, ids=lambda p: p.name)
def test_no_exercise_is_answered_earlier_on_its_page(path: Path):
    text = markdown_body(path)
    exercises = list(EXERCISE.finditer(text))
    assert exercises, f"{path.name} has no exercise"
    for exercise in exercises:
        before = {normalise(e) for e in COMPUTED.findall(text[: exercise.start()])} - {None}
        answer = text[exercise.start() : exercise.end()].split("::: answer", 1)[1]
        given_away = [e for e in COMPUTED.findall(answer) if normalise(e) in before]
        line = text[: exercise.start()].count("\n") + 1
        assert given_away == [], f"{path.name}: the exercise near body line {line} is answered before it: {given_away}"


# --- terms ---------------------------------------------------------------

# The training words a newcomer meets (issue 13), with the glossary entry that defines each. The first
# time a chapter uses one, in reading order, it must be inside (or after) a link to that entry.
TRAINING_WORDS = {
    r"objectives?": "objective",
    r"loss(es)?": "loss",
    r"weights?|parameters?": "parameters",
    r"gradient steps?": "gradient-step",
    r"optimi[sz]ers?": "optimizer",
    r"minibatch(es)?": "minibatch",
    r"epochs?": "epoch",
    r"clipping|clipped": "clipping",
    r"KL penalty": "kl-penalty",
    r"critics?": "critic",
    r"PPO": "ppo",
    r"GRPO": "grpo",
    r"expected reward": "expected-reward",
    r"stop token": "stop-token",
}
TERM_LINK = re.compile(r"\[([^\]]*)\]\(term:([a-z0-9-]+)\)")


def reading_order_text() -> str:
    """Return every chapter's body in reading order, without computed values, code spans and directive lines."""
    parts = []
    for path in CHAPTER_FILES:
        body = "\n".join(line for line in markdown_body(path).splitlines() if not line.startswith(":::"))
        parts.append(re.sub(r"`[^`]*`", "", COMPUTED.sub("", body)))
    return "\n".join(parts)


@pytest.mark.parametrize("word, key", sorted(TRAINING_WORDS.items()))
def test_training_word_is_linked_to_its_definition_at_first_use(word: str, key: str):
    text = reading_order_text()
    first_use = re.search(rf"(?<![\w-])({word})(?![\w-])", text, re.IGNORECASE)
    assert first_use, f"no chapter uses {word!r}"
    first_link = next((m for m in TERM_LINK.finditer(text) if m.group(2) == key), None)
    assert first_link is not None, f"no chapter links term:{key}"
    assert first_link.start() <= first_use.start(), (
        f"{first_use.group(1)!r} is used before its first link to term:{key}: "
        f"...{text[max(0, first_use.start() - 60) : first_use.end() + 20]!r}..."
    )


def test_ppo_and_grpo_are_spelled_out_at_first_use():
    text = reading_order_text()
    for short, long in (("PPO", "Proximal Policy Optimization"), ("GRPO", "Group Relative Policy Optimization")):
        first = re.search(rf"\b{short}\b", text)
        assert first is not None
        after = re.sub(r"\s+", " ", text[first.start() : first.start() + 80])
        assert long in after, f"{short} is not spelled out at its first use: {after!r}"


def test_every_notation_term_link_resolves(checked_content: CheckedProject):
    notation = checked_content.parsed.notation
    assert notation is not None
    keys = {t.key for t in checked_content.parsed.glossary.terms}
    assert [u.key for u in notation.terms_used if u.key not in keys] == []


# --- numbers and claims the review asked for -------------------------------


def test_expected_reward_at_t1_comes_from_the_core(prose: dict[str, str]):
    value = format_number(expected_reward(1.0))
    probabilities = softmax_probabilities(1.0)
    assert value == "0.7884" == format_number(probabilities[0] * 1 + probabilities[1] * 0.75 + probabilities[2] * 0)
    assert f"For the toy at T = 1 it is {value}." in prose["03-scoring.html"].replace("T=1", "T = 1")
    assert value in prose["04-follow-draw-3.html"]


def test_chapter_5_shows_a_ratio_example_from_the_core(prose: dict[str, str]):
    new, old = softmax_probabilities(0.5), softmax_probabilities(1.0)
    ratios = [format_number(n / o) for n, o in zip(new, old)]
    assert ratios == ["1.3431", "0.6035", "0.3312"]
    for ratio in ratios:
        assert f"a ratio of {ratio}" in prose["05-provenance.html"]


@pytest.mark.parametrize(
    "page_file, overclaim",
    [
        ("05-provenance.html", "are one and the same"),  # behaviour and current policy only *may* coincide
        ("06-learning.html", "not training data"),  # served replies are often logged and used later
        ("03-scoring.html", "how much better one action turned out"),  # the advantage is an expectation
        ("05-provenance.html", "is a fixed earlier policy"),  # DeepSeekMath's iterative GRPO resets the reference
        # Issue 24, part A: what the expert found wrong or too strong.
        ("03-scoring.html", "a positive signal makes that completion more likely"),  # 1: true per term, not net
        ("06-learning.html", "Answers with a positive signal become more likely"),  # 1
        ("glossary.html", "Subtracting one reduces the noise of an update"),  # 8: only a good baseline does
        ("03-scoring.html", "always add up to zero"),  # 14: up to rounding
        ("05-provenance.html", "each rollout's contribution is weighted"),  # 2: one ratio per token
        ("05-provenance.html", "are what the ratio divides by"),  # 3: frameworks recompute pi_old
        ("05-provenance.html", "has ratios far from 1"),  # 5: tends to
        ("02-possibilities.html", "edit the first line"),  # 6: the first line is an import
        ("05-provenance.html", "every ratio is exactly 1"),  # 7
        ("05-provenance.html", "first minibatch of the first update"),  # 7: of the first epoch
        ("glossary.html", "a measure of that distance"),  # 9: KL is not a distance
        ("05-provenance.html", "the setting that did best among those"),  # 10: §3 says "say, 0.2"; §6.1 compares
        ("glossary.html", "most steeply"),  # 11: PPO uses Adam
        ("06-learning.html", "uses the same generation as step 1"),  # 12: mechanics, not the same setup
        ("01-rollout.html", "up to and including the stop token"),  # 13: a length limit ends it too
        # Part C: chapter 3's quick check asked about updates before any update is explained.
        ("03-scoring.html", "What could an update learn from this group?"),
    ],
)
def test_overclaims_the_review_found_are_gone(prose: dict[str, str], page_file: str, overclaim: str):
    # The page as a reader gets it (links as their text, line breaks and runs of spaces as one space),
    # so rewrapping the Markdown or linking a word cannot hide an overclaim from this test.
    assert overclaim not in prose[page_file]


def test_a_small_positive_signal_losing_probability_is_a_quick_check_from_the_core(prose: dict[str, str]):
    from rollout_lab import format_signal, run_lab
    from rollout_lab.update import probabilities_after_step

    record = run_lab(1.0, 8)
    signal = format_signal(record["draws"][2]["signal"])
    after = format_number(probabilities_after_step(record, 0.5)[1])
    assert (signal, after) == ("+0.0938", "0.2612")
    text = prose["06-learning.html"]
    assert f"each with signal {signal}: a small positive signal." in text
    assert f"with a step of 0.5 its probability becomes {after}, so it comes out lower." in text


def test_grpo_normalisation_and_kl_numbers_come_from_the_core(prose: dict[str, str]):
    from rollout_lab import format_signal, run_lab
    from rollout_lab.update import kl_divergence, normalised_signals

    rewards = [d["reward"] for d in run_lab()["draws"]]
    for sample, sigma, signals in (
        (False, "0.3536", "+0.71, +0.71, 0, 0, +0.71, \u22122.12"),
        (True, "0.3873", "+0.65, +0.65, 0, 0, +0.65, \u22121.94"),
    ):
        group = normalised_signals(rewards, sample=sample)
        assert (format_number(group.std), ", ".join(format_signal(s, 2) for s in group.signals)) == (sigma, signals)
        assert f"{sigma} {signals}" in prose["04-follow-draw-3.html"]
    kl = format_number(kl_divergence(softmax_probabilities(0.5), softmax_probabilities(1.0)))
    assert kl == "0.0996"
    assert f"is {kl}." in prose["05-provenance.html"]


def test_chapter_5_keeps_chapter_2s_promise_about_temperature(built_site: Path):
    # Part C: chapter 2 says chapter 5 connects temperature to the behaviour policy; chapter 5 must.
    promise = (built_site / "02-possibilities.html").read_text(encoding="utf-8")
    assert 'href="05-provenance.html"' in promise
    page = (built_site / "05-provenance.html").read_text(encoding="utf-8")
    three_roles = page.split('id="three-roles"', 1)[1].split('id="why-the-ratio-exists"', 1)[0]
    assert 'href="02-possibilities.html#temperature"' in three_roles
    assert "top-" in three_roles  # sampling filters change the behaviour policy too


def test_chapter_4_gives_draw_2s_u_before_asking_about_it():
    # Issue 24, part C: the quick check on draw 2 used to need a number printed only after it.
    text = markdown_body(CONTENT / "04-follow-draw-3.md")
    question = text.index("Does draw 2")
    assert "{{ draw T=1 K=6 n=2 field=u }}" in text[text.rindex("::::", 0, question) : question]


@pytest.mark.parametrize(
    "page, used, explained_by",
    [
        ("02-possibilities.md", "stream = first_uniforms(2026)", "a repeatable stream of pseudo-random numbers"),
        ("03-scoring.md", 'run_lab()["draws"]', "replays the lab's recorded default run"),
    ],
)
def test_cells_say_what_the_generator_and_the_recorded_run_are_before_using_them(page: str, used: str, explained_by: str):
    # Issue 24, part C: chapters 2 and 3 use what chapter 4 introduces; they say what it is first.
    text = " ".join(markdown_body(CONTENT / page).split())
    assert text.index(explained_by) < text.index(used)


def test_what_the_lab_leaves_out_is_listed_once():
    headings = [
        line
        for path in CHAPTER_FILES
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("## What the lab")
    ]
    assert headings == ["## What the lab leaves out"]
