"""Per-token credit on the token tree: exact values, exact advantages, GAE(λ) and GRPO's broadcast signal.

The tree is small enough to compute V(s), the expected reward from a prefix
under the policy at T, by exact enumeration. A move is deterministic and the
only reward comes at the end, so a token's exact advantage is the change in V
it causes: δ_t = V(s_{t+1}) − V(s_t), with V(s_n) = R. Everything is computed
in the core's fixed decimal context and converted to float once, so CPython
and Pyodide print the same bits (issue 57).
"""

from decimal import Decimal
from functools import lru_cache
from typing import Any

from rollout_lab.exact import CONTEXT, add_in_order, exact_decimal, float_from_decimal
from rollout_lab.tokens.rollouts import TokenPolicy, draw_rollouts, starting_policy
from rollout_lab.tokens.world import STATE_INDEX, STOP_TOKENS, TOKEN_STATES, extend_text, score_text
from rollout_lab.validation import check_group_size, check_lambda, check_seed, check_temperature
from rollout_lab.world import DEFAULT_GROUP_SIZE, DEFAULT_LAMBDA, DEFAULT_SEED, DEFAULT_TEMPERATURE


def value_states(policy: TokenPolicy) -> dict[str, Decimal]:
    """Return {prefix: V(prefix)} for every state of the tree, by exact enumeration from the leaves up."""
    values: dict[str, Decimal] = {}

    def value_of(prefix: str) -> Decimal:
        if prefix not in values:
            state_index = STATE_INDEX[prefix]
            terms = []
            for option_index, option in enumerate(TOKEN_STATES[state_index].options):
                after = extend_text(prefix, option.token)
                outcome = exact_decimal(score_text(after)) if option.token in STOP_TOKENS else value_of(after)
                terms.append(CONTEXT.multiply(policy.probabilities[state_index][option_index], outcome))
            values[prefix] = add_in_order(terms)
        return values[prefix]

    for state in TOKEN_STATES:
        value_of(state.prefix)
    return {state.prefix: values[state.prefix] for state in TOKEN_STATES}


@lru_cache(maxsize=64)
def exact_values(temperature: float) -> dict[str, Decimal]:
    """Return V at every state at T (remembered: a reader changing λ, K or the seed keeps T)."""
    return value_states(starting_policy(temperature))


def token_values(temperature: object = DEFAULT_TEMPERATURE) -> dict[str, float]:
    """Return {state text: V} for the seven non-terminal states at T ("" is the start; `<end>` is never in a text)."""
    return {prefix: float_from_decimal(value) for prefix, value in exact_values(check_temperature(temperature)).items()}


def discount_sum(deltas: list[Decimal], lam: Decimal) -> list[Decimal]:
    """Return GAE's Â_t = Σ_{l≥0} λ^l δ_{t+l} for every t (γ = 1), summed from the last token back."""
    advantages: list[Decimal] = []
    running = Decimal(0)
    for delta in reversed(deltas):
        running = CONTEXT.add(delta, CONTEXT.multiply(lam, running))
        advantages.append(running)
    return advantages[::-1]


def token_credit(
    temperature: object = DEFAULT_TEMPERATURE,
    group_size: object = DEFAULT_GROUP_SIZE,
    seed: object = DEFAULT_SEED,
    lam: object = DEFAULT_LAMBDA,
) -> dict[str, Any]:
    """Return each sampled token's credit: {"mean", "rollouts": [{"tokens", "reward", "values", "advantages", "gae", "group_signal"}]}.

    The group is sample_token_group's, from the same stream. "values" holds V
    before each token, "advantages" the exact δ_t, "gae" GAE(λ) with the exact
    V as critic, "group_signal" GRPO's R − mean broadcast to every token.
    """
    checked_temperature = check_temperature(temperature)
    checked_group_size = check_group_size(group_size)
    checked_seed = check_seed(seed)
    checked_lambda = exact_decimal(check_lambda(lam))
    values = exact_values(checked_temperature)
    rollouts = draw_rollouts(starting_policy(checked_temperature), checked_group_size, checked_seed)
    rewards = [exact_decimal(rollout.reward) for rollout in rollouts]
    mean = CONTEXT.divide(add_in_order(rewards), Decimal(len(rewards)))
    described = []
    for rollout, reward in zip(rollouts, rewards):
        tokens = [TOKEN_STATES[s].options[j].token for s, j in rollout.steps]
        prefixes = [TOKEN_STATES[s].prefix for s, _ in rollout.steps]
        before = [values[prefix] for prefix in prefixes]
        after = [*before[1:], reward]
        deltas = [CONTEXT.subtract(later, earlier) for earlier, later in zip(before, after)]
        signal = float_from_decimal(CONTEXT.subtract(reward, mean))
        described.append(
            {
                "tokens": tokens,
                "reward": rollout.reward,
                "values": [float_from_decimal(value) for value in before],
                "advantages": [float_from_decimal(delta) for delta in deltas],
                "gae": [float_from_decimal(advantage) for advantage in discount_sum(deltas, checked_lambda)],
                "group_signal": [signal] * len(tokens),
            }
        )
    return {"mean": float_from_decimal(mean), "rollouts": described}


def credit_tree(temperature: object = DEFAULT_TEMPERATURE) -> list[dict[str, Any]]:
    """Return every state of the tree with its V, and each option with its exact advantage and what it leads to.

    One entry per state in TOKEN_STATES' order: {"prefix", "value", "options":
    [{"token", "advantage", "outcome"}]}, where "outcome" is V of the state the
    token reaches, or the reward at a stop token, and "advantage" is outcome − V
    (the δ token_credit gives that token wherever a rollout takes it).
    """
    values = exact_values(check_temperature(temperature))
    states = []
    for state in TOKEN_STATES:
        options = []
        for option in state.options:
            after = extend_text(state.prefix, option.token)
            outcome = exact_decimal(score_text(after)) if option.token in STOP_TOKENS else values[after]
            advantage = CONTEXT.subtract(outcome, values[state.prefix])
            options.append(
                {"token": option.token, "advantage": float_from_decimal(advantage), "outcome": float_from_decimal(outcome)}
            )
        states.append({"prefix": state.prefix, "value": float_from_decimal(values[state.prefix]), "options": options})
    return states
