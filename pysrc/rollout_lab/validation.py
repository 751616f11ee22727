"""Turn what a reader or author typed into checked settings, or say exactly what is wrong.

Every message names the field, the allowed range and the value given, because
the same text is shown next to the control in the browser and printed by the
build for a bad lab slot.
"""

import math
import re

from rollout_lab.world import GROUP_SIZE_RANGE, REWARD_COUNT_RANGE, REWARD_RANGE, SEED_RANGE, TEMPERATURE_RANGE

# float() and int() also accept "1_000", "nan", "infinity", non-ASCII digits
# such as "１２３" and surrounding whitespace of many kinds; readers should get
# one plain notation instead.
_DECIMAL_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,30}")


class SettingError(ValueError):
    """A bad lab setting; `field` says which control it belongs to."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _describe(value: object) -> str:
    """Show a number as typed (got -1) and anything else quoted (got 'abc', got '')."""
    if isinstance(value, str) and _DECIMAL_NUMBER.fullmatch(value.strip()):
        return value.strip()
    return repr(value)


def _as_float(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        return value
    if isinstance(value, int):
        return float(value) if abs(value) <= 2**53 else None
    if isinstance(value, str) and _DECIMAL_NUMBER.fullmatch(value.strip()):
        return float(value.strip())
    return None


def _as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value.strip()):
        return int(value.strip())
    return None


def check_temperature(value: object) -> float:
    """Return the temperature as a float, or raise ValueError naming the allowed range."""
    low, high = TEMPERATURE_RANGE
    number = _as_float(value)
    if number is None or not math.isfinite(number) or not low <= number <= high:
        raise SettingError("temperature", f"temperature must be a number from {low:g} to {high:g}, got {_describe(value)}")
    return number


def _check_whole_number(value: object, field: str, allowed: tuple[int, int]) -> int:
    low, high = allowed
    number = _as_int(value)
    if number is None or not low <= number <= high:
        label = field.replace("_", " ")
        raise SettingError(field, f"{label} must be a whole number from {low} to {high}, got {_describe(value)}")
    return number


def check_group_size(value: object) -> int:
    """Return the group size as an int, or raise ValueError naming the allowed range."""
    return _check_whole_number(value, "group_size", GROUP_SIZE_RANGE)


def check_seed(value: object) -> int:
    """Return the seed as an int, or raise ValueError naming the allowed range."""
    return _check_whole_number(value, "seed", SEED_RANGE)


def parse_rewards(value: object) -> tuple[float, ...]:
    """Read rewards from a comma-separated string or a list of numbers, or raise ValueError."""
    low, high = REWARD_COUNT_RANGE
    smallest, largest = REWARD_RANGE
    if isinstance(value, str):
        parts: list[object] = [part for part in (p.strip() for p in value.split(",")) if part != ""]
        if value.strip() and len(parts) != len(value.split(",")):
            parts = []  # an empty entry such as "1,,2" is a typo, not a shorter list
    elif isinstance(value, (list, tuple)):
        parts = list(value)
    else:
        parts = []
    rewards = [_as_float(part) for part in parts]
    if not low <= len(rewards) <= high or any(r is None or not smallest <= r <= largest for r in rewards):
        raise SettingError(
            "rewards",
            f"rewards must be {low} to {high} numbers from {smallest:g} to {largest:g}, separated by commas,"
            f" got {_describe(value)}",
        )
    return tuple(r for r in rewards if r is not None)  # none is None: checked above
