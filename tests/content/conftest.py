"""Build the real tutorial once per test session, into a temporary folder.

The content tests read what a reader gets: the pages the pipeline writes from
content/, not the Markdown. The build itself is the real one (KaTeX, the core,
templates); only the output folder differs from `python build.py`.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sitegen.pipeline import CheckedProject, build_site, check_project, load_project

# Elements whose text is not prose: the lab widgets (their numbers are checked by
# the lab's own tests), inline SVG, scripts, and KaTeX's hidden MathML copy.
SKIPPED = {("section", "lab"), ("svg", None), ("script", None), ("span", "katex-mathml")}
ASCII_SPACE = re.compile(r"[ \t\n\r\f]+")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class ProseText(HTMLParser):
    """Collect the text inside <div class="prose">, leaving out the SKIPPED elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._prose_depth = 0  # open elements since <div class="prose"> (0 = outside)
        self._skip: list[str] = []  # tags of skipped elements still open

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        if self._prose_depth == 0:
            if tag == "div" and "prose" in classes:
                self._prose_depth = 1
            return
        self._prose_depth += 1
        if self._skip or any(tag == t and (c is None or c in classes) for t, c in SKIPPED):
            self._skip.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or self._prose_depth == 0:
            return
        self._prose_depth -= 1
        if self._skip:
            self._skip.pop()

    def handle_data(self, data: str) -> None:
        if self._prose_depth and not self._skip:
            self.parts.append(data)

    def text(self) -> str:
        """Return the collected text, runs of ASCII white space made single spaces.

        Only ASCII white space: the no-break space inside "58.96\u00a0%" is part
        of the number's text and must survive.
        """
        return ASCII_SPACE.sub(" ", "".join(self.parts)).strip()


def extract_prose_text(html: str) -> str:
    """Return the prose of a built page as plain text."""
    parser = ProseText()
    parser.feed(html)
    parser.close()
    return parser.text()


@pytest.fixture(scope="session")
def checked_content() -> CheckedProject:
    """Parse and validate the real content/ folder (writes nothing)."""
    return check_project(load_project())


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the real site once, strictly (a warning fails it), and return the output folder."""
    out_dir = tmp_path_factory.mktemp("content-site") / "dist"
    build_site(load_project(), out_dir, strict=True)
    return out_dir


@pytest.fixture(scope="session")
def prose(built_site: Path) -> dict[str, str]:
    """Return {page file: its prose as plain text} for every built Markdown page."""
    return {
        path.name: extract_prose_text(path.read_text(encoding="utf-8"))
        for path in sorted(built_site.glob("*.html"))
        if path.name not in ("404.html", "references.html")
    }
