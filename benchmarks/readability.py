#!/usr/bin/env python3
"""Print readability figures for each chapter: words, sentences, sentence lengths, reading ease.

A report, not a test: nothing here fails a build. It reads the chapters the way
a reader meets them — prose only (paragraphs and list items, including exercise
and lab intros), with every `{{ ... }}` replaced by the number the core computes
— and leaves out headings, tables, code, display math and figures' SVG.

Usage: .venv/bin/python benchmarks/readability.py [content-folder]
"""

from __future__ import annotations

import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "pysrc"))

from sitegen.check.markdown import create_markdown  # noqa: E402
from sitegen.kinds.computed import compute_value  # noqa: E402

# Full stops inside these do not end a sentence.
ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")
SENTENCE_END = re.compile(r"(?<=[.!?])[\"”’)]*\s+(?=[\"“‘(]?[A-Z0-9`])")
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’.\-]*")
VOWEL_GROUPS = re.compile(r"[aeiouy]+")


@dataclass(frozen=True)
class ChapterFigures:
    """Readability figures for one chapter."""

    name: str
    words: int
    sentences: int
    mean_length: float
    p95_length: float
    longest: int
    reading_ease: float


def extract_prose(markdown_text: str) -> list[str]:
    """Return the chapter's prose blocks as plain text, computed values filled in."""
    tokens = create_markdown().parse(markdown_text, {})
    blocks = []
    inside_table = 0
    for index, token in enumerate(tokens):
        if token.type == "table_open":
            inside_table += 1
        elif token.type == "table_close":
            inside_table -= 1
        if token.type != "inline" or inside_table or index == 0 or tokens[index - 1].type != "paragraph_open":
            continue
        parts = []
        for child in token.children or []:
            if child.type == "text" or child.type == "code_inline":
                parts.append(child.content)
            elif child.type == "computed_value":
                parts.append(compute_value(child.content))
            elif child.type == "math_inline":
                parts.append("x")  # a short formula reads as one word
            elif child.type in ("softbreak", "hardbreak"):
                parts.append(" ")
        text = re.sub(r"\s+", " ", "".join(parts)).strip()
        if text:
            blocks.append(text)
    return blocks


def split_sentences(block: str) -> list[str]:
    """Split a prose block into sentences, keeping abbreviations such as "e.g." intact."""
    protected = block
    for abbreviation in ABBREVIATIONS:
        protected = protected.replace(abbreviation, abbreviation.replace(".", "\u2024"))
    return [s.replace("\u2024", ".") for s in SENTENCE_END.split(protected) if s.strip()]


def count_syllables(word: str) -> int:
    """Estimate a word's syllables from its vowel groups (good enough for a trend, not exact)."""
    letters = word.lower().strip(".'’-")
    if not letters.isalpha():
        return 1
    groups = len(VOWEL_GROUPS.findall(letters))
    if letters.endswith("e") and not letters.endswith(("le", "ee")) and groups > 1:
        groups -= 1
    return max(groups, 1)


def percentile(values: list[int], fraction: float) -> float:
    """Return the value at `fraction` of the sorted list, interpolating between neighbours."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    lower = int(position)
    upper = min(lower + 1, len(ordered) - 1)
    return ordered[lower] + (ordered[upper] - ordered[lower]) * (position - lower)


def measure_chapter(name: str, markdown_text: str) -> ChapterFigures:
    """Return the readability figures of one chapter's prose."""
    sentences = [s for block in extract_prose(markdown_text) for s in split_sentences(block)]
    lengths = [len(WORD.findall(s)) for s in sentences]
    words = [w for s in sentences for w in WORD.findall(s)]
    syllables = sum(count_syllables(w) for w in words)
    # Flesch reading ease: higher is easier; 60-70 is plain English.
    ease = 206.835 - 1.015 * (len(words) / len(sentences)) - 84.6 * (syllables / len(words))
    return ChapterFigures(
        name=name,
        words=len(words),
        sentences=len(sentences),
        mean_length=statistics.mean(lengths),
        p95_length=percentile(lengths, 0.95),
        longest=max(lengths),
        reading_ease=ease,
    )


def format_report(rows: list[ChapterFigures]) -> str:
    """Write the figures as a plain-text table."""
    header = f"{'chapter':<24} {'words':>6} {'sentences':>9} {'mean len':>8} {'p95 len':>7} {'longest':>7} {'Flesch':>6}"
    lines = [header, "-" * len(header)]
    for row in rows:
        lines.append(
            f"{row.name:<24} {row.words:>6} {row.sentences:>9} {row.mean_length:>8.1f} "
            f"{row.p95_length:>7.1f} {row.longest:>7} {row.reading_ease:>6.1f}"
        )
    total_words = sum(r.words for r in rows)
    lines.append(f"{'total':<24} {total_words:>6}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Measure every chapter in the content folder and print the table."""
    content = Path(argv[1]) if len(argv) > 1 else ROOT / "content"
    chapters = sorted(content.glob("[0-9][0-9]-*.md"))
    rows = [measure_chapter(path.name, path.read_text(encoding="utf-8")) for path in chapters]
    print(format_report(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
