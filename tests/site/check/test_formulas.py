"""KaTeX's bounds: a formula gets 2 s and 100 KB of HTML, a request 20 s; a formula that ran out of time is cached
as the failure it is, one left untried when the request's time ran out is not."""

from __future__ import annotations

import json

import pytest

from site_testing import PROJECT_ROOT
from sitegen.check.formulas import KatexProcess
from sitegen.diagnostics import BuildFailed
from sitegen.files.paths import KATEX_SCRIPT

# Each \a is 1000 letters: KaTeX's work grows with the square of what the macros expand to, so these
# 400 000 letters take 49 s on this machine (2026-12). A quarter of that took 4.3 s here and under 2 s on a
# faster CI run, so the 2 s limit did not fire: the margin must hold on any machine.
SLOW = "\\def\\a{" + "x" * 1000 + "}" + "\\a" * 400
TOO_SLOW = "KaTeX needs more than 2 s to render it (the limit); split it, or expand its macros less"
UNRENDERED = "not rendered: slower formulas used up KaTeX's {} s for the whole build; fix those first"


@pytest.mark.slow  # the formula takes its 2 s twice
def test_a_formula_that_runs_out_of_time_is_an_error_cached_as_such_and_the_others_render(tmp_path):
    # One request, in this order: the clock runs out while SLOW renders after two others, so SLOW
    # is tried again with the whole time to itself before it is called too slow.
    formulas = [("\\alpha", False), ("\\beta", False), (SLOW, True), ("x^2", False)]
    cache = tmp_path / "math.json"
    with KatexProcess(PROJECT_ROOT / KATEX_SCRIPT, cache) as katex:
        results = katex.render(formulas)
    assert [results[formula].error for formula in formulas] == ["", "", TOO_SLOW, ""]
    assert all("katex" in results[formula].html for formula in formulas if formula[0] != SLOW)
    # Cached by formula, failure and all: every later build and check would spend the 2 s again (issue 42).
    cached = json.loads(cache.read_text(encoding="utf-8"))["formulas"]
    assert sorted(cached) == [f"display:{SLOW}", "inline:\\alpha", "inline:\\beta", "inline:x^2"]
    assert cached[f"display:{SLOW}"]["error"] == TOO_SLOW
    with KatexProcess(PROJECT_ROOT / KATEX_SCRIPT, cache, start_now=False) as katex:
        again = katex.render([(SLOW, True)])
        assert (again[SLOW, True].error, katex.is_running) == (TOO_SLOW, False)


def test_formulas_left_when_the_requests_time_is_spent_are_not_tried_and_not_cached(tmp_path):
    # A budget of 3 s: the first slow formula spends 2 s, the second runs out of the rest, the others wait.
    formulas = [(SLOW, True), (SLOW + "\\a", True), (SLOW + "\\a\\a", True), ("x^2", False)]
    cache = tmp_path / "math.json"
    with KatexProcess(PROJECT_ROOT / KATEX_SCRIPT, cache, budget_seconds=3) as katex:
        results = katex.render(formulas)
    assert [results[formula].error for formula in formulas] == [TOO_SLOW] + [UNRENDERED.format(3)] * 3
    assert [results[formula].tried for formula in formulas] == [True, False, False, False]
    assert sorted(json.loads(cache.read_text(encoding="utf-8"))["formulas"]) == [f"display:{SLOW}"]


def test_a_formula_rendering_to_more_than_100_kb_is_an_error():
    tex = "\\sqrt{x}" * 150  # no macro at all: 1.2 KB of TeX, 194 KB of HTML
    with KatexProcess(PROJECT_ROOT / KATEX_SCRIPT) as katex:
        result = katex.render([(tex, True)])[(tex, True)]
    assert result.error == "it renders to 194 KB of HTML (the limit is 100 KB); split it, or expand its macros less"


def test_a_cached_answer_that_is_not_katexs_markup_is_rendered_again_never_published(tmp_path):
    """Issue 60: CI restores .cache/math.json by key prefix, and 639 planted `<img onerror>` elements were published."""
    formulas = [("x^2", False), ("\\alpha", False), ("y", True), ("z", False)]
    cache = tmp_path / "math.json"
    with KatexProcess(PROJECT_ROOT / KATEX_SCRIPT, cache) as katex:
        rendered = katex.render(formulas)
    stored = json.loads(cache.read_text(encoding="utf-8"))
    stored["formulas"] |= {
        "inline:x^2": {"html": '<span class="katex"><img src="x" onerror="alert(1)"></span>'},
        "inline:\\alpha": {"html": '<span class="katex" style="background:url(https://example.org/)">α</span>'},
        "display:y": {"html": '<span class="katex"><span class="mord">y<script>alert(1)</script></span></span>'},
    }
    cache.write_text(json.dumps(stored), encoding="utf-8")
    with KatexProcess(PROJECT_ROOT / KATEX_SCRIPT, cache, start_now=False) as katex:
        again = katex.render(formulas)
        assert katex.is_running  # the three planted answers were rendered again; z's came from the cache
    assert again == rendered
    assert "onerror" not in cache.read_text(encoding="utf-8")  # and the cache holds KaTeX's own answers again


def test_a_missing_katex_is_one_line_saying_how_to_install_it(tmp_path):
    # node_modules without KaTeX (an install `npm ci` did not finish): node starts only to be told nothing is there.
    script = tmp_path / "katex.min.js"
    with KatexProcess(script, tmp_path / "math.json", start_now=False) as katex, pytest.raises(BuildFailed) as failure:
        katex.render([("x^2", False)])
    assert [d.format() for d in failure.value.diagnostics] == [f"{script}: KaTeX is missing; run `npm ci`"]
