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
from pathlib import Path

from sitegen.check.formulas import KatexProcess
from sitegen.files.limited_read import read_limited
from sitegen.model import MathResult, Project
from sitegen.read.source_files import SOURCE_LIMIT

# `$$` on a line of its own opens and closes display math; inline `$...$` may
# not start or end with a space and may not be followed by a digit (`$5`),
# as the parser's dollarmath settings say.
_DISPLAY = re.compile(r"^[ \t]*\$\$[ \t]*\n(.*?)\n[ \t]*\$\$[ \t]*$", re.MULTILINE | re.DOTALL)
# (`\$(?<![\\$]\$)` is `(?<![\\$])\$` written to start with the `$`, which `re` finds far faster: check/markdown.py.)
_INLINE = re.compile(r"\$(?<![\\$]\$)(?![\s$])((?:[^$\\\n]|\\.)+?)(?<!\s)\$(?!\d)")


def guess_formulas(texts: Iterable[str]) -> set[tuple[str, bool]]:
    """Return the (tex, display) pairs the Markdown texts probably contain."""
    found = set()
    for text in texts:
        for match in _DISPLAY.finditer(text):
            found.add((match.group(1).strip(), True))
        for match in _INLINE.finditer(_DISPLAY.sub("", text)):
            found.add((match.group(1).strip(), False))
    return found


def read_markdown_texts(content_path: Path) -> list[str]:
    """Return the text of every Markdown file at the top of the content folder, read before anything else, for the guess.

    load_project reads the pages again, properly (and says what is wrong with
    one): here a file that is no regular file, too large or not UTF-8 is only
    left out of the guess, and a file that is no page only costs KaTeX a few
    formulas rendered in vain.
    """
    try:
        paths = sorted(content_path.glob("*.md"))
    except OSError:
        return []
    texts = []
    for path in paths:
        try:
            texts.append(read_limited(path, SOURCE_LIMIT, follow_links=False).decode("utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    return texts


def list_page_texts(project: Project) -> list[str]:
    """Return the texts of the project's pages (chapters and single pages): what the parser will find formulas in."""
    return [source.text for source in (*project.chapters, *(source for _kind, source in project.page_sources))]


class PrefetchedMath:
    """KaTeX already working on the formulas guessed from `texts`, on a thread (node does the work; the thread only waits).

    Offers KatexProcess's `render`, which first waits for the early answers.
    """

    def __init__(self, katex: KatexProcess, texts: Iterable[str]) -> None:
        self._katex = katex
        self._results: dict[tuple[str, bool], MathResult] = {}
        guesses = guess_formulas(texts)
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
        # So does a formula the early request left untried (its time budget spent,
        # perhaps on a file that is no page): it is asked again with the real ones.
        unique = sorted(set(formulas))
        missing = [formula for formula in unique if formula not in self._results or not self._results[formula].tried]
        if missing:
            self._results.update(self._katex.render(missing))
        return {formula: self._results[formula] for formula in unique}
