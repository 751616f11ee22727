"""Search over the real tutorial: MiniSearch's own format, written by Python, and the fixed queries of issue 15.

search_index.py writes the index in the format MiniSearch's loadJSON reads and
search.js queries it in the browser. Here MiniSearch itself (the pinned npm
package, under Node) loads the built index, builds a second one with addAll
from the same documents and the browser's options (search.js), and the two
must be equal: same terms, counts, field lengths and averages. Then each fixed
query must find the right page first, with the match marked in its snippet.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from sitegen.node import find_node

NODE = find_node() or "node"  # the Node the build runs (sitegen/node.py)

ROOT = Path(__file__).resolve().parents[2]
MINISEARCH = ROOT / "node_modules/minisearch/dist/cjs/index.cjs"
SEARCH_JS = ROOT / "client/search.js"
CHECK_SCRIPT = Path(__file__).with_name("search_index_check.cjs")
# A phrase found in one chapter's body only (chapter 5), in no title and no glossary entry.
BODY_ONLY_PHRASE = "thrown away after one gradient step"
QUESTION = "why subtract the mean"
COMPARISON = "difference between rollout and trajectory"
# TeX source a snippet must never show (issue 39): commands, environments, alignment marks, and TeX read as words.
LATEX_SOURCE = re.compile(
    r"\\|&|\b(?:begin|end)(?:aligned|\{)|\bhat ?[A-Za-z]\b|\bhat[A-Z]|\b(?:mathbb|mathrm|operatorname|frac)\b|\b[Bb]ig[\[(]"
)
QUERIES = (
    "KL",
    "clipping",
    "clip",
    "epoch",
    "centered",
    "centred",
    "temprature",
    BODY_ONLY_PHRASE,
    QUESTION,
    "importance sampling",
    "GRPO critic",
    "written",
    "clipped to",
    "what is pi old",
    COMPARISON,
    "pi old",
    "\u03c0_old",
    "what is a rollout",
)


@pytest.fixture(scope="module")
def checked_index(built_site: Path) -> dict:
    """Run MiniSearch under Node on the built index: both serialisations and each query's results."""
    completed = subprocess.run(
        [NODE, str(CHECK_SCRIPT), str(MINISEARCH), str(SEARCH_JS), str(built_site / "search-index.json"), *QUERIES],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(completed.stdout)


def test_minisearch_loads_the_built_index_exactly_as_it_would_have_built_it(checked_index):
    assert checked_index["loaded"] == checked_index["built"]
    assert checked_index["loaded"]["documentCount"] > 60


@pytest.mark.parametrize(
    ("query", "first", "also"),
    [
        # A glossary term's title first; the chapter that discusses it follows.
        ("KL", "glossary.html#kl-divergence", "05-provenance.html#the-kl-divergence-with-numbers"),
        ("clipping", "glossary.html#clipping", "05-provenance.html#why-the-ratio-exists"),
        ("clip", "glossary.html#clipping", "05-provenance.html#the-objectives-written-out"),
        ("epoch", "glossary.html#epoch", "05-provenance.html#on-policy-is-about-provenance"),
        ("centered", "glossary.html#centred-signal", "03-scoring.html#a-group-and-its-mean"),
        ("centred", "glossary.html#centred-signal", "03-scoring.html#a-group-and-its-mean"),
        ("temprature", "02-possibilities.html#temperature", "glossary.html#temperature"),
        (BODY_ONLY_PHRASE, "05-provenance.html#on-policy-is-about-provenance", None),
    ],
)
def test_fixed_queries_find_the_right_page_first_with_the_match_in_the_snippet(checked_index, query, first, also):
    results = checked_index["results"][query]
    assert results, query
    assert results[0]["id"] == first, [r["id"] for r in results[:5]]
    if also:
        assert also in [r["id"] for r in results[:5]]
    # The matched word is marked in the result's title or snippet (as the browser shows it).
    assert results[0]["marked"], (results[0]["title"], results[0]["snippet"])


def test_body_only_phrase_is_in_one_chapter_body_and_nowhere_else(checked_index):
    # Others follow with only some of its words (OR-matching); only one has them all.
    words = set(BODY_ONLY_PHRASE.split())
    every_word = [r["id"] for r in checked_index["results"][BODY_ONLY_PHRASE] if set(r["queryTerms"]) == words]
    assert every_word == ["05-provenance.html#on-policy-is-about-provenance"]


def test_a_question_matches_its_words_not_its_stop_words_and_finds_pages_with_only_some(checked_index):
    results = checked_index["results"][QUESTION]
    ids = [r["id"] for r in results]
    # Every word need not match: the glossary's Baseline and chapter 3's section on the mean are found too.
    assert "glossary.html#baseline" in ids and "03-scoring.html#a-group-and-its-mean" in ids, ids[:10]
    marked = {word.lower() for result in results for word in result["marked"]}
    assert marked & {"mean", "subtract"} and not marked & {"why", "the"}, marked


def test_importance_sampling_finds_the_probability_ratio(checked_index):
    ids = [r["id"] for r in checked_index["results"]["importance sampling"]]
    assert "glossary.html#probability-ratio" in ids[:3], ids[:5]
    assert any(i.startswith("05-provenance.html#") for i in ids[:5]), ids[:5]


@pytest.mark.parametrize("query", ["KL", "GRPO critic"])
def test_explanations_rank_above_key_points_and_further_reading(checked_index, query):
    results = checked_index["results"][query]
    summaries = [i for i, r in enumerate(results) if r["title"] in ("Key points", "Further reading")]
    explanations = [i for i, r in enumerate(results) if r["id"].split("#")[0][:2].isdigit() and i not in summaries]
    assert explanations and (not summaries or min(summaries) > min(explanations)), [(r["id"], r["title"]) for r in results[:6]]
    assert all(i >= 3 for i in summaries), [(r["id"], r["title"]) for r in results[:6]]


@pytest.mark.parametrize("query", ["written", "clipped to"])
def test_snippets_keep_math_as_readable_text(checked_index, query):
    for result in checked_index["results"][query]:
        assert " . " not in result["snippet"] and "to ." not in result["snippet"], result["snippet"]


def test_spelled_out_greek_finds_the_notation_and_the_glossary(checked_index):
    ids = [r["id"] for r in checked_index["results"]["what is pi old"]]
    assert "notation.html#policies" in ids[:5] and "glossary.html#behaviour-policy" in ids[:5], ids[:8]
    marked = {word for result in checked_index["results"]["what is pi old"][:5] for word in result["marked"]}
    assert "π" in marked and "old" in marked, marked


@pytest.mark.parametrize("query", ["pi old", "\u03c0_old", "what is pi old"])
def test_a_symbol_ranks_where_it_is_defined_first(checked_index, query):
    """Issue 56: "pi old" ranked chapter 5's KL section first; a symbol is looked up as a definition is."""
    first = checked_index["results"][query][0]
    assert first["id"].startswith(("notation.html#", "glossary.html#")), [r["id"] for r in checked_index["results"][query][:5]]


def test_a_what_is_question_ranks_the_glossary_entry_of_its_word_first(checked_index):
    """Issue 56: "what is a rollout" ranked the notation page's table of one rollout's symbols first."""
    ids = [r["id"] for r in checked_index["results"]["what is a rollout"]]
    assert ids[:2] == ["glossary.html#rollout", "notation.html#one-rollout"], ids[:5]


def test_a_table_keeps_its_cells_and_rows_apart_in_a_snippet(checked_index):
    """Issue 56: a notation table's snippet ran its cells together ("First used x The prompt … Chapter 1 t The step")."""
    (table,) = [r for r in checked_index["results"]["what is a rollout"] if r["id"] == "notation.html#one-rollout"]
    assert table["snippet"].startswith(
        "Symbol \u00b7 Meaning \u00b7 First used \u2014 x \u00b7 The prompt a rollout starts from. \u00b7 Chapter 1 \u2014 t \u00b7 "
    )


def test_a_comparison_question_ranks_the_sentence_defining_one_word_by_the_other_first(checked_index):
    ids = [r["id"] for r in checked_index["results"][COMPARISON]]
    assert ids[0] == "01-rollout.html#a-rollout-is-a-sampled-trajectory", ids[:5]


def test_no_indexed_text_holds_latex_source(built_site: Path):
    stored = json.loads((built_site / "search-index.json").read_text(encoding="utf-8"))["storedFields"].values()
    leaks = [
        (fields["url"], match[0])
        for fields in stored
        for field in ("title", "text")
        for match in LATEX_SOURCE.finditer(fields[field])
    ]
    assert leaks == []
    # The formulas are there, as readable text.
    text = " ".join(fields["text"] for fields in stored)
    assert "Â_t" in text and "π_old" in text and "‖" in text
