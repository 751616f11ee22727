"""Softmax with temperature, the seeded generator and the draw rule.

Bit-identical results in CPython and Pyodide rule out math.exp, whose last
bit depends on the platform's C maths library. decimal's exp is correctly
rounded everywhere, so the softmax is computed in decimal and each
probability is converted to float exactly once; every later sum runs in a
fixed order on floats, which IEEE 754 makes identical on both runtimes.
"""

from collections.abc import Iterator, Sequence
from functools import lru_cache

from rollout_lab.exact import CONTEXT, add_in_order, exact_decimal
from rollout_lab.world import CANDIDATES, Candidate

LCG_MULTIPLIER = 1664525
LCG_INCREMENT = 1013904223
LCG_MODULUS = 2**32


# A reader who changes the group size or the seed keeps the temperature, and
# decimal exp is the slowest step of a lab run: remember recent temperatures.
@lru_cache(maxsize=256)
def softmax_probabilities(temperature: float, candidates: Sequence[Candidate] = CANDIDATES) -> tuple[float, ...]:
    """Return p_i = exp(z_i / T) / sum_j exp(z_j / T), computed stably in decimal."""
    scale = exact_decimal(temperature)
    scaled = [CONTEXT.divide(exact_decimal(c.logit), scale) for c in candidates]
    largest = max(scaled)
    weights = [CONTEXT.exp(CONTEXT.subtract(z, largest)) for z in scaled]
    total = add_in_order(weights)
    return tuple(float(CONTEXT.divide(w, total)) for w in weights)


def next_state(state: int) -> int:
    """Advance the linear congruential generator by one step."""
    return (LCG_MULTIPLIER * state + LCG_INCREMENT) % LCG_MODULUS


def uniform_from_state(state: int) -> float:
    """Map a generator state to u in [0, 1); exact, since the state fits in a float's 53 bits."""
    return state / LCG_MODULUS


def first_uniforms(seed: int) -> Iterator[float]:
    """Yield u values from one stream started at the seed: advance first, then divide."""
    state = seed
    while True:
        state = next_state(state)
        yield uniform_from_state(state)


def draw_index(u: float, probabilities: Sequence[float]) -> int:
    """Pick the first index whose running total exceeds u; the last one if rounding leaves u above the total."""
    cumulative = 0.0
    for index, probability in enumerate(probabilities):
        cumulative += probability
        if u < cumulative:
            return index
    return len(probabilities) - 1


def sample_group(probabilities: Sequence[float], group_size: int, seed: int) -> list[tuple[float, int]]:
    """Draw a group of (u, index) pairs, all from one stream started at the seed."""
    stream = first_uniforms(seed)
    group = []
    for _ in range(group_size):
        u = next(stream)
        group.append((u, draw_index(u, probabilities)))
    return group
