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

# The training lab (chapter 5): a few rounds of collect, score, update on the
# same three candidates. Its defaults are its own: the sampler's K = 6 stays.
DEFAULT_ROUNDS = 5
DEFAULT_TRAINING_GROUP_SIZE = 8
DEFAULT_LEARNING_RATE = 1.0
DEFAULT_EPOCHS = 4
DEFAULT_CLIP = 0.2
DEFAULT_KL_WEIGHT = 0.0
DEFAULT_SIGNAL_RULE = "mean"

ROUNDS_RANGE = (1, 10)
LEARNING_RATE_RANGE = (0.0, 5.0)
EPOCHS_RANGE = (1, 10)
CLIP_RANGE = (0.01, 1.0)
KL_WEIGHT_RANGE = (0.0, 1.0)
# "mean": c_k = R_k - mean; "std": (R_k - mean) / sigma, the population sigma.
SIGNAL_RULES = ("mean", "std")

# Chapter 7's credit lab: GAE's λ (0 gives the exact advantage, 1 the reward minus the value).
DEFAULT_LAMBDA = 0.0
LAMBDA_RANGE = (0.0, 1.0)
