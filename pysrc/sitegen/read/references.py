"""content/references.yaml: the works the tutorial cites."""

from __future__ import annotations

import re
from functools import lru_cache

import yaml

from sitegen.diagnostics import Diagnostic, excerpt, quote, report, suggest_name
from sitegen.markup.anchors import is_reserved_id
from sitegen.messages import (
    BAD_REFERENCE_FIELD,
    BAD_REFERENCE_KEY,
    BAD_REFERENCE_SECTIONS,
    DUPLICATE_REFERENCE_KEY,
    MISSING_REFERENCE_FIELD,
    REFERENCE_NOT_MAPPING,
    REFERENCES_NOT_LIST,
    REFERENCES_NOT_YAML,
    RESERVED_REFERENCE_KEY,
    UNKNOWN_REFERENCE_FIELD,
    UNQUOTED_ARXIV,
)
from sitegen.model import Reference, Source
from sitegen.read.schema import Field, FieldError, Names, Text, WebAddress, Year
from sitegen.read.yaml_source import YamlProblem, key_lines, read_yaml

REQUIRED = ("key", "short", "authors", "year", "title", "url")
OPTIONAL = ("venue", "arxiv", "note", "sections")
# The fields' rules (read/schema.py, shared with site.yaml and front matter); key and sections are checked below.
FIELDS: dict[str, Field[object]] = {
    "short": Text(allow_empty=True),
    "authors": Names(),
    "year": Year(),
    "title": Text(allow_empty=True),
    "url": WebAddress(),
    "venue": Text(allow_empty=True),
    "arxiv": Text(allow_empty=True),
    "note": Text(allow_empty=True),
}
_KEY = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def parse_references(source: Source | None) -> tuple[tuple[Reference, ...], list[Diagnostic]]:
    """Read every entry of references.yaml, checking required fields and unique keys."""
    references, problems = read_references(source)
    return references, list(problems)


@lru_cache(maxsize=8)
def can_read_entries(source: Source | None) -> bool:
    """Say whether references.yaml is missing, empty or a YAML list: its entries (good or bad) can be read.

    Otherwise (not YAML, or not a list) no citation can be checked: every one would be "unknown" and bury the
    one line that says what is wrong with the file.
    """
    if source is None:
        return True
    try:
        data = read_yaml(source.text).data
    except YamlProblem:
        return False
    return data is None or isinstance(data, list)


# Remembered by the file's text: the dev server checks the references after every edit of any chapter.
@lru_cache(maxsize=8)
def read_references(source: Source | None) -> tuple[tuple[Reference, ...], tuple[Diagnostic, ...]]:
    """Return parse_references' answer, its problems as a tuple (what a cache may hand out twice)."""
    references, problems = _read_references(source)
    return references, tuple(problems)


def _read_references(source: Source | None) -> tuple[tuple[Reference, ...], list[Diagnostic]]:
    if source is None:
        return (), []
    try:
        document = read_yaml(source.text)
    except YamlProblem as problem:
        return (), [report(source.at(problem.line), REFERENCES_NOT_YAML, problem=problem)]
    if document.data is None:
        return (), []
    if not isinstance(document.data, list) or not isinstance(document.node, yaml.SequenceNode):
        return (), [report(source.at(1), REFERENCES_NOT_LIST)]
    references: list[Reference] = []
    problems: list[Diagnostic] = []
    seen: dict[str, int] = {}
    for entry, node in zip(document.data, document.node.value):
        line = node.start_mark.line + 1
        if not isinstance(entry, dict):
            problems.append(report(source.at(line), REFERENCE_NOT_MAPPING))
            continue
        lines = key_lines(node)
        entry_problems = []
        for name in entry:
            if name not in REQUIRED + OPTIONAL:
                entry_problems.append(
                    report(
                        source.at(lines.get(str(name), line)),
                        UNKNOWN_REFERENCE_FIELD,
                        name=excerpt(name),
                        suggestion=suggest_name(str(name), REQUIRED + OPTIONAL),
                    )
                )
        for name in REQUIRED:
            if name not in entry:
                entry_problems.append(report(source.at(line), MISSING_REFERENCE_FIELD, name=name))
        key = entry.get("key")
        if "key" in entry and (not isinstance(key, str) or not _KEY.match(key)):
            entry_problems.append(report(source.at(lines["key"]), BAD_REFERENCE_KEY, key=quote(key)))
        if isinstance(key, str) and is_reserved_id(key):
            entry_problems.append(report(source.at(lines["key"]), RESERVED_REFERENCE_KEY, key=key))
        sections = entry.get("sections", {})
        if not isinstance(sections, dict) or not all(
            isinstance(anchor, str) and _KEY.match(anchor) and isinstance(title, str) and title.strip()
            for anchor, title in sections.items()
        ):
            entry_problems.append(report(source.at(lines["sections"]), BAD_REFERENCE_SECTIONS))
        checked: dict[str, object] = {}
        for name, field in FIELDS.items():
            value = entry.get(name)
            if name not in entry:
                continue
            if name == "arxiv" and isinstance(value, float):
                entry_problems.append(report(source.at(lines[name]), UNQUOTED_ARXIV, value=value))
                continue
            try:
                checked[name] = field.check(value)
            except FieldError as error:
                entry_problems.append(report(source.at(lines[name]), BAD_REFERENCE_FIELD, name=name, rule=error.describe(value)))
        if isinstance(key, str) and key in seen:
            entry_problems.append(report(source.at(lines.get("key", line)), DUPLICATE_REFERENCE_KEY, key=key, first=seen[key]))
        problems += entry_problems
        if entry_problems:
            continue
        # No problems: the checks above made these what Reference needs.
        authors, year = checked["authors"], checked["year"]
        assert isinstance(key, str) and isinstance(authors, tuple) and isinstance(year, int)
        seen[key] = lines.get("key", line)
        references.append(
            Reference(
                key=key,
                short=str(checked["short"]),
                authors=authors,
                year=year,
                title=str(checked["title"]),
                url=str(checked["url"]),
                venue=str(checked.get("venue", "")),
                arxiv=str(checked.get("arxiv", "")),
                note=str(checked.get("note", "")),
                sections=tuple(sections.items()),
                location=source.at(lines.get("key", line)),
            )
        )
    return tuple(references), problems
