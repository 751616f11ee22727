"""Search terms: words and spellings as the index (search_index.py) and the browser (search.js) both process them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sitegen.render.search_index import GREEK_NAMES, STOP_WORDS, americanise, process_term, read_math, tokenise


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


def test_stop_words_are_dropped_and_the_browser_drops_the_same_ones():
    assert [process_term(word) for word in tokenise("Why subtract the mean")] == ["", "subtract", "", "mean"]
    search_js = (Path(__file__).resolve().parents[3] / "client/search.js").read_text(encoding="utf-8")
    listed = re.search(r"const STOP_WORDS = new Set\(\s*\(\s*((?:\"[^\"]*\"\s*\+?\s*)+)\)", search_js)
    assert listed is not None, "search.js lists its stop words"
    assert set("".join(re.findall(r"\"([^\"]*)\"", listed[1])).split()) == STOP_WORDS


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"\pi_{\text{beh}} = \pi_{v12}", "π_beh = π_v12"),
        (r"\frac{1}{K} \sum_k R_k", "1/K Σ_k R_k"),
        (r"R_k - \bar R", "R_k \u2212 R\u0304"),
        (r"[1 - \epsilon, 1 + \epsilon]", "[1 \u2212 ε, 1 + ε]"),
        (r"\pi(a \mid s)", "π(a | s)"),
        (r"\sum_i p_i \, R(y_i)", "Σ_i p_i R(y_i)"),
        # Issue 39: no TeX source left for a snippet to show.
        (r"\hat A_t", "Â_t"),
        (r"\hat{\mathbb{E}}_t\big[\min\big(\rho_t", "Ê_t[min(ρ_t"),
        (r"\mathbb{D}_{\text{KL}}(\pi_\theta \,\|\, \pi_{\text{ref}})", "D_KL(π_θ ‖ π_ref)"),
        (r"\begin{aligned} a &= b \\ & - c \end{aligned}", "a = b \u2212 c"),
        (r"\ln \frac{p_j}{\pi_{\text{ref}, j}}", "ln p_j/(π_ref, j)"),
        (r"\pi_{\theta_{\text{old}}}", "π_θ_old"),
    ],
)
def test_math_is_kept_in_the_text_as_readable_characters(tex, text):
    assert read_math(tex) == text


@pytest.mark.parametrize(("name", "letter"), [("pi", "π"), ("rho", "ρ"), ("epsilon", "ε"), ("beta", "β"), ("sigma", "σ")])
def test_spelled_out_greek_is_searched_as_its_letter(name, letter):
    assert process_term(name) == process_term(name.capitalize()) == process_term(letter) == letter


def test_the_browser_reads_the_same_greek_names():
    search_js = (Path(__file__).resolve().parents[3] / "client/search.js").read_text(encoding="utf-8")
    listed = re.search(r"const GREEK_NAMES = new Map\(\[(.*?)\]\);", search_js, re.DOTALL)
    assert listed is not None, "search.js lists its Greek names"
    assert dict(re.findall(r'\["(\w+)", "(\w)"\]', listed[1])) == GREEK_NAMES
