"""Properties over the whole input domain: T in [0.05, 20], K in [1, 64], seed in [0, 2**32 - 1].

No deadline: the same tests run inside Pyodide, which is several times slower
than CPython and would trip hypothesis' default 200 ms per example. Inside
Pyodide half as many examples keep the node run short; CPython runs them all.
"""

import math
import sys

from hypothesis import given, settings, strategies as st

from rollout_lab import (
    CANDIDATES,
    SettingError,
    check_group_size,
    check_seed,
    check_temperature,
    group_statistics,
    present_group,
    run_lab,
    softmax_probabilities,
)

PROPERTY = settings(deadline=None, max_examples=100 if sys.platform == "emscripten" else 200)

temperatures = st.floats(min_value=0.05, max_value=20.0)
# Readers type decimals; the core reads them as written (e.g. "7.77").
typed_temperatures = st.decimals(min_value="0.05", max_value="20", places=3).map(str)
group_sizes = st.integers(min_value=1, max_value=64)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


@PROPERTY
@given(temperatures)
def test_probabilities_sum_to_one_and_follow_the_logits(temperature):
    probabilities = softmax_probabilities(temperature)
    assert abs(math.fsum(probabilities) - 1.0) <= 1e-15
    # Logits 2.0 > 1.2 > 0.6, so probabilities are strictly ordered the same way.
    assert probabilities[0] > probabilities[1] > probabilities[2] > 0


@PROPERTY
@given(temperatures, temperatures)
def test_raising_temperature_never_raises_the_top_probability(first, second):
    lower, higher = sorted((first, second))
    assert softmax_probabilities(higher)[0] <= softmax_probabilities(lower)[0]


@PROPERTY
@given(st.one_of(temperatures, typed_temperatures), group_sizes, seeds)
def test_record_is_consistent(temperature, group_size, seed):
    record = run_lab(temperature, group_size, seed)
    draws = record["draws"]
    assert record["settings"] == {"temperature": float(temperature), "group_size": group_size, "seed": seed}
    assert [d["draw"] for d in draws] == list(range(1, group_size + 1))
    assert all(0 <= d["u"] < 1 for d in draws)
    for draw in draws:
        candidate = CANDIDATES[draw["index"]]
        assert (draw["completion"], draw["reward"]) == (candidate.completion, candidate.reward)
    rewards = [d["reward"] for d in draws]
    assert math.isclose(record["mean"], math.fsum(rewards) / group_size, rel_tol=1e-15)
    # Signals are computed exactly and rounded once each; their float sum is ~0.
    assert abs(math.fsum(d["signal"] for d in draws)) <= 1e-15 * group_size
    for draw in draws:
        assert math.isclose(draw["signal"], draw["reward"] - record["mean"], rel_tol=1e-15, abs_tol=1e-16)


@PROPERTY
@given(temperatures, group_sizes, st.integers(min_value=1, max_value=63), seeds)
def test_a_group_is_the_first_draws_of_any_larger_group(temperature, group_size, extra, seed):
    larger_size = min(group_size + extra, 64)
    smaller = run_lab(temperature, group_size, seed)["draws"]
    larger = run_lab(temperature, larger_size, seed)["draws"][:group_size]
    # Signals depend on the group's mean; everything else about a draw is prospective.
    without_signal = [{k: v for k, v in d.items() if k != "signal"} for d in smaller]
    assert without_signal == [{k: v for k, v in d.items() if k != "signal"} for d in larger]


rewards_lists = st.lists(st.floats(min_value=-1000, max_value=1000), min_size=1, max_size=64)


@PROPERTY
@given(rewards_lists)
def test_signals_sum_to_about_zero(rewards):
    statistics = group_statistics(rewards)
    scale = max(1.0, max(abs(r) for r in rewards))
    assert abs(math.fsum(statistics.signals)) <= 1e-15 * scale * len(rewards)


