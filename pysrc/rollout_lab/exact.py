"""Decimal arithmetic that ignores the thread's ambient decimal context.

Code sharing the interpreter (the site build, the browser page, a test) may
change `decimal.getcontext()`; every decimal operation in the core therefore
goes through this fixed context so records never depend on it. Fifty digits
leave the decimal error far below a float's last bit.
"""

from collections.abc import Iterable
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Context, Decimal

CONTEXT = Context(prec=50, rounding=ROUND_HALF_EVEN)


def exact_decimal(value: float) -> Decimal:
    """Return the decimal a person wrote for this float: the shortest repr that round-trips (1.2, not 1.1999…)."""
    return Decimal(repr(value))


def add_in_order(values: Iterable[Decimal]) -> Decimal:
    """Sum decimals left to right in the fixed context."""
    total = Decimal(0)
    for value in values:
        total = CONTEXT.add(total, value)
    return total


def round_to_places(value: float, places: int) -> Decimal:
    """Round a float's written decimal to `places` decimals, ties away from zero.

    Ties away from zero is the rounding readers learn at school: a mean of
    0.65625 shows as 0.6563, not the banker's 0.6562.
    """
    return exact_decimal(value).quantize(Decimal(1).scaleb(-places, CONTEXT), ROUND_HALF_UP, CONTEXT)


# Fifty digits leave a sum that is exactly 0 on paper (two ways to the same reward) at 2e-50, say; a result rounded to
# 30 places before its one conversion to float keeps every digit a float can hold and prints such a zero as 0.
PLACES = Decimal("1e-30")


def float_from_decimal(value: Decimal) -> float:
    """Return a decimal result as a float, rounded to 30 places first (−0.0 becomes 0.0)."""
    return float(value.quantize(PLACES, context=CONTEXT)) + 0.0
