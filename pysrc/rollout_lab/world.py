"""The toy task: one prompt, three whole completions, a toy verifier's rewards."""

from dataclasses import dataclass

PROMPT = "A box has 3 red labels and 2 blue labels. How many labels? Reply with one digit."


@dataclass(frozen=True)
class Candidate:
    """One whole completion the toy policy can produce, with its made-up logit and its reward."""

    index: int
    completion: str
    logit: float
    reward: float
    reward_reason: str


# The logits are invented for teaching; no model produced them.
CANDIDATES: tuple[Candidate, ...] = (
    Candidate(0, "5", 2.0, 1.0, "correct and one digit"),
    Candidate(1, "The answer is 5.", 1.2, 0.75, "correct, misses the format"),
    Candidate(2, "6", 0.6, 0.0, "incorrect"),
)

DEFAULT_TEMPERATURE = 1.0
DEFAULT_GROUP_SIZE = 6
DEFAULT_SEED = 20260903

TEMPERATURE_RANGE = (0.05, 20.0)
GROUP_SIZE_RANGE = (1, 64)
SEED_RANGE = (0, 2**32 - 1)
REWARD_COUNT_RANGE = (1, 64)
# Wide enough for any scoring rule a reader might try, narrow enough that every
# mean and signal prints exactly to four places.
REWARD_RANGE = (-1000.0, 1000.0)
