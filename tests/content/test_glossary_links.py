"""The glossary's "Used in" lines are complete: a chapter that names a glossary term links it at least once.

"Used in" is built from the chapters' `[text](term:key)` links
(sitegen/kinds/links/term.py), so a chapter that uses a term without linking
it is missing from that term's line (issue 58). A term is found by its
glossary name (without a parenthesised alias, plural allowed) in a chapter's
prose: headings, tables, code, math, links, computed values and container
lines are left out, as a first mention there is not where a link belongs.
Terms that are also everyday words ("value", "return", "state", "seed", …)
are left out too: the chapters use them in their plain sense as often as in
the technical one.
"""

import re
from pathlib import Path

import pytest

CONTENT = Path(__file__).resolve().parents[2] / "content"
CHAPTERS = sorted(CONTENT.glob("[0-9][0-9]-*.md"))
EVERYDAY_WORDS = {
    "action",
    "advantage",
    "batch",
    "completion",
    "gradient",
    "group",
    "loss",
    "objective",
    "policy",
    "prompt",
    "provenance",
    "reinforcement-learning",
    "return",
    "reward",
    "rollout",
    "sample",
    "seed",
    "serving",
    "state",
    "token",
    "value",
}
TERM = re.compile(r"^(.+?) \{#([a-z0-9-]+)\}", re.M)
# Code spans, inline math, links and computed values: a term inside them is not prose.
NOT_PROSE = re.compile(r"`[^`]*`|\$[^$]*\$|\[[^\]]*\]\([^)]*\)|\{\{.*?\}\}|\{#[^}]*\}")


def glossary_terms() -> list[tuple[str, str]]:
    """Return (name, key) for every glossary term, the name without its parenthesised alias."""
    text = (CONTENT / "glossary.md").read_text(encoding="utf-8")
    return [(re.sub(r"\s*\(.*\)", "", name).strip(), key) for name, key in TERM.findall(text)]


def prose_lines(markdown: str) -> list[str]:
    """Return a chapter's prose lines, with code, math, links and computed values blanked out."""
    body = markdown.split("\n---\n", 1)[1]
    body = re.sub(r"```.*?```", "", body, flags=re.S)
    kept = [line for line in body.split("\n") if not line.startswith(("#", "|", ":::", "    "))]
    return [NOT_PROSE.sub(" ", line) for line in kept]


def unlinked_terms(markdown: str, terms: list[tuple[str, str]]) -> list[str]:
    """Return the keys of the terms a chapter names in its prose but never links."""
    prose = "\n".join(prose_lines(markdown))
    return [
        key
        for name, key in terms
        if key not in EVERYDAY_WORDS
        and f"(term:{key})" not in markdown
        and re.search(rf"(?<![\w-]){re.escape(name)}s?(?![\w-])", prose, re.I)
    ]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda path: path.stem)
def test_a_chapter_links_every_glossary_term_it_names(path: Path):
    assert unlinked_terms(path.read_text(encoding="utf-8"), glossary_terms()) == []


def test_a_named_term_without_a_link_is_found_and_a_linked_one_is_not():
    terms = [("Learning rate", "learning-rate"), ("Softmax", "softmax"), ("Value", "value")]
    text = "---\ntitle: t\n---\n\nThe learning rates and the `softmax` and a value.\n\n## Softmax\n"
    assert unlinked_terms(text, terms) == ["learning-rate"]
    assert unlinked_terms(text.replace("learning rates", "[learning rates](term:learning-rate)"), terms) == []
