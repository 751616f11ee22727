"""Token-level rollouts in the token world: the policy at T, the seeded sampler and exact enumeration.

The method is the one-action sampler's, so the build and the browser write the
same bits: each state's softmax runs in the core's fixed 50-digit decimal
context (decimal exp and ln are correctly rounded everywhere; math.exp is not),
a probability is converted to float once, and the draw rule compares u with
running totals of those floats, summed in a fixed order.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any

from rollout_lab.exact import CONTEXT, add_in_order, exact_decimal
from rollout_lab.sampling import draw_index, next_state, uniform_from_state
from rollout_lab.tokens.world import (
    COMPLETION_PATHS,
    STATE_INDEX,
    STOP_TOKENS,
    TOKEN_STATES,
    extend_text,
    join_tokens,
    score_text,
    spell_path,
)
from rollout_lab.validation import check_group_size, check_seed, check_temperature
from rollout_lab.world import DEFAULT_GROUP_SIZE, DEFAULT_SEED, DEFAULT_TEMPERATURE

ONE = Decimal(1)


@dataclass(frozen=True)
class TokenPolicy:
    """Every state's logits, probabilities and log-probabilities at one temperature, as exact decimals.

    The tuples follow TOKEN_STATES: entry s holds state s's options in order.
    `drawing` holds the probabilities as the floats the draw rule sums.
    """

    temperature: Decimal
    logits: tuple[tuple[Decimal, ...], ...]
    probabilities: tuple[tuple[Decimal, ...], ...]
    logprobs: tuple[tuple[Decimal, ...], ...]
    drawing: tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class TokenRollout:
    """One rollout: the (state index, option index) steps it took, the u behind each, its text and reward."""

    steps: tuple[tuple[int, int], ...]
    uniforms: tuple[float, ...]
    text: str
    reward: float


def soften(logits: Sequence[Decimal], temperature: Decimal) -> tuple[tuple[Decimal, ...], tuple[Decimal, ...]]:
    """Return (p, ln p) of softmax(z / T) within one state.

    The steps are the sampler's softmax_probabilities step for step, so the
    start state's floats equal the one-action world's bit for bit; ln p is
    (z_i / T - max) - ln(sum of weights), which is exactly 0 for a state with
    one option (its weight is exp(0) = 1).
    """
    scaled = [CONTEXT.divide(z, temperature) for z in logits]
    largest = max(scaled)
    shifted = [CONTEXT.subtract(z, largest) for z in scaled]
    weights = [CONTEXT.exp(z) for z in shifted]
    total = add_in_order(weights)
    log_total = CONTEXT.ln(total)
    return (
        tuple(CONTEXT.divide(w, total) for w in weights),
        tuple(CONTEXT.subtract(z, log_total) for z in shifted),
    )


def policy_from_logits(logits: Sequence[Sequence[Decimal]], temperature: Decimal) -> TokenPolicy:
    """Return the policy with these logits (one tuple per state, in TOKEN_STATES' order) at T."""
    softened = [soften(state_logits, temperature) for state_logits in logits]
    return TokenPolicy(
        temperature=temperature,
        logits=tuple(tuple(state_logits) for state_logits in logits),
        probabilities=tuple(p for p, _ in softened),
        logprobs=tuple(logp for _, logp in softened),
        drawing=tuple(tuple(float(x) for x in p) for p, _ in softened),
    )


# A reader who changes the group size or the seed keeps the temperature, and
# decimal exp is the slowest step: remember recent temperatures.
@lru_cache(maxsize=64)
def starting_policy(temperature: float) -> TokenPolicy:
    """Return the token world's policy at T, from the table's logits."""
    logits = [[exact_decimal(option.logit) for option in state.options] for state in TOKEN_STATES]
    return policy_from_logits(logits, exact_decimal(temperature))


def draw_rollouts(policy: TokenPolicy, group_size: int, seed: int) -> tuple[TokenRollout, ...]:
    """Draw a group of rollouts from one generator stream started at the seed.

    The stream is carried from token to token and from rollout to rollout;
    every token consumes one u (advance, then divide), a token with only one
    option too, and is picked by the sampler's draw rule.
    """
    state = seed
    rollouts = []
    for _ in range(group_size):
        text, steps, uniforms = "", [], []
        while True:
            state = next_state(state)
            u = uniform_from_state(state)
            state_index = STATE_INDEX[text]
            option_index = draw_index(u, policy.drawing[state_index])
            token = TOKEN_STATES[state_index].options[option_index].token
            steps.append((state_index, option_index))
            uniforms.append(u)
            text = extend_text(text, token)
            if token in STOP_TOKENS:
                break
        rollouts.append(TokenRollout(tuple(steps), tuple(uniforms), text, score_text(text)))
    return tuple(rollouts)


def path_probability(policy: TokenPolicy, path: Sequence[tuple[int, int]]) -> Decimal:
    """Return pi(completion) = the product of its tokens' probabilities, in order."""
    product = ONE
    for state_index, option_index in path:
        product = CONTEXT.multiply(product, policy.probabilities[state_index][option_index])
    return product


def enumerate_completions(policy: TokenPolicy) -> dict[str, float]:
    """Return {text: probability} for the eight completions, depth first in the table's option order."""
    return {join_tokens(spell_path(path)): float(path_probability(policy, path)) for path in COMPLETION_PATHS}


def describe_rollout(policy: TokenPolicy, number: int, rollout: TokenRollout) -> dict[str, Any]:
    """Return one rollout as the record writes it: tokens, text, each token's log-probability at T, reward, u and probability."""
    return {
        "rollout": number,
        "tokens": [TOKEN_STATES[s].options[j].token for s, j in rollout.steps],
        "text": rollout.text,
        "logprobs": [float(policy.logprobs[s][j]) + 0.0 for s, j in rollout.steps],
        "reward": rollout.reward,
        "us": list(rollout.uniforms),
        "probabilities": [policy.drawing[s][j] for s, j in rollout.steps],
    }


def describe_states(policy: TokenPolicy) -> list[dict[str, Any]]:
    """Return the token tree at T: each state's prefix and its options' tokens, logits, probabilities and log-probabilities."""
    return [
        {
            "prefix": state.prefix,
            "options": [
                {
                    "token": option.token,
                    "logit": option.logit,
                    "probability": policy.drawing[s][j],
                    "logprob": float(policy.logprobs[s][j]) + 0.0,
                }
                for j, option in enumerate(state.options)
            ],
        }
        for s, state in enumerate(TOKEN_STATES)
    ]


def sample_token_group(
    temperature: object = DEFAULT_TEMPERATURE,
    group_size: object = DEFAULT_GROUP_SIZE,
    seed: object = DEFAULT_SEED,
) -> dict[str, Any]:
    """Draw a group of token-level rollouts and return the JSON-ready record.

    {"settings", "states": the tree at T (describe_states), "rollouts": [{"rollout", "tokens",
    "text", "logprobs", "reward", "us", "probabilities"}, ...]}. Raises SettingError (a
    ValueError) naming the first bad setting, checked as the sampler checks it.
    """
    checked_temperature = check_temperature(temperature)
    checked_group_size = check_group_size(group_size)
    checked_seed = check_seed(seed)
    policy = starting_policy(checked_temperature)
    rollouts = draw_rollouts(policy, checked_group_size, checked_seed)
    return {
        "settings": {"temperature": checked_temperature, "group_size": checked_group_size, "seed": checked_seed},
        "states": describe_states(policy),
        "rollouts": [describe_rollout(policy, number, rollout) for number, rollout in enumerate(rollouts, start=1)],
    }


def completion_probabilities(temperature: object = DEFAULT_TEMPERATURE) -> dict[str, float]:
    """Return {text: probability} for the eight completions at T, by exact enumeration of the tree.

    Each probability is the product of its tokens' probabilities, computed in
    decimal and converted to float once; the eight sum to 1 within float rounding.
    """
    return enumerate_completions(starting_policy(check_temperature(temperature)))