@PROPERTY
@given(rewards_lists)
def test_every_accepted_group_can_be_shown(rewards):
    shown = present_group(group_statistics(rewards))
    assert len(shown["rows"]) == len(rewards) and shown["mean"]


def cut(text: str) -> str:
    """At most 40 characters of a value, as every message shows one (the last an ellipsis when some were left out)."""
    return text if len(text) <= 40 else text[:39] + "\u2026"


def describe(value) -> str:
    """What the message must show: a number as typed or as repr with the page's minus sign, other text in quotation
    marks; at most 40 characters of it."""
    if isinstance(value, str):
        if value.strip() and is_plain_number(value.strip()):
            return cut(value.strip().replace("-", "\u2212"))
        return f"\u201c{cut(value)}\u201d"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return cut(repr(value).replace("-", "\u2212"))
    return cut(repr(value))


REASONS = ("is not a number", "is too low", "is too high", "is not a whole number")


def is_plain_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.lower().lstrip("+-") not in ("nan", "inf", "infinity") and "_" not in text


not_numbers = st.one_of(
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=3),
    st.text(alphabet="abcxyz ,;_", max_size=8).filter(lambda t: not is_plain_number(t.strip())),
    st.sampled_from(["", "nan", "inf", "-inf", "Infinity", "1_0", "0x10", "1/2"]),
)
bad_temperatures = st.one_of(
    not_numbers,
    st.sampled_from([0, 0.0, -0.0, float("nan"), float("inf"), float("-inf")]),
    st.floats(max_value=0.05, exclude_max=True, allow_nan=False),
    st.floats(min_value=20, exclude_min=True, allow_nan=False),
    st.floats(max_value=0.05, exclude_max=True, allow_nan=False, allow_infinity=False).map(repr),
    st.integers(max_value=0),
    st.integers(min_value=21),
)
bad_group_sizes = st.one_of(
    not_numbers,
    st.integers(max_value=0),
    st.integers(min_value=65),
    st.integers(min_value=65).map(str),
    st.floats(min_value=1, max_value=64).filter(lambda f: f != int(f)),
    st.sampled_from([2.5, "2.5", 6.0, "6.0", float("nan")]),
)
bad_seeds = st.one_of(
    not_numbers,
    st.integers(max_value=-1),
    st.integers(min_value=2**32),
    st.integers(min_value=2**32, max_value=10**29).map(str),
    st.sampled_from([2.5, 1.0, float("nan"), float("inf")]),
)


def assert_names_field_range_and_value(check, value, field, text):
    try:
        check(value)
    except SettingError as error:
        assert isinstance(error, ValueError)
        assert error.field == field
        rule, _, reason = str(error).partition("; ")
        assert rule == text
        if isinstance(value, str) and not value.strip():
            assert reason == "nothing was entered"
        else:
            assert reason in {f"{describe(value)} {why}" for why in REASONS}
    else:
        raise AssertionError(f"{check.__name__} accepted {value!r}")


@PROPERTY
@given(bad_temperatures)
def test_bad_temperature_is_refused_by_name_range_and_value(value):
    assert_names_field_range_and_value(check_temperature, value, "temperature", "Temperature must be a number from 0.05 to 20")


@PROPERTY
@given(bad_group_sizes)
def test_bad_group_size_is_refused_by_name_range_and_value(value):
    assert_names_field_range_and_value(check_group_size, value, "group_size", "Group size must be a whole number from 1 to 64")


@PROPERTY
@given(bad_seeds)
def test_bad_seed_is_refused_by_name_range_and_value(value):
    assert_names_field_range_and_value(check_seed, value, "seed", "Seed must be a whole number from 0 to 4294967295")


@PROPERTY
@given(bad_temperatures, group_sizes, seeds)
def test_run_lab_refuses_a_bad_temperature_whatever_the_rest(temperature, group_size, seed):
    assert_names_field_range_and_value(
        lambda t: run_lab(t, group_size, seed),
        temperature,
        "temperature",
        "Temperature must be a number from 0.05 to 20",
    )
