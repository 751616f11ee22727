"""How numbers are written for readers: one table per formatting function."""

import decimal

import pytest

from rollout_lab import (
    format_number,
    format_percent,
    format_signal,
    format_u,
    group_statistics,
    present_group,
    run_lab,
)
from rollout_lab.widgets import render_widget

MINUS = "\u2212"
NBSP = "\u00a0"


@pytest.mark.parametrize(
    ("value", "places", "text"),
    [
        (0.75, 4, "0.75"),
        (0.6875, 4, "0.6875"),
        (0.9166666666666666, 4, "0.9167"),
        (0.65625, 4, "0.6563"),  # a tie: rounded away from zero, as taught at school
        (-0.65625, 4, f"{MINUS}0.6563"),
        (0.65, 4, "0.65"),
        (1.0, 4, "1"),
        (0.0, 4, "0"),
        (-0.0, 4, "0"),
        (-0.00001, 4, "0"),  # rounds to zero: no "−0"
        (-0.75, 4, f"{MINUS}0.75"),
        (20.0, 4, "20"),
        (0.5896483941044577, 4, "0.5896"),
        (0.5896483941044577, 2, "0.59"),
        (1.2, 1, "1.2"),
    ],
)
def test_format_number(value, places, text):
    assert format_number(value, places) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.25, "+0.25"),
        (0.0, "0"),
        (-0.0, "0"),
        (-0.75, f"{MINUS}0.75"),
        (0.00004, "0"),
        (-0.00004, "0"),
        (0.35, "+0.35"),
        (-0.05, f"{MINUS}0.05"),
        (-0.16666666666666666, f"{MINUS}0.1667"),
    ],
)
def test_format_signal(value, text):
    assert format_signal(value) == text


@pytest.mark.parametrize(
    ("probability", "text"),
    [
        (0.5896483941044577, f"58.96{NBSP}%"),
        (1.0, f"100.00{NBSP}%"),
        (0.0, f"0.00{NBSP}%"),
        (0.00004, f"0.00{NBSP}%"),
        (0.1454055037792031, f"14.54{NBSP}%"),
    ],
)
def test_format_percent(probability, text):
    assert format_percent(probability) == text


@pytest.mark.parametrize(
    ("u", "text"),
    [(0.03125, "0.0313"), (0.3982014269568026, "0.3982"), (0.666980880079791, "0.6670"), (0.0, "0.0000"), (0.99999, "1.0000")],
)
def test_format_u(u, text):
    assert format_u(u) == text


def test_present_group_rows():
    assert present_group(group_statistics("1, 0.75, 0, 1")) == {
        "rows": [
            {"position": 1, "reward": "1", "signal": "+0.3125"},
            {"position": 2, "reward": "0.75", "signal": "+0.0625"},
            {"position": 3, "reward": "0", "signal": f"{MINUS}0.6875"},
            {"position": 4, "reward": "1", "signal": "+0.3125"},
        ],
        "mean": "0.6875",
    }


# Both found while writing these tests and fixed in the core (56ef29e).


@pytest.mark.parametrize(
    ("rewards", "mean", "signals"),
    [
        ("1000, -1000, 0", "0", ["+1000", f"{MINUS}1000", "0"]),
        ("1000, 999.999", "999.9995", ["+0.0005", f"{MINUS}0.0005"]),
        ("0.0001, 0.0002, 0.0004", "0.0002", [f"{MINUS}0.0001", "0", "+0.0002"]),
    ],
)
def test_calculator_shows_every_group_it_accepts(rewards, mean, signals):
    # Before the fix, parse_rewards accepted any finite number and display
    # rounding ran in the ambient 28-digit context: "1e24" raised
    # decimal.InvalidOperation (not a ValueError) and the calculator crashed.
    shown = present_group(group_statistics(rewards))
    assert (shown["mean"], [row["signal"] for row in shown["rows"]]) == (mean, signals)


def test_records_do_not_depend_on_the_ambient_decimal_context():
    expected = run_lab()
    expected_text = present_group(group_statistics([1, 0.75, 0, 1]))
    # 1.23456 needs six digits: normalize() in a 2-digit context would show 1.2.
    widget_settings = {"temperature": "1.23456", "group_size": "6", "seed": "1"}
    expected_widget = render_widget("sampler", widget_settings)
    with decimal.localcontext() as context:
        # Any code sharing the interpreter (the site build, the browser page)
        # may change the thread's decimal context; the core must not care.
        context.prec = 2
        context.rounding = decimal.ROUND_DOWN
        assert run_lab() == expected
        assert group_statistics([1, 0.75, 0, 1]).mean == 0.6875
        assert present_group(group_statistics([1, 0.75, 0, 1])) == expected_text
        assert render_widget("sampler", widget_settings) == expected_widget
