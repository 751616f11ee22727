"""Read YAML while keeping the line each key and value came from."""

from __future__ import annotations

from dataclasses import dataclass

import yaml


@dataclass(frozen=True)
class YamlDocument:
    """Parsed YAML data and, for every mapping key, the 1-based file line it is on."""

    data: object
    node: yaml.Node | None


# libyaml's loader when PyYAML was built with it: same results, several times faster.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlProblem(ValueError):
    """YAML that does not parse; `line` is 1-based within the YAML text."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def read_yaml(text: str) -> YamlDocument:
    """Parse YAML (safe subset) and keep its node tree for line numbers."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "not valid YAML"
        raise YamlProblem(problem, (mark.line + 1) if mark else 1) from None
    finally:
        loader.dispose()
    return YamlDocument(data, node)


def key_lines(node: yaml.Node | None) -> dict[str, int]:
    """Return {key: 1-based line} for a mapping node (empty for anything else)."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {str(key.value): key.start_mark.line + 1 for key, _value in node.value}
