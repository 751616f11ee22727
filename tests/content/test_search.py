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
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MINISEARCH = ROOT / "node_modules/minisearch/dist/cjs/index.cjs"
SEARCH_JS = ROOT / "site_templates/static/js/search.js"
CHECK_SCRIPT = Path(__file__).with_name("search_index_check.cjs")
# A phrase found in one chapter's body only (chapter 5), in no title and no glossary entry.
BODY_ONLY_PHRASE = "thrown away after one gradient step"
QUERIES = ("KL", "clipping", "clip", "epoch", "centered", "centred", "temprature", BODY_ONLY_PHRASE)


@pytest.fixture(scope="module")
def checked_index(built_site: Path) -> dict:
    """Run MiniSearch under Node on the built index: both serialisations and each query's results."""
    completed = subprocess.run(
        ["node", str(CHECK_SCRIPT), str(MINISEARCH), str(SEARCH_JS), str(built_site / "search-index.json"), *QUERIES],
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
        ("KL", "glossary.html#kl-penalty", "05-provenance.html#the-kl-divergence-with-numbers"),
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
    assert [r["id"] for r in checked_index["results"][BODY_ONLY_PHRASE]] == ["05-provenance.html#on-policy-is-about-provenance"]
