"""content/references.yaml: the works the tutorial cites."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import yaml

from sitegen.check.anchors import RESERVED_IDS
from sitegen.diagnostics import Diagnostic, excerpt, quote, report_error, suggest_name
from sitegen.model import Reference, Source
from sitegen.read.yaml_source import YamlProblem, key_lines, read_yaml

REQUIRED = ("key", "short", "authors", "year", "title", "url")
OPTIONAL = ("venue", "arxiv", "note", "sections")
TEXT_FIELDS = ("short", "title", "url", "venue", "arxiv", "note")
_KEY = re.compile(r"^[a-z0-9][a-z0-9-]*$")


def is_web_address(url: str) -> bool:
    """True for an absolute http(s) address with a host: the only links a reference may publish (no javascript:, data:, ...)."""
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return False
    return (
        parts.scheme in ("http", "https")
        and bool(parts.hostname)
        and url == url.strip()
        and not any(character.isspace() or ord(character) < 32 for character in url)
    )


def parse_references(source: Source | None) -> tuple[tuple[Reference, ...], list[Diagnostic]]:
    """Read every entry of references.yaml, checking required fields and unique keys."""
    if source is None:
        return (), []
    try:
        document = read_yaml(source.text)
    except YamlProblem as problem:
        return (), [report_error(source.at(problem.line), f"references are not valid YAML: {problem}")]
    if document.data is None:
        return (), []
    if not isinstance(document.data, list) or not isinstance(document.node, yaml.SequenceNode):
        return (), [report_error(source.at(1), "references.yaml must be a list of entries ('- key: ...')")]
    references: list[Reference] = []
    problems: list[Diagnostic] = []
    seen: dict[str, int] = {}
    for entry, node in zip(document.data, document.node.value):
        line = node.start_mark.line + 1
        if not isinstance(entry, dict):
            problems.append(report_error(source.at(line), "each reference must be a mapping of fields (key:, short:, ...)"))
            continue
        lines = key_lines(node)
        entry_problems = []
        for name in entry:
            if name not in REQUIRED + OPTIONAL:
                entry_problems.append(
                    report_error(
                        source.at(lines.get(str(name), line)),
                        f"unknown reference field '{excerpt(name)}'{suggest_name(str(name), REQUIRED + OPTIONAL)}",
                    )
                )
        for name in REQUIRED:
            if name not in entry:
                entry_problems.append(report_error(source.at(line), f"reference is missing required field '{name}'"))
        key = entry.get("key")
        if "key" in entry and (not isinstance(key, str) or not _KEY.match(key)):
            entry_problems.append(
                report_error(
                    source.at(lines["key"]), f"reference key must be lower-case letters, digits and '-', got {quote(key)}"
                )
            )
        if isinstance(key, str) and key in RESERVED_IDS:
            entry_problems.append(
                report_error(source.at(lines["key"]), f"reference key '{key}' is reserved by the page template; choose another")
            )
        authors = entry.get("authors")
        if "authors" in entry and (
            not isinstance(authors, list) or not authors or not all(isinstance(a, str) and a.strip() for a in authors)
        ):
            entry_problems.append(report_error(source.at(lines["authors"]), "reference field 'authors' must be a list of names"))
        year = entry.get("year")
        if "year" in entry and (isinstance(year, bool) or not isinstance(year, int)):
            entry_problems.append(
                report_error(source.at(lines["year"]), f"reference field 'year' must be a year, got {quote(year)}")
            )
        sections = entry.get("sections", {})
        if not isinstance(sections, dict) or not all(
            isinstance(anchor, str) and _KEY.match(anchor) and isinstance(title, str) and title.strip()
            for anchor, title in sections.items()
        ):
            entry_problems.append(
                report_error(
                    source.at(lines["sections"]),
                    "reference field 'sections' must map each anchor of the source's page to its section title "
                    "(trajectories: Trajectories)",
                )
            )
        for name in TEXT_FIELDS:
            value = entry.get(name)
            if name in entry and not isinstance(value, str):
                if name == "arxiv" and isinstance(value, float):
                    message = f"reference field 'arxiv' must be quoted text (\"{value}\"), or YAML reads it as a number"
                else:
                    message = f"reference field '{name}' must be text, got {quote(value)}"
                entry_problems.append(report_error(source.at(lines[name]), message))
        url = entry.get("url")
        if isinstance(url, str) and not is_web_address(url):
            entry_problems.append(
                report_error(
                    source.at(lines["url"]),
                    f"reference field 'url' must be an http:// or https:// address, got {quote(url)}",
                )
            )
        if isinstance(key, str) and key in seen:
            entry_problems.append(
                report_error(source.at(lines.get("key", line)), f"duplicate reference key '{key}' (first at line {seen[key]})")
            )
        problems += entry_problems
        if entry_problems:
            continue
        # No problems: the checks above made these what Reference needs.
        assert isinstance(key, str) and isinstance(authors, list) and isinstance(year, int)
        seen[key] = lines.get("key", line)
        references.append(
            Reference(
                key=key,
                short=entry["short"],
                authors=tuple(authors),
                year=year,
                title=entry["title"],
                url=entry["url"],
                venue=entry.get("venue", ""),
                arxiv=entry.get("arxiv", ""),
                note=entry.get("note", ""),
                sections=tuple(sections.items()),
                location=source.at(lines.get("key", line)),
            )
        )
    return tuple(references), problems
