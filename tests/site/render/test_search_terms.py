"""Search terms: words and spellings as the index (search_index.py) and the browser (search.js) both process them."""

from __future__ import annotations

import pytest

from sitegen.render.search_index import americanise, process_term, tokenise


@pytest.mark.parametrize(
    ("british", "american"),
    [
        ("centred", "centered"),
        ("centre", "center"),
        ("centring", "centering"),
        ("behaviour", "behavior"),
        ("normalise", "normalize"),
        ("normalisation", "normalization"),
        ("analyse", "analyze"),
        ("modelling", "modeling"),
        ("labelled", "labeled"),
        ("catalogue", "catalog"),
    ],
)
def test_british_spellings_meet_american_ones(british, american):
    assert americanise(british) == americanise(american) == american


def test_terms_are_lower_case_without_accents_and_words_are_letters_and_digits():
    assert process_term("Café") == "cafe"
    assert tokenise("group's mean, 0.35") == ["group", "s", "mean", "0", "35"]
