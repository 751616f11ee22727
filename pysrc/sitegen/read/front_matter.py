"""The YAML block at the top of each Markdown page: read it and check its fields."""

from __future__ import annotations

from markdown_it.token import Token

from sitegen.diagnostics import Diagnostic, excerpt, report, suggest_name
from sitegen.messages import (
    BAD_FRONT_MATTER_FIELD,
    FRONT_MATTER_NOT_MAPPING,
    FRONT_MATTER_NOT_YAML,
    MISSING_FRONT_MATTER,
    MISSING_FRONT_MATTER_FIELD,
    UNKNOWN_FRONT_MATTER_FIELD,
)
from sitegen.model import FrontMatter, Source
from sitegen.read.schema import Field, FieldError, Text, WholeNumber
from sitegen.read.yaml_source import YamlProblem, key_lines, read_yaml


def read_front_matter(
    source: Source, tokens: list[Token], expected: tuple[str, ...], chapter_count: int
) -> tuple[FrontMatter, list[Diagnostic]]:
    """Check the page's front matter against the fields its kind takes (`PageKind.fields`, all required).

    Returns the fields and the problems.
    """
    problems: list[Diagnostic] = []
    first = tokens[0] if tokens else None
    if first is None or first.type != "front_matter":
        fields = ", ".join(f"{name}:" for name in expected)
        return FrontMatter(None, None, None, 1), [report(source.at(1), MISSING_FRONT_MATTER, fields=fields)]
    # The YAML starts on the line after the opening '---'.
    offset = first.map[0] + 1 if first.map else 1
    try:
        document = read_yaml(first.content)
    except YamlProblem as problem:
        return FrontMatter(None, None, None, 1), [
            report(source.at(offset + problem.line), FRONT_MATTER_NOT_YAML, problem=problem)
        ]
    data = document.data if isinstance(document.data, dict) else {}
    if document.data is not None and not isinstance(document.data, dict):
        problems.append(report(source.at(offset + 1), FRONT_MATTER_NOT_MAPPING))
    lines = {key: offset + line for key, line in key_lines(document.node).items()}
    for key in data:
        if key not in expected:
            problems.append(
                report(
                    source.at(lines.get(str(key), offset)),
                    UNKNOWN_FRONT_MATTER_FIELD,
                    name=excerpt(key),
                    suggestion=suggest_name(str(key), expected),
                )
            )
    missing_line = offset
    values: dict[str, object] = {}
    for name in expected:
        if name not in data:
            problems.append(report(source.at(missing_line), MISSING_FRONT_MATTER_FIELD, name=name))
            continue
        value = data[name]
        field: Field[object] = WholeNumber(1, chapter_count) if name == "chapter" else Text()
        try:
            values[name] = field.check(value)
        except FieldError as error:
            problems.append(
                report(source.at(lines.get(name, offset)), BAD_FRONT_MATTER_FIELD, name=name, rule=error.describe(value))
            )
    title, lede, chapter = values.get("title"), values.get("lede"), values.get("chapter")
    return (
        FrontMatter(
            title=title if isinstance(title, str) else None,
            lede=lede if isinstance(lede, str) else None,
            chapter=chapter if isinstance(chapter, int) else None,
            chapter_line=lines.get("chapter", offset),
        ),
        problems,
    )
