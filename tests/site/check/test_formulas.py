"""KaTeX's bounds: a formula gets 2 s and 100 KB of HTML; a formula that ran out of time is never cached."""

from __future__ import annotations

import json

import pytest

from site_testing import PROJECT_ROOT
from sitegen.check.formulas import KatexProcess
from sitegen.paths import KATEX_SCRIPT

# Each \a is 500 letters: KaTeX's work grows with the square of that (about 18 s for these 100 000 on a quiet machine).
SLOW = "\\def\\a{" + "x" * 500 + "}" + "\\a" * 200
TOO_SLOW = "KaTeX needs more than 2 s to render it (the limit); split it, or expand its macros less"


@pytest.mark.slow  # the formula takes its 2 s twice
def test_a_formula_that_runs_out_of_time_is_an_error_never_cached_and_the_others_render(tmp_path):
    # One request, in this order: the clock runs out while SLOW renders after two others, so SLOW
    # is tried again with the whole time to itself before it is called too slow.
    formulas = [("\\alpha", False), ("\\beta", False), (SLOW, True), ("x^2", False)]
    cache = tmp_path / "math.json"
    with KatexProcess(PROJECT_ROOT / KATEX_SCRIPT, cache) as katex:
        results = katex.render(formulas)
    assert [results[formula].error for formula in formulas] == ["", "", TOO_SLOW, ""]
    assert all("katex" in results[formula].html for formula in formulas if formula[0] != SLOW)
    assert sorted(json.loads(cache.read_text(encoding="utf-8"))["formulas"]) == ["inline:\\alpha", "inline:\\beta", "inline:x^2"]


def test_a_formula_rendering_to_more_than_100_kb_is_an_error():
    tex = "\\sqrt{x}" * 150  # no macro at all: 1.2 KB of TeX, 194 KB of HTML
    with KatexProcess(PROJECT_ROOT / KATEX_SCRIPT) as katex:
        result = katex.render([(tex, True)])[(tex, True)]
    assert result.error == "it renders to 194 KB of HTML (the limit is 100 KB); split it, or expand its macros less"
