"""One policy-gradient step on every state's logits from one group of token-level rollouts.

Issue 37's rule: the group's centred reward c_i = R_i - mean is broadcast to
every token of rollout i, and for each state s

    g_s = (1/K) sum_i w_i sum_{tokens t of rollout i at s} c_i (1[option = t] - p_s) / T,
    z_s <- z_s + alpha g_s.

The length rule sets w_i: "sequence_mean" w_i = 1/|o_i| (GRPO's average over
a completion's tokens, `<end>` counted), "token_sum" w_i = 1/4 (a constant:
Dr. GRPO's fix). Ratios are pi_new(t | prefix) / pi_old(t | prefix) at T, and
a sequence's ratio is the product of its tokens'. Everything runs in the
core's fixed decimal context and each recorded number is converted to float
once, so the build and the browser write the same bits.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from rollout_lab.exact import CONTEXT, add_in_order, exact_decimal
from rollout_lab.statistics import summarise_checked_rewards
from rollout_lab.tokens.rollouts import (
    TokenPolicy,
    TokenRollout,
    describe_rollout,
    describe_states,
    draw_rollouts,
    enumerate_completions,
    policy_from_logits,
    starting_policy,
)
from rollout_lab.tokens.world import (
    DEFAULT_LENGTH_RULE,
    DEFAULT_TOKEN_LEARNING_RATE,
    LENGTH_RULES,
    LONGEST_COMPLETION,
    TOKEN_STATES,
)
from rollout_lab.validation import check_choice, check_group_size, check_learning_rate, check_seed, check_temperature
from rollout_lab.world import DEFAULT_GROUP_SIZE, DEFAULT_SEED, DEFAULT_TEMPERATURE

ZERO, ONE = Decimal(0), Decimal(1)


@dataclass(frozen=True)
class TokenSettings:
    """Checked settings of one token-level update."""

    temperature: float
    group_size: int
    seed: int
    learning_rate: float
    length_rule: str

    def to_json(self) -> dict[str, Any]:
        """Return the settings as a JSON-ready dict."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class TokenStep:
    """What one step did: each rollout's weight w_i, each state's gradient g_s and the policy after."""

    weights: tuple[Decimal, ...]
    gradient: tuple[tuple[Decimal, ...], ...]
    after: TokenPolicy


def check_length_rule(value: object) -> str:
    """Return "sequence_mean" or "token_sum" (as typed, ignoring case and surrounding spaces), or raise SettingError."""
    return check_choice(value, "length_rule", LENGTH_RULES)


def check_token_settings(
    temperature: object, group_size: object, seed: object, learning_rate: object, length_rule: object
) -> TokenSettings:
    """Check every setting in the controls' order; raise SettingError naming the first bad one."""
    return TokenSettings(
        temperature=check_temperature(temperature),
        group_size=check_group_size(group_size),
        seed=check_seed(seed),
        learning_rate=check_learning_rate(learning_rate),
        length_rule=check_length_rule(length_rule),
    )


def length_weight(rollout: TokenRollout, rule: str) -> Decimal:
    """Return w_i: 1/|o_i| under "sequence_mean" (|o_i| counts `<end>`), 1/4 under "token_sum"."""
    length = len(rollout.steps) if rule == "sequence_mean" else LONGEST_COMPLETION
    return CONTEXT.divide(ONE, Decimal(length))


def step_policy(before: TokenPolicy, rollouts: Sequence[TokenRollout], learning_rate: float, rule: str) -> TokenStep:
    """Take one step of the rule above on every state's logits; return what it did.

    The sums run on K c_i = K R_i - sum_k R_k, which is exact in decimal (the
    rewards have two decimals), and divide by K once more at the end; each
    state's sum is then S_j - p_j W with S_j the weighted signals of the
    rollouts that took option j there and W those of all rollouts through it.
    So a step that mathematically leaves a state alone (signals that cancel
    there, or one option for all) leaves its logits exactly as they were,
    instead of moving them by a decimal rounding's 1e-52.
    """
    rewards = [exact_decimal(rollout.reward) for rollout in rollouts]
    count = Decimal(len(rollouts))
    total = add_in_order(rewards)
    weights = tuple(length_weight(rollout, rule) for rollout in rollouts)
    # Each rollout visits a state at most once (the states form a tree): for each state, W and the S_j.
    through = [ZERO for _ in TOKEN_STATES]
    taking = [[ZERO for _ in state.options] for state in TOKEN_STATES]
    for rollout, reward, weight in zip(rollouts, rewards, weights):
        pull = CONTEXT.multiply(weight, CONTEXT.subtract(CONTEXT.multiply(count, reward), total))
        for s, j in rollout.steps:
            through[s] = CONTEXT.add(through[s], pull)
            taking[s][j] = CONTEXT.add(taking[s][j], pull)
    scale = CONTEXT.multiply(CONTEXT.multiply(count, count), before.temperature)
    gradient = tuple(
        tuple(
            CONTEXT.divide(CONTEXT.subtract(taking[s][j], CONTEXT.multiply(p_j, through[s])), scale)
            for j, p_j in enumerate(before.probabilities[s])
        )
        for s in range(len(TOKEN_STATES))
    )
    alpha = exact_decimal(learning_rate)
    logits = [
        [CONTEXT.add(z, CONTEXT.multiply(alpha, g)) for z, g in zip(state_logits, state_gradient)]
        for state_logits, state_gradient in zip(before.logits, gradient)
    ]
    return TokenStep(weights, gradient, policy_from_logits(logits, before.temperature))


