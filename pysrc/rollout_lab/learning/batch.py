"""A batch of three one-answer prompts: where a group carries no signal, and how σ reweights prompts.

Each prompt offers whole answers with made-up logits and a toy verifier's
rewards, as the one-action toy does; the first prompt is that toy. One stream
of the core's generator is carried across the three groups in prompt order,
and each group draws K answers with the sampler's draw rule at T.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from rollout_lab.exact import CONTEXT, add_in_order, exact_decimal, float_from_decimal
from rollout_lab.learning.estimator import SIGNAL_FUNCTIONS, centred_signals, estimate_update, population_sigma
from rollout_lab.sampling import draw_index, next_state, uniform_from_state
from rollout_lab.tokens.rollouts import soften
from rollout_lab.validation import check_group_size, check_seed, check_signal_rule, check_temperature
from rollout_lab.world import CANDIDATES, DEFAULT_GROUP_SIZE, DEFAULT_SEED, DEFAULT_SIGNAL_RULE, DEFAULT_TEMPERATURE, PROMPT


@dataclass(frozen=True)
class Answer:
    """One whole answer a prompt's policy can give, with its made-up logit and its reward."""

    text: str
    logit: float
    reward: float


@dataclass(frozen=True)
class BatchPrompt:
    """A prompt and its answers, in a fixed order."""

    text: str
    answers: tuple[Answer, ...]


# The logits are invented for teaching; no model produced them. The first prompt is the one-action toy.
BATCH_PROMPTS: tuple[BatchPrompt, ...] = (
    BatchPrompt(PROMPT, tuple(Answer(c.completion, c.logit, c.reward) for c in CANDIDATES)),
    BatchPrompt(
        "A box has 1 red label and 1 blue label. How many labels? Reply with one digit.",
        (Answer("2", 3.0, 1.0), Answer("11", 0.0, 0.0)),
    ),
    BatchPrompt(
        "A box has 17 rows of 3 labels. How many labels? Reply with the number.",
        (Answer("41", 1.7, 0.0), Answer("51", 0.0, 1.0), Answer("61", 0.65, 0.0)),
    ),
)


def score_group(
    prompt: BatchPrompt, picks: Sequence[int], temperature: Decimal, rule: str, probabilities: Sequence[Decimal]
) -> dict[str, Any]:
    """Return one prompt's row: its answers' rewards, mean, σ, signals and the gradient on its own logits."""
    rewards = [exact_decimal(prompt.answers[pick].reward) for pick in picks]
    mean = CONTEXT.divide(add_in_order(rewards), Decimal(len(rewards)))
    sigma = population_sigma(centred_signals(rewards))
    # The signal rules are chapter 6's ("mean", "std": all 0 when every reward is equal), and the gradient is the
    # estimator's g_j = (1/K) sum_k c_k (1[j_k = j] - p_j) / T, on this prompt's own logits.
    signals = SIGNAL_FUNCTIONS[rule](rewards)
    gradient = estimate_update(picks, signals, probabilities, temperature)
    return {
        "prompt": prompt.text,
        "answers": [prompt.answers[pick].text for pick in picks],
        "rewards": [prompt.answers[pick].reward for pick in picks],
        "mean": float_from_decimal(mean),
        "sigma": float_from_decimal(sigma),
        "signals": [float_from_decimal(s) for s in signals],
        "gradient": [float_from_decimal(g) for g in gradient],
        "zero_variance": not sigma,
    }


def gradient_size(gradient: Sequence[float]) -> float:
    """Return ‖g‖, the length of a prompt's gradient on its own logits: √(Σ g_j²), in the core's fixed context."""
    exact = [exact_decimal(g) for g in gradient]
    return float_from_decimal(CONTEXT.sqrt(add_in_order(CONTEXT.multiply(g, g) for g in exact)))


def batch_signals(
    temperature: object = DEFAULT_TEMPERATURE,
    group_size: object = DEFAULT_GROUP_SIZE,
    seed: object = DEFAULT_SEED,
    rule: object = DEFAULT_SIGNAL_RULE,
) -> list[dict[str, Any]]:
    """Draw a group of K answers for each of the three prompts, in order, from one stream; return one row per prompt.

    Each row: {"prompt", "answers", "rewards", "mean", "sigma", "signals", "gradient", "zero_variance"};
    "gradient" has one entry per answer the prompt offers, in BATCH_PROMPTS' order.
    """
    checked_temperature = check_temperature(temperature)
    checked_group_size = check_group_size(group_size)
    state = check_seed(seed)
    checked_rule = check_signal_rule(rule)
    scale = exact_decimal(checked_temperature)
    rows = []
    for prompt in BATCH_PROMPTS:
        probabilities, _ = soften([exact_decimal(answer.logit) for answer in prompt.answers], scale)
        drawing = [float(p) for p in probabilities]
        picks = []
        for _ in range(checked_group_size):
            state = next_state(state)
            picks.append(draw_index(uniform_from_state(state), drawing))
        rows.append(score_group(prompt, picks, scale, checked_rule, probabilities))
    return rows
