"""The linear congruential generator and the draw rule, against values worked out by hand.

state = (1664525 * state + 1013904223) mod 2**32, u = state / 2**32, advance first.
The constants below come from the integer arithmetic in the comments, which
each test re-checks with plain Python integers; the core is not consulted.
"""

from fractions import Fraction

import pytest

from rollout_lab import draw_index, first_uniforms, next_state, run_lab, sample_group, uniform_from_state

MODULUS = 2**32

# Seed 0: the first state is the increment itself.
#   s1 = 1664525 * 0 + 1013904223                      = 1013904223
#   s2 = 1664525 * 1013904223 + 1013904223 = 1013904223 * 1664526
#      = 1687669940693298 = 392941 * 2**32 + 1196435762 -> 1196435762
# Seed 2**32 - 1 is -1 modulo 2**32:
#   s1 = -1664525 + 1013904223                         = 1012239698
#   (directly: 4294967295 * 1664525 + 1013904223 = 7149081450614098
#            = 1664525 * 2**32 + 1012239698)
#   s2 = 1664525 * 1012239698 + 1013904223 = 1684899297217673
#      = 392296 * 2**32 + 806866057                    -> 806866057
HAND_WORKED_STATES = {
    0: (1013904223, 1196435762),
    2**32 - 1: (1012239698, 806866057),
}
DERIVATIONS = [
    (1013904223 * 1664526, 392941, 1196435762),
    (4294967295 * 1664525 + 1013904223, 1664525, 1012239698),
    (1664525 * 1012239698 + 1013904223, 392296, 806866057),
]


@pytest.mark.parametrize(("product", "quotient", "remainder"), DERIVATIONS)
def test_hand_derivations_are_right(product, quotient, remainder):
    assert product == quotient * MODULUS + remainder and 0 <= remainder < MODULUS


@pytest.mark.parametrize("seed", sorted(HAND_WORKED_STATES))
def test_first_states(seed):
    first, second = HAND_WORKED_STATES[seed]
    assert next_state(seed) == first
    assert next_state(first) == second


@pytest.mark.parametrize("seed", sorted(HAND_WORKED_STATES))
def test_first_uniforms_advance_first_then_divide(seed):
    stream = first_uniforms(seed)
    for state in HAND_WORKED_STATES[seed]:
        u = next(stream)
        # Exact: a 32-bit state divided by 2**32 is representable in a float.
        assert Fraction(u) == Fraction(state, MODULUS)
        assert uniform_from_state(state) == u


@pytest.mark.parametrize("seed", sorted(HAND_WORKED_STATES))
def test_run_lab_uses_the_same_stream(seed):
    draws = run_lab(1, 2, seed)["draws"]
    assert [Fraction(d["u"]) for d in draws] == [Fraction(s, MODULUS) for s in HAND_WORKED_STATES[seed]]


@pytest.mark.parametrize(
    ("u", "index"),
    [
        (0.0, 0),
        (0.4999, 0),
        (0.5, 1),  # equal to the running total is not below it
        (0.6, 1),
        (0.8, 2),  # cumulative 0.5 + 0.3 = 0.8 exactly: u < cumulative fails, so the next index
        (0.9, 2),
        (0.999999, 2),
    ],
)
def test_draw_rule_picks_first_running_total_above_u(u, index):
    assert draw_index(u, (0.5, 0.3, 0.2)) == index


def test_draw_rule_falls_back_to_the_last_index_when_rounding_leaves_u_above_the_total():
    # Float probabilities can sum to a hair under 1; here the total is 0.6,
    # so no running total exceeds u and the rule falls back to the last index.
    assert draw_index(0.9999999999, (0.2, 0.2, 0.2)) == 2


def test_sample_group_is_pairs_of_u_and_index():
    group = sample_group((0.5, 0.3, 0.2), 2, 0)
    assert group == [(1013904223 / MODULUS, 0), (1196435762 / MODULUS, 0)]  # u = 0.2361, 0.2786