def token_ratios(before: TokenPolicy, after: TokenPolicy, rollout: TokenRollout) -> tuple[Decimal, ...]:
    """Return pi_new(t | prefix) / pi_old(t | prefix) for each token of a rollout (exactly 1 for a token with no alternative)."""
    return tuple(CONTEXT.divide(after.probabilities[s][j], before.probabilities[s][j]) for s, j in rollout.steps)


def multiply_in_order(values: Sequence[Decimal]) -> Decimal:
    """Return the product of decimals, left to right, in the fixed context."""
    product = ONE
    for value in values:
        product = CONTEXT.multiply(product, value)
    return product


def _float(value: Decimal) -> float:
    # + 0.0 turns a -0.0 into 0.0, so the JSON never carries a negative zero.
    return float(value) + 0.0


def describe_moves(before: TokenPolicy, step: TokenStep, learning_rate: float) -> list[dict[str, Any]]:
    """Return the token tree before and after the step: per state, each option's gradient, logit move (alpha g) and probabilities."""
    alpha = exact_decimal(learning_rate)
    states = describe_states(before)
    for s, state in enumerate(states):
        for j, option in enumerate(state["options"]):
            option["gradient"] = _float(step.gradient[s][j])
            option["move"] = _float(CONTEXT.multiply(alpha, step.gradient[s][j]))
            option["logit_after"] = _float(step.after.logits[s][j])
            option["probability_after"] = step.after.drawing[s][j]
    return states


def token_update(
    temperature: object = DEFAULT_TEMPERATURE,
    group_size: object = DEFAULT_GROUP_SIZE,
    seed: object = DEFAULT_SEED,
    learning_rate: object = DEFAULT_TOKEN_LEARNING_RATE,
    length_rule: object = DEFAULT_LENGTH_RULE,
) -> dict[str, Any]:
    """Draw a group as sample_token_group does, take one step on every state's logits, return the JSON-ready record.

    {"settings", "rollouts" (sample_token_group's), "mean", "signals" (c_i), "weights" (w_i),
    "ratios" (per token, per rollout), "sequence_ratios", "before" and "after" ({text: p} for
    the eight completions), "states" (the tree with each option's "gradient", "move" = alpha g,
    "logit_after" and "probability_after")}. Raises SettingError (a ValueError) naming the
    first bad setting in the controls' order.
    """
    settings = check_token_settings(temperature, group_size, seed, learning_rate, length_rule)
    before = starting_policy(settings.temperature)
    rollouts = draw_rollouts(before, settings.group_size, settings.seed)
    step = step_policy(before, rollouts, settings.learning_rate, settings.length_rule)
    ratios = [token_ratios(before, step.after, rollout) for rollout in rollouts]
    # The mean and the signals as the sampler's lab reports them for the same rewards.
    statistics = summarise_checked_rewards(tuple(rollout.reward for rollout in rollouts))
    return {
        "settings": settings.to_json(),
        "rollouts": [describe_rollout(before, number, rollout) for number, rollout in enumerate(rollouts, start=1)],
        "mean": statistics.mean,
        "signals": list(statistics.signals),
        "weights": [float(weight) for weight in step.weights],
        "ratios": [[float(ratio) for ratio in rollout_ratios] for rollout_ratios in ratios],
        "sequence_ratios": [float(multiply_in_order(rollout_ratios)) for rollout_ratios in ratios],
        "before": enumerate_completions(before),
        "after": enumerate_completions(step.after),
        "states": describe_moves(before, step, settings.learning_rate),
    }
