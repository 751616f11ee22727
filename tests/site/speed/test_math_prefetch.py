"""KaTeX's early start (sitegen/speed/math_prefetch.py): formulas guessed from the Markdown on disk, read before
anything else; the parser's formulas still decide every result."""

from __future__ import annotations

import os
from pathlib import Path

from site_testing import PROJECT_ROOT
from sitegen.check.formulas import KatexProcess
from sitegen.files.paths import KATEX_SCRIPT
from sitegen.speed.math_prefetch import PrefetchedMath, guess_formulas, read_markdown_texts

# About 18 s of KaTeX's work (test_formulas.py): far more than the budget the test gives it.
SLOW = "\\def\\a{" + "x" * 500 + "}" + "\\a" * 200


def test_the_guess_reads_every_readable_markdown_file_at_the_top_and_skips_the_rest(tmp_path: Path):
    (tmp_path / "01-rollout.md").write_text("A draw $p_i$.\n", encoding="utf-8")
    (tmp_path / "glossary.md").write_text("$$\nK\n$$\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("$not markdown$\n", encoding="utf-8")
    (tmp_path / "latin1.md").write_bytes("caf\xe9 $x$\n".encode("latin-1"))
    os.mkfifo(tmp_path / "pipe.md")  # never opened for a read that would wait for a writer
    (tmp_path / "link.md").symlink_to(tmp_path / "01-rollout.md")
    (tmp_path / "drafts").mkdir()
    (tmp_path / "drafts" / "02-draft.md").write_text("$q$\n", encoding="utf-8")
    texts = read_markdown_texts(tmp_path)
    assert texts == ["A draw $p_i$.\n", "$$\nK\n$$\n"]
    assert guess_formulas(texts) == {("p_i", False), ("K", True)}
    assert read_markdown_texts(tmp_path / "missing") == []


def test_a_formula_the_early_request_left_untried_is_rendered_when_the_parser_asks_for_it():
    # The early request spends its whole second on SLOW (from a file that need not even be a page), so x^2,
    # after it in the request, is left untried; the parser's own request renders it.
    texts = ["$$\n" + SLOW + "\n$$\n", "A square $x^2$.\n"]
    with KatexProcess(PROJECT_ROOT / KATEX_SCRIPT, budget_seconds=1) as katex:
        math = PrefetchedMath(katex, texts)
        result = math.render([("x^2", False)])[("x^2", False)]
    assert (result.error, result.tried) == ("", True)
    assert "katex" in result.html
