"""Read YAML while keeping the line each key and value came from.

Every YAML file the tool reads (front matter, references.yaml, site.yaml)
goes through `read_yaml`, which refuses what an author never needs and a
hostile file would use: anchors and aliases (an alias "bomb" expands
exponentially when a value is printed), a key given twice in one mapping
(YAML itself lets the last one silently win), and control characters, which
a double-quoted string's escapes (`\\e`, `\\0`, `\\x07`) write and no page
can show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from sitegen.diagnostics import excerpt


@dataclass(frozen=True)
class YamlDocument:
    """Parsed YAML data and, for every mapping key, the 1-based file line it is on."""

    data: object
    node: yaml.Node | None


LONGEST_NUMBER = 100
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
# C0 and C1 controls and DEL; a tab and a line break are text (a block scalar holds line breaks).
CONTROL_CHARACTER = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# libyaml's loader when PyYAML was built with it: same results, several times faster.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlProblem(ValueError):
    """YAML that does not parse; `line` is 1-based within the YAML text."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def read_yaml(text: str) -> YamlDocument:
    """Parse YAML (safe subset, no anchors or aliases, no repeated keys) and keep its node tree for line numbers."""
    refuse_anchors(text)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            refuse_repeated_keys(node)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "not valid YAML"
        raise YamlProblem(problem, (mark.line + 1) if mark else 1) from None
    except YamlProblem:
        raise
    except (ValueError, OverflowError) as error:  # a scalar YAML types but Python cannot hold: 2001-13-45, a 5000-digit int
        line = find_unreadable_scalar(node) if node is not None else 1
        raise YamlProblem(f"a value cannot be read ({excerpt(str(error), 80)}); quote it to keep it as text", line) from None
    except (yaml.YAMLError, RecursionError) as error:  # e.g. a reader error on a control character, or absurd nesting
        raise YamlProblem(excerpt(str(error).splitlines()[0] if str(error) else "not valid YAML", 120), 1) from None
    finally:
        loader.dispose()
    return YamlDocument(data, node)


def refuse_anchors(text: str) -> None:
    """Fail at the first anchor (`&name`) or alias (`*name`): the files here never need them."""
    loader = _Loader(text)
    try:
        while (event := loader.get_event()) is not None:
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                raise YamlProblem(
                    "anchors and aliases (&name, *name) are not allowed; write the value out", event.start_mark.line + 1
                )
            if isinstance(event, yaml.StreamEndEvent):
                return
    except yaml.MarkedYAMLError:
        return  # read_yaml reports the syntax error with its line
    except yaml.YAMLError:
        return
    finally:
        loader.dispose()


def refuse_repeated_keys(root: yaml.Node) -> None:
    """Fail at the second occurrence of a key in any mapping (YAML would keep only the last value), at an absurdly long number,
    or at a key or value holding a control character."""
    pending = [root]
    while pending:
        node = pending.pop()
        if isinstance(node, yaml.MappingNode):
            first_lines: dict[str, int] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in first_lines:
                        line = key.start_mark.line + 1
                        above = line - first_lines[key.value]
                        where = f"{above} line{'s' if above != 1 else ''} above" if above else "earlier on this line"
                        raise YamlProblem(f"key '{excerpt(key.value)}' is given twice (first {where})", line)
                    first_lines[key.value] = key.start_mark.line + 1
                pending += [key, value]
        elif isinstance(node, yaml.SequenceNode):
            pending += node.value
        elif isinstance(node, yaml.ScalarNode) and (control := CONTROL_CHARACTER.search(node.value)):
            raise YamlProblem(
                f"a control character (U+{ord(control.group()):04X}) in '{excerpt(node.value)}'; "
                "escapes such as \\e, \\0 and \\x07 write characters no page can show: remove it",
                node.start_mark.line + 1,
            )
        elif node.tag in (_INT_TAG, _FLOAT_TAG) and len(node.value) > LONGEST_NUMBER:
            # Python cannot even print an int of 4300+ digits: no file here needs one.
            raise YamlProblem(
                f"a number {len(node.value)} characters long; the longest allowed is {LONGEST_NUMBER} (quote it to keep it as text)",
                node.start_mark.line + 1,
            )


def find_unreadable_scalar(root: yaml.Node) -> int:
    """Return the 1-based line of the first scalar whose value cannot be constructed (1 if none is found)."""
    pending = [root]
    while pending:
        node = pending.pop(0)
        if isinstance(node, yaml.ScalarNode):
            try:
                yaml.SafeLoader("").construct_object(node)
            except (ValueError, OverflowError, yaml.YAMLError):
                return node.start_mark.line + 1
        elif isinstance(node, yaml.MappingNode):
            pending += [part for pair in node.value for part in pair]
        elif isinstance(node, yaml.SequenceNode):
            pending += node.value
    return 1


def key_lines(node: yaml.Node | None) -> dict[str, int]:
    """Return {key: 1-based line} for a mapping node (empty for anything else)."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {str(key.value): key.start_mark.line + 1 for key, _value in node.value}
