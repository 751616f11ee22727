"""Numbers the prose asks the core for, `{{ name key=value }}`: what a value is, and how its parameters are read.

The syntax is the build's (sitegen/kinds/computed.py); the values
themselves are the core's, so the prose, the lab and the tests share one
source for every number. Each lab widget declares the values about its own
record (`Widget.values`, rollout_lab/widgets/); the registry (`VALUES`,
rollout_lab/computed/) holds those of the toy world and of the update, and
`list_values` gives both to the build. A parameter is given as the
author typed it; one that cannot be used raises `ParameterError`, whose
message is what the author reads after "bad parameter for computed value 'NAME': ".
"""

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rollout_lab.world import CANDIDATES


@dataclass(frozen=True)
class ValueDefinition:
    """A computed value's parameters (with defaults; None = required) and how to compute its text from them."""

    parameters: Mapping[str, str | None]
    compute: Callable[[dict[str, str]], str]


class ParameterError(ValueError):
    """A parameter of a computed value the core cannot use; the message is what the author reads."""


# The lab's rule for numbers: ASCII digits only (str.isdigit() would also take
# "３" or "²", and int() then fails with Python's own message, not ours).
_WHOLE_NUMBER = re.compile(r"[0-9]{1,9}")
# How long a quoted value may be before it is cut short (the build's diagnostics cut at the same length).
_QUOTE_LIMIT = 40


def read_whole_number(value: str) -> int | None:
    """Return the whole number written (ASCII digits, spaces around allowed), or None."""
    return int(value.strip()) if _WHOLE_NUMBER.fullmatch(value.strip()) else None


def quote_value(value: str) -> str:
    """Quote a value as the build's messages do: Python's repr, cut to 40 characters with an ellipsis."""
    text = repr(value)
    return text if len(text) <= _QUOTE_LIMIT else text[: _QUOTE_LIMIT - 1] + "\u2026"


def show_value(value: str) -> str:
    """Show a number as typed (got 7) and anything else quoted and cut short (got 'abc')."""
    return value.strip() if _WHOLE_NUMBER.fullmatch(value.strip()) else quote_value(value)


def read_candidate(value: str) -> int:
    """Return the candidate's index (0, 1 or 2), or raise ParameterError."""
    indices = [c.index for c in CANDIDATES]
    if read_whole_number(value) in indices:
        return int(value.strip())
    allowed = ", ".join(str(i) for i in indices[:-1]) + f" or {indices[-1]}"
    raise ParameterError(f"candidate must be {allowed}, got {show_value(value)}")


def read_places(value: str) -> int:
    """Return a number of decimal places, 0 to 10, or raise ParameterError."""
    number = read_whole_number(value)
    if number is not None and 0 <= number <= 10:
        return number
    raise ParameterError(f"places must be a whole number from 0 to 10, got {show_value(value)}")


def read_position(value: str, count: int, what: str) -> int:
    """Return a position from 1 to `count` (`what` says what is counted, for the message), or raise ParameterError."""
    number = read_whole_number(value)
    if number is not None and 1 <= number <= count:
        return number
    raise ParameterError(f"n must be a whole number from 1 to {count} ({what}), got {show_value(value)}")
