"""numpy as an independent oracle for the core (tests only; the core never imports numpy).

Tolerances, and why:
- softmax: the core computes in 50-digit decimal and rounds once, so it is
  within half an ulp of the true value. The float64 oracle rounds several
  times; the largest effect is z/T (up to 28 in magnitude at T = 0.05),
  whose half-ulp error becomes a relative error of about 2e-15 after exp.
  Stated tolerance: relative 1e-14 (about 45 ulp), absolute 1e-300.
- generator and draws: integer arithmetic, compared exactly.
- empirical frequencies over 10**6 draws: within 5 standard errors
  sqrt(p (1 - p) / n) of each probability. The stream is deterministic, so
  this either always passes or always fails.

Inside Pyodide there is no numpy wheel in the test environment, so the module
is skipped there; in CPython a missing numpy is an error, never a skip.
"""

import sys
from itertools import islice

import pytest

if sys.platform == "emscripten":
    np = pytest.importorskip("numpy")
else:
    import numpy as np

from rollout_lab import CANDIDATES, first_uniforms, sample_group, softmax_probabilities

DRAWS = 10**6
MULTIPLIER, INCREMENT, MODULUS = 1664525, 1013904223, 2**32
SEEDS = [0, 1, 20260903, 2**32 - 1]
SOFTMAX_RELATIVE_TOLERANCE = 1e-14


def softmax_table(temperatures: np.ndarray) -> np.ndarray:
    """Return one row of probabilities per temperature, in float64, stabilised by the largest z/T."""
    logits = np.array([c.logit for c in CANDIDATES], dtype=np.float64)
    scaled = logits[None, :] / temperatures[:, None]
    weights = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)


def lcg_states(seed: int, count: int) -> np.ndarray:
    """Return the first `count` states after the seed, vectorised by doubling.

    Applying the step n times is itself affine, x -> A_n x + C_n (mod 2**32),
    and A_2n = A_n**2, C_2n = A_n C_n + C_n. Knowing states 1..n, states
    n+1..2n are A_n * (states 1..n) + C_n. uint64 products wrap modulo 2**64,
    a multiple of 2**32, so reducing afterwards is exact.
    """
    mask = np.uint64(MODULUS - 1)
    states = np.array([(MULTIPLIER * seed + INCREMENT) % MODULUS], dtype=np.uint64)
    jump_multiplier, jump_increment = MULTIPLIER, INCREMENT  # the map for one step
    while len(states) < count:
        a, c = np.uint64(jump_multiplier), np.uint64(jump_increment)
        states = np.concatenate([states, (a * states + c) & mask])
        # The block just doubled, so the jump must cover twice as many steps.
        jump_multiplier, jump_increment = (
            jump_multiplier * jump_multiplier % MODULUS,
            (jump_multiplier * jump_increment + jump_increment) % MODULUS,
        )
    return states[:count]


def draw_indices(uniforms: np.ndarray, probabilities) -> np.ndarray:
    """Apply the draw rule to many u at once: the first index whose running total exceeds u."""
    running = []
    total = 0.0
    for probability in probabilities:  # the same left-to-right float sums as the rule
        total += probability
        running.append(total)
    picked = np.searchsorted(np.array(running), uniforms, side="right")
    return np.minimum(picked, len(probabilities) - 1)


def test_softmax_agrees_with_float64_oracle():
    temperatures = np.concatenate([np.linspace(0.05, 20, 4000), [0.05, 0.1, 1 / 3, 0.5, 1, 2, 7.77, 20]])
    oracle = softmax_table(temperatures)
    core = np.array([softmax_probabilities(float(t)) for t in temperatures])
    relative = np.abs(core - oracle) / np.maximum(oracle, 1e-300)
    assert relative.max() <= SOFTMAX_RELATIVE_TOLERANCE


def test_lcg_oracle_knows_the_hand_worked_states():
    assert lcg_states(0, 2).tolist() == [1013904223, 1196435762]
    assert lcg_states(2**32 - 1, 2).tolist() == [1012239698, 806866057]


@pytest.fixture(scope="module")
def core_uniforms() -> dict[int, np.ndarray]:
    return {seed: np.fromiter(islice(first_uniforms(seed), DRAWS), dtype=np.float64, count=DRAWS) for seed in SEEDS}


@pytest.mark.parametrize("seed", SEEDS)
def test_generator_matches_oracle_for_a_million_draws(seed, core_uniforms):
    oracle = lcg_states(seed, DRAWS).astype(np.float64) / MODULUS  # exact: 32-bit integers over a power of two
    assert np.array_equal(core_uniforms[seed], oracle)


@pytest.fixture(scope="module")
def core_groups() -> dict[float, list[tuple[float, int]]]:
    """The core's own million-draw groups from seed 20260903, one per temperature, made once."""
    return {t: sample_group(softmax_probabilities(t), DRAWS, 20260903) for t in (0.5, 1.0, 2.0, 20.0)}


def indices_of(group: list[tuple[float, int]]) -> np.ndarray:
    return np.fromiter((index for _, index in group), dtype=np.int64, count=len(group))


@pytest.mark.parametrize("temperature", [0.5, 1.0, 2.0, 20.0])
def test_draws_match_oracle_for_a_million_draws(temperature, core_groups):
    uniforms = lcg_states(20260903, DRAWS).astype(np.float64) / MODULUS
    oracle = draw_indices(uniforms, softmax_probabilities(temperature))
    assert np.array_equal(indices_of(core_groups[temperature]), oracle)


@pytest.mark.parametrize("temperature", [0.5, 1.0, 2.0, 20.0])
def test_draw_frequencies_match_probabilities(temperature, core_groups):
    probabilities = np.array(softmax_probabilities(temperature))
    frequencies = np.bincount(indices_of(core_groups[temperature]), minlength=len(probabilities)) / DRAWS
    standard_errors = np.sqrt(probabilities * (1 - probabilities) / DRAWS)
    assert np.all(np.abs(frequencies - probabilities) <= 5 * standard_errors)
