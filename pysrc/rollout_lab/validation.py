"""Turn what a reader or author typed into checked settings, or say exactly what is wrong.

Every message names the field, the allowed range and the value given, because
the same text is shown next to the control in the browser and printed by the
build for a bad lab slot. Messages are sentences (a capital first letter) and
set negative numbers with the page's minus sign (−1000, not -1000).
"""

import math
import re

from rollout_lab.world import (
    CLIP_RANGE,
    EPOCHS_RANGE,
    GROUP_SIZE_RANGE,
    KL_WEIGHT_RANGE,
    LAMBDA_RANGE,
    LEARNING_RATE_RANGE,
    REWARD_COUNT_RANGE,
    REWARD_RANGE,
    ROUNDS_RANGE,
    SEED_RANGE,
    SIGNAL_RULES,
    TEMPERATURE_RANGE,
)

# float() and int() also accept "1_000", "nan", "infinity", non-ASCII digits
# such as "１２３" and surrounding whitespace of many kinds; readers should get
# one plain notation instead.
_DECIMAL_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,30}")
# 0,5 or −1,25: a decimal comma, refused with a hint to type a point.
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]+,[0-9]+")


class SettingError(ValueError):
    """A bad lab setting; `field` says which control it belongs to."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


# The page sets negative numbers with a minus sign (U+2212), not a hyphen; so do the messages shown beside it.
_MINUS = "\u2212"


def _number(text: str) -> str:
    """Typeset a number as the page does: −1, not -1 (the exponent's sign too: 1e−3)."""
    return text.replace("-", _MINUS)


# A message shows at most this many characters of the value it is about (as the build's messages do): a
# 100,000-character value pasted into a lab must not come back whole.
SHOWN_LIMIT = 40


def _cut(text: str) -> str:
    """Return text cut to SHOWN_LIMIT characters, the last one an ellipsis when anything was left out."""
    return text if len(text) <= SHOWN_LIMIT else text[: SHOWN_LIMIT - 1] + "\u2026"


def _show(value: object) -> str:
    """Show a number as typed (−1, 2.5) and anything else in quotation marks (“abc”) or as Python writes it (None),
    at most SHOWN_LIMIT characters of it."""
    if isinstance(value, str):
        text = value.strip()
        return _cut(_number(text)) if _DECIMAL_NUMBER.fullmatch(text) else f"\u201c{_cut(value)}\u201d"
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return _cut(_number(repr(value)))
        return _cut(repr(value))
    except ValueError:  # an int past Python's 4,300 digits has no repr
        return f"a {type(value).__name__} too long to show"


def _magnitude(value: object) -> float | None:
    """The value as a float to compare with a range (±inf beyond floats), or None when it is no number at all."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return float(value) if abs(value) <= 2**53 else (math.inf if value > 0 else -math.inf)
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, str) and _DECIMAL_NUMBER.fullmatch(value.strip()):
        return float(value.strip())
    return None


def _what_is_wrong(value: object, allowed: tuple[float, float], decimals: bool = False) -> str:
    """Say in a reader's words why a value was refused: nothing entered, not a number, too low, too high, not whole.

    `decimals`: the field takes decimals, so 0,5 was meant as 0.5 (in a whole-number field 1,000 was not).
    """
    low, high = allowed
    if isinstance(value, str) and not value.strip():
        return "nothing was entered"
    magnitude = _magnitude(value)
    if magnitude is None and decimals and isinstance(value, str) and _DECIMAL_COMMA.fullmatch(value.strip()):
        # A decimal comma, as many readers write 0,5: name the fix, not only the fault.
        return f"{_show(value)} is not a number (type a point: {_cut(_number(value.strip().replace(',', '.')))})"
    if magnitude is None:
        return f"{_show(value)} is not a number"
    if magnitude < low:
        return f"{_show(value)} is too low"
    if magnitude > high:
        return f"{_show(value)} is too high"
    return f"{_show(value)} is not a whole number"


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


def check_number(value: object, field: str, allowed: tuple[float, float], label: str = "") -> float:
    """Return a number from the range `allowed` as a float, or raise SettingError naming `field` (its label: the field's name)."""
    low, high = allowed
    number = _as_float(value)
    if number is None or not math.isfinite(number) or not low <= number <= high:
        label = label or field.replace("_", " ").capitalize()
        raise SettingError(
            field, f"{label} must be a number from {low:g} to {high:g}; {_what_is_wrong(value, allowed, decimals=True)}"
        )
    return number


def check_temperature(value: object) -> float:
    """Return the temperature as a float, or raise ValueError naming the allowed range."""
    return check_number(value, "temperature", TEMPERATURE_RANGE)


def check_whole_number(value: object, field: str, allowed: tuple[int, int], label: str = "") -> int:
    """Return a whole number from the range `allowed` as an int, or raise SettingError naming `field`."""
    low, high = allowed
    number = _as_int(value)
    if number is None or not low <= number <= high:
        label = label or field.replace("_", " ").capitalize()
        raise SettingError(field, f"{label} must be a whole number from {low} to {high}; {_what_is_wrong(value, allowed)}")
    return number


def check_group_size(value: object) -> int:
    """Return the group size as an int, or raise ValueError naming the allowed range."""
    return check_whole_number(value, "group_size", GROUP_SIZE_RANGE)


def check_seed(value: object) -> int:
    """Return the seed as an int, or raise ValueError naming the allowed range."""
    return check_whole_number(value, "seed", SEED_RANGE)


def parse_rewards(value: object) -> tuple[float, ...]:
    """Read rewards from a comma-separated string or a list of numbers, or raise ValueError."""
    low, high = REWARD_COUNT_RANGE
    smallest, largest = REWARD_RANGE
    rule = f"Rewards must be {low} to {high} numbers from {_number(f'{smallest:g}')} to {largest:g}, separated by commas"
    if isinstance(value, str):
        if not value.strip():
            raise SettingError("rewards", f"{rule}; nothing was entered")
        parts: list[object] = [part.strip() for part in value.split(",")]
        if "" in parts:
            # "1,,2" or a trailing comma is a typo, not a shorter list
            raise SettingError("rewards", f"{rule}; {_show(value)} has an empty entry")
    elif isinstance(value, (list, tuple)):
        parts = list(value)
    else:
        raise SettingError("rewards", f"{rule}; {_show(value)} is not a list of numbers")
    if not low <= len(parts) <= high:
        raise SettingError("rewards", f"{rule}; {len(parts)} numbers were entered")
    rewards = []
    for part in parts:
        number = _as_float(part)
        if number is None or not smallest <= number <= largest:
            raise SettingError("rewards", f"{rule}; {_what_is_wrong(part, REWARD_RANGE)}")
        rewards.append(number)
    return tuple(rewards)


def check_rounds(value: object) -> int:
    """Return the number of training rounds as an int, or raise SettingError naming the allowed range."""
    return check_whole_number(value, "rounds", ROUNDS_RANGE)


def check_epochs(value: object) -> int:
    """Return the number of update epochs per round as an int, or raise SettingError naming the allowed range."""
    return check_whole_number(value, "epochs", EPOCHS_RANGE)


def check_learning_rate(value: object) -> float:
    """Return the learning rate as a float, or raise SettingError naming the allowed range."""
    return check_number(value, "learning_rate", LEARNING_RATE_RANGE)


def check_clip(value: object) -> float:
    """Return the clip range epsilon as a float, or raise SettingError naming the allowed range."""
    return check_number(value, "clip", CLIP_RANGE)


def check_kl_weight(value: object) -> float:
    """Return the KL weight beta as a float, or raise SettingError naming the allowed range."""
    return check_number(value, "kl_weight", KL_WEIGHT_RANGE, label="KL weight")


def check_choice(value: object, field: str, names: tuple[str, ...], label: str = "") -> str:
    """Return one of `names` (as typed, ignoring case and surrounding spaces), or raise SettingError naming `field`."""
    label = label or field.replace("_", " ").capitalize()
    listed = ", ".join("\u201c" + name + "\u201d" for name in names[:-1]) + " or " if len(names) > 1 else ""
    rule = f"{label} must be {listed}\u201c{names[-1]}\u201d"
    if isinstance(value, str) and value.strip().lower() in names:
        return value.strip().lower()
    if isinstance(value, str) and not value.strip():
        raise SettingError(field, f"{rule}; nothing was chosen")
    shown = _show(value) if not isinstance(value, str) else f"\u201c{_cut(value)}\u201d"
    raise SettingError(field, f"{rule}; {shown} is not one of them")


def check_signal_rule(value: object) -> str:
    """Return "mean" or "std" (as typed, ignoring case and surrounding spaces), or raise SettingError."""
    return check_choice(value, "signal_rule", SIGNAL_RULES)


def check_lambda(value: object) -> float:
    """Return GAE's λ as a float, or raise SettingError naming the allowed range."""
    return check_number(value, "lam", LAMBDA_RANGE, label="Lambda (\u03bb)")
