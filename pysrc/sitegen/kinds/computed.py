"""Numbers in the prose computed by the core: `{{ mean T=1 K=3 }}` and friends.

An author never types a toy number by hand, so the prose cannot drift from
the lab. The values themselves are the core's registry
(`rollout_lab.computed.list_values`: the world's and the update's, with each
lab widget's `values`); every one is formatted by the core's own display
functions.

The convention's build side is here: the markdown-it rule that reads `{{ … }}`
(`add_computed_values`), looking a value up and computing it while the page
is parsed (`compute_value`, called by parse.py, which stores the text in the
token) and writing it (`render_computed_value`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from rollout_lab.computed import list_values
from rollout_lab.values import ParameterError
from sitegen.diagnostics import Finding, excerpt, finding, suggest_name
from sitegen.messages import (
    BAD_COMPUTED_PARAMETER,
    COMPUTED_PARAMETER_TWICE,
    EMPTY_COMPUTED_VALUE,
    MALFORMED_COMPUTED_PARAMETER,
    MISSING_COMPUTED_PARAMETER,
    UNKNOWN_COMPUTED_PARAMETER,
    UNKNOWN_COMPUTED_VALUE,
)
from sitegen.session import SESSION

COMPUTED_VALUE = "computed_value"  # the inline token's type


class ComputedValueError(ValueError):
    """A `{{ ... }}` the core cannot compute; the problem is what the author reads."""

    def __init__(self, problem: Finding) -> None:
        super().__init__(problem.text())
        self.problem = problem


def split_settings(words: list[str]) -> tuple[dict[str, str], list[str], list[str]]:
    """Read `key=value` words into a dict; return it, the words that are not key=value, and the keys given more than once."""
    settings: dict[str, str] = {}
    malformed = []
    repeated = []
    for word in words:
        key, equals, value = word.partition("=")
        if not equals or not key:
            malformed.append(word)
        elif key in settings:
            repeated.append(key)
        else:
            settings[key] = value
    return settings, malformed, repeated


# Each expression's text, computed once per process (the dev server's build process lives as long as the code does: an
# edit under pysrc/ restarts it) and seeded from the tool's cache by a build (render/core_results.py). Errors are not kept.
_COMPUTED: dict[str, str] = SESSION.keep("computed values", {})


def compute_value(expression: str) -> str:
    """Return the text of `name key=value ...`, or raise ComputedValueError saying what is wrong."""
    text = _COMPUTED.get(expression)
    if text is None:
        text = _COMPUTED[expression] = _compute(expression)
    return text


def remember_computed_values(values: Mapping[str, str]) -> None:
    """Take these texts as computed (the kept results of this very code)."""
    _COMPUTED.update(values)


def list_computed_values() -> dict[str, str]:
    """Return every text computed or remembered in this process, by expression."""
    return dict(_COMPUTED)


def _compute(expression: str) -> str:
    words = expression.split()
    if not words:
        raise ComputedValueError(finding(EMPTY_COMPUTED_VALUE))
    name, rest = words[0], words[1:]
    definitions = list_values()
    definition = definitions.get(name)
    if definition is None:
        raise ComputedValueError(
            finding(UNKNOWN_COMPUTED_VALUE, name=excerpt(name), suggestion=suggest_name(name[:40], definitions))
        )
    given, malformed, repeated = split_settings(rest)
    expected = ", ".join(definition.parameters) or "none"
    if malformed:
        raise ComputedValueError(finding(MALFORMED_COMPUTED_PARAMETER, name=name, word=excerpt(malformed[0])))
    if repeated:
        raise ComputedValueError(finding(COMPUTED_PARAMETER_TWICE, name=name, key=excerpt(repeated[0])))
    for key in given:
        if key not in definition.parameters:
            raise ComputedValueError(finding(UNKNOWN_COMPUTED_PARAMETER, name=name, key=excerpt(key), parameters=expected))
    for key, default in definition.parameters.items():
        if default is None and key not in given:
            raise ComputedValueError(finding(MISSING_COMPUTED_PARAMETER, name=name, key=key))
    # Every parameter without a default was given (checked above), so no value is None.
    settings = {key: value for key, default in definition.parameters.items() if (value := given.get(key, default)) is not None}
    try:
        return definition.compute(settings)
    except ParameterError as error:
        raise ComputedValueError(finding(BAD_COMPUTED_PARAMETER, name=name, problem=error)) from None
    except ValueError as error:  # the core's SettingError: its message names the setting and range (and echoes the value)
        raise ComputedValueError(finding(BAD_COMPUTED_PARAMETER, name=name, problem=excerpt(str(error), 160))) from None


# --- the syntax: {{ name key=value }} ----------------------------------------


def parse_computed_value(state: StateInline, silent: bool) -> bool:
    """Inline rule: read `{{ name key=value ... }}` into a `computed_value` token."""
    start = state.pos
    if not state.src.startswith("{{", start):
        return False
    end = _next_after(state, "}}", start + 2)
    line_end = _next_after(state, "\n", start)
    if end == -1 or start <= line_end < end:
        return False
    if not silent:
        token = state.push(COMPUTED_VALUE, "", 0)
        token.content = state.src[start + 2 : end].strip()
        token.markup = state.src[start : end + 2]
    state.pos = end + 2
    return True


def _next_after(state: StateInline, needle: str, position: int) -> int:
    """Return the first index of needle at or after position (-1 if none), remembering it for this block.

    A line of ten thousand `{{` with no `}}` would otherwise be scanned to its
    end once per `{{`; the rule's positions only grow, so remembering the last
    answer keeps the whole scan linear.
    """
    memo = state.__dict__.setdefault("_rollouts_next_match", {})
    searched_from, found = memo.get(needle, (None, -1))
    if searched_from is None or position < searched_from or (found != -1 and found < position):
        found = state.src.find(needle, position)
        memo[needle] = (position, found)
    return int(found)


def render_computed_value(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """Write a computed value as escaped plain text (parse put the text into meta)."""
    return escape(str(tokens[index].meta.get("text", tokens[index].markup)), quote=False)


def add_computed_values(md: MarkdownIt) -> None:
    """Teach a parser `{{ … }}`: the inline rule and its render rule."""
    md.inline.ruler.before("text", COMPUTED_VALUE, parse_computed_value)
    md.add_render_rule(COMPUTED_VALUE, render_computed_value)
