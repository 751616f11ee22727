"""Send a build's formulas to KaTeX before the Markdown is parsed, so node renders while Python parses.

On a cold build (no math cache) the build used to parse every page, then
wait for node to render every formula. Guessing the formulas from the raw
text with two regular expressions lets node start at once, on another core,
while Python parses; by the time the parser asks, the answers are usually in.
The guess only decides what is rendered early: the parser's formulas remain
the truth, a formula the guess missed is rendered when asked, and one it
invented is simply never looked up.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

from sitegen.check.formulas import KatexProcess
from sitegen.model import MathResult, Project

# `$$` on a line of its own opens and closes display math; inline `$...$` may
# not start or end with a space and may not be followed by a digit (`$5`),
# as the parser's dollarmath settings say.
_DISPLAY = re.compile(r"^[ \t]*\$\$[ \t]*\n(.*?)\n[ \t]*\$\$[ \t]*$", re.MULTILINE | re.DOTALL)
_INLINE = re.compile(r"(?<![\\$])\$(?![\s$])((?:[^$\\\n]|\\.)+?)(?<!\s)\$(?!\d)")


def guess_formulas(texts: Iterable[str]) -> set[tuple[str, bool]]:
    """Return the (tex, display) pairs the Markdown texts probably contain."""
    found = set()
    for text in texts:
        for match in _DISPLAY.finditer(text):
            found.add((match.group(1).strip(), True))
        for match in _INLINE.finditer(_DISPLAY.sub("", text)):
            found.add((match.group(1).strip(), False))
    return found


class PrefetchedMath:
    """KaTeX already working on the guessed formulas, on a thread (node does the work; the thread only waits for it).

    Offers KatexProcess's `render`, which first waits for the early answers.
    """

    def __init__(self, katex: KatexProcess, project: Project) -> None:
        self._katex = katex
        self._results: dict[tuple[str, bool], MathResult] = {}
        sources = (*project.chapters, *(source for _kind, source in project.page_sources))
        guesses = guess_formulas(source.text for source in sources)
        self._thread = threading.Thread(target=self._render_early, args=(guesses,), name="katex-prefetch", daemon=True)
        self._thread.start()

    def _render_early(self, guesses: set[tuple[str, bool]]) -> None:
        try:
            self._results = self._katex.render(guesses)
        except Exception:  # noqa: BLE001 - render() renders the real formulas again and reports any failure
            self._results = {}

    def render(self, formulas: Iterable[tuple[str, bool]]) -> dict[tuple[str, bool], MathResult]:
        """Return a result for each distinct formula, like KatexProcess.render."""
        self._thread.join()
        # A failed early render (node missing, say) may concern only a guessed
        # formula that does not exist: only the real formulas' render decides.
        unique = sorted(set(formulas))
        missing = [formula for formula in unique if formula not in self._results]
        if missing:
            self._results.update(self._katex.render(missing))
        return {formula: self._results[formula] for formula in unique}
