"""How the toy's numbers are written for readers.

The build's templates and the browser lab both format through these
functions (the browser calls them inside Pyodide), so a number can never be
shown one way at first paint and another way once the lab is live.
"""

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from rollout_lab.exact import CONTEXT, add_in_order, exact_decimal, round_to_places
from rollout_lab.statistics import GroupStatistics
from rollout_lab.world import CANDIDATES

MINUS = "\u2212"  # a true minus sign: as wide as the plus, read as "minus" by screen readers


def _text(number: Decimal) -> str:
    text = format(number, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    return text.replace("-", MINUS)


def format_number(value: float, places: int = 4) -> str:
    """Write a value with at most `places` decimals and no trailing zeros: 0.75, 0.6875, 0.5833."""
    return _text(round_to_places(value, places))


def format_exact(value: float) -> str:
    """Write a checked setting the shortest exact way: 1, 0.5, 20 (never 1.0 or 2E+1)."""
    # normalize() rounds to its context's precision: use the core's fixed
    # context, not whatever the host page or build set as the ambient one.
    text = format(exact_decimal(float(value)).normalize(CONTEXT), "f")
    return "0" if text in ("-0", "") else text


def format_signal(value: float, places: int = 4) -> str:
    """Write a centred signal with its sign: +0.25, 0, −0.75."""
    text = format_number(value, places)
    return text if text == "0" or text.startswith(MINUS) else "+" + text


def _percent_text(rounded_percent: Decimal) -> str:
    # A no-break space keeps "%" on the line of its number.
    return f"{format(rounded_percent, 'f')}\u00a0%"


def format_percent(probability: float, places: int = 2) -> str:
    """Write a probability as a percentage with fixed decimals: 58.96 %."""
    return _percent_text(round_to_places(probability * 100, places))


def format_logit(logit: float) -> str:
    """Write a logit to one fixed decimal, as the toy world's table does: 2.0, 1.2."""
    return format(round_to_places(logit, 1), "f")


def format_fixed(value: float, places: int = 4) -> str:
    """Write a value to `places` fixed decimals, so a column's numbers line up and read alike: 0.9400, 0.1642."""
    return _text_fixed(round_to_places(value, places))


def format_fixed_signal(value: float, places: int = 4) -> str:
    """Write a signed value to fixed decimals, for a table's column: +0.1040, 0.0000, −0.2424."""
    text = format_fixed(value, places)
    return text if text.startswith(MINUS) or not round_to_places(value, places) else "+" + text


def _text_fixed(number: Decimal) -> str:
    text = format(number, "f")
    return (text[1:] if text.startswith("-") and not number else text).replace("-", MINUS)


def format_u(u: float) -> str:
    """Write a generator output to four fixed decimals: 0.3982, 0.6670."""
    return format(round_to_places(u, 4), "f")


def present_probabilities(probabilities: Sequence[float], places: int = 2) -> dict[str, Any]:
    """Return the probability table's text, including the total of the rounded entries."""
    rounded = [round_to_places(p * 100, places) for p in probabilities]
    shown_total = add_in_order(rounded)
    return {
        "rows": [
            {
                "index": candidate.index,
                "completion": candidate.completion,
                "logit": format_logit(candidate.logit),
                "reward": format_number(candidate.reward),
                "probability": _percent_text(r),
            }
            for candidate, r in zip(CANDIDATES, rounded)
        ],
        "shown_total": _percent_text(shown_total),
        "total_is_exact": shown_total == 100,
    }


def present_group(statistics: GroupStatistics) -> dict[str, Any]:
    """Return the group calculator's text: each reward with its signal, and the mean."""
    return {
        "rows": [
            {"position": position, "reward": format_number(reward), "signal": format_signal(signal)}
            for position, (reward, signal) in enumerate(zip(statistics.rewards, statistics.signals), start=1)
        ],
        "mean": format_number(statistics.mean),
    }


def present_lab(record: dict[str, Any]) -> dict[str, Any]:
    """Return the sampling lab's text for one record: the group table, its mean and the probabilities."""
    return {
        "settings": {
            "temperature": format_number(record["settings"]["temperature"], 4),
            "group_size": str(record["settings"]["group_size"]),
            "seed": str(record["settings"]["seed"]),
        },
        "draws": [
            {
                "draw": str(draw["draw"]),
                "u": format_u(draw["u"]),
                "completion": draw["completion"],
                "reward": format_number(draw["reward"]),
                "signal": format_signal(draw["signal"]),
            }
            for draw in record["draws"]
        ],
        "mean": format_number(record["mean"]),
        "probabilities": present_probabilities([c["probability"] for c in record["candidates"]]),
    }
