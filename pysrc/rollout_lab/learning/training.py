"""The training lab: rounds of collect, score and a clipped-surrogate update on the toy policy.

The toy policy is the three candidates' logits theta; pi_theta = softmax(theta),
and the reference policy is the softmax of the starting logits. Each round
draws a group from the policy as it stands (the behaviour policy pi_old, with
the sampler's own draw rule and one generator stream carried across rounds),
scores it, and then takes E full-batch gradient steps on the one-token clipped
surrogate min(rho c, clip(rho, 1 - eps, 1 + eps) c), minus beta times
KL(pi_theta || pi_ref).

Like the sampler, everything runs in the core's fixed 50-digit decimal context
(decimal's exp and ln are correctly rounded on every platform; math.exp is
not), and each recorded number is converted to float exactly once, so the
build and the browser write the same bits.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from rollout_lab.exact import CONTEXT, add_in_order, exact_decimal
from rollout_lab.sampling import draw_index, next_state, uniform_from_state
from rollout_lab.statistics import summarise_checked_rewards
from rollout_lab.update import normalised_signals
from rollout_lab.validation import (
    check_clip,
    check_epochs,
    check_group_size,
    check_kl_weight,
    check_learning_rate,
    check_rounds,
    check_seed,
    check_signal_rule,
)
from rollout_lab.world import (
    CANDIDATES,
    DEFAULT_CLIP,
    DEFAULT_EPOCHS,
    DEFAULT_KL_WEIGHT,
    DEFAULT_LEARNING_RATE,
    DEFAULT_ROUNDS,
    DEFAULT_SEED,
    DEFAULT_SIGNAL_RULE,
    DEFAULT_TRAINING_GROUP_SIZE,
)

ZERO, ONE = Decimal(0), Decimal(1)


@dataclass(frozen=True)
class TrainingSettings:
    """Checked settings of one training run."""

    rounds: int
    group_size: int
    seed: int
    learning_rate: float
    epochs: int
    clip: float
    kl_weight: float
    signal_rule: str

    def to_json(self) -> dict[str, Any]:
        """Return the settings as a JSON-ready dict."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class Policy:
    """Logits and their softmax, both exact decimals (the probabilities are kept so each is computed once)."""

    logits: tuple[Decimal, ...]
    probabilities: tuple[Decimal, ...]


def check_training_settings(
    rounds: object,
    group_size: object,
    seed: object,
    learning_rate: object,
    epochs: object,
    clip: object,
    kl_weight: object,
    signal_rule: object,
) -> TrainingSettings:
    """Check every setting in the controls' order; raise SettingError naming the first bad one."""
    return TrainingSettings(
        rounds=check_rounds(rounds),
        group_size=check_group_size(group_size),
        seed=check_seed(seed),
        learning_rate=check_learning_rate(learning_rate),
        epochs=check_epochs(epochs),
        clip=check_clip(clip),
        kl_weight=check_kl_weight(kl_weight),
        signal_rule=check_signal_rule(signal_rule),
    )


def policy_from_logits(logits: Sequence[Decimal]) -> Policy:
    """Return the policy with these logits: p_i = exp(z_i - max z) / sum_j exp(z_j - max z)."""
    largest = max(logits)
    weights = [CONTEXT.exp(CONTEXT.subtract(z, largest)) for z in logits]
    total = add_in_order(weights)
    return Policy(tuple(logits), tuple(CONTEXT.divide(w, total) for w in weights))


def kl_terms(policy: Sequence[Decimal], reference: Sequence[Decimal]) -> tuple[Decimal, ...]:
    """Return each answer's p_i ln(p_i / q_i); 0 where p_i is 0 (its limit), so an answer trained away costs nothing."""
    return tuple(CONTEXT.multiply(p, CONTEXT.ln(CONTEXT.divide(p, q))) if p > 0 else ZERO for p, q in zip(policy, reference))


def group_signals(rewards: tuple[float, ...], rule: str) -> tuple[float, ...]:
    """Return the group's signals: R_k - mean ("mean"), or (R_k - mean) / sigma with the population sigma ("std", all 0 when sigma is 0)."""
    if rule == "std":
        return normalised_signals(rewards).signals
    return summarise_checked_rewards(rewards).signals


def is_clipped(ratio: Decimal, signal: Decimal, low: Decimal, high: Decimal) -> bool:
    """A sample is clipped when its ratio is past the band in the direction its signal favours: its term is then flat."""
    return (signal > 0 and ratio > high) or (signal < 0 and ratio < low)


def update_step(
    policy: Policy,
    behaviour: Policy,
    reference: Policy,
    indices: Sequence[int],
    signal_of: dict[int, Decimal],
    settings: TrainingSettings,
) -> tuple[Policy, list[Decimal], dict[int, bool]]:
    """Take one full-batch gradient step on the group; return the new policy, each answer's ratio and each drawn answer's clipped flag.

    g_j = (1/K) sum over unclipped k of c_k rho_k (1[j = y_k] - p_j)
          - beta p_j (ln(p_j / ref_j) - KL(pi_theta || pi_ref)),
    then theta <- theta + alpha g. `indices` are the drawn answers y_k and
    `signal_of` each drawn answer's signal: a reward is its answer's, so
    every draw of one answer has the same signal, and the same ratio, and is
    clipped or not with the others: the first sum is pull_j - p_j W, with
    pull_j = (unclipped draws of j) * c_j * rho_j and W the sum of the pulls
    in answer order. The same sum, in a few decimal operations whatever K is.
    """
    epsilon = exact_decimal(settings.clip)
    low, high = CONTEXT.subtract(ONE, epsilon), CONTEXT.add(ONE, epsilon)
    p = policy.probabilities
    ratio_of = [CONTEXT.divide(now, then) if then > 0 else ZERO for now, then in zip(p, behaviour.probabilities)]
    clipped_of = {index: is_clipped(ratio_of[index], signal, low, high) for index, signal in signal_of.items()}
    counts = [indices.count(j) for j in range(len(p))]
    pulls = [
        CONTEXT.multiply(Decimal(counts[j]), CONTEXT.multiply(signal_of[j], ratio_of[j]))
        if counts[j] and not clipped_of[j]
        else ZERO
        for j in range(len(p))
    ]
    total_pull = add_in_order(pulls)
    count = Decimal(len(indices))
    surrogate = [CONTEXT.divide(CONTEXT.subtract(pull, CONTEXT.multiply(p_j, total_pull)), count) for pull, p_j in zip(pulls, p)]
    gradient = with_kl_penalty(surrogate, p, reference, settings)
    alpha = exact_decimal(settings.learning_rate)
    logits = [CONTEXT.add(theta_j, CONTEXT.multiply(alpha, g_j)) for theta_j, g_j in zip(policy.logits, gradient)]
    return policy_from_logits(logits), ratio_of, clipped_of


def with_kl_penalty(
    surrogate: Sequence[Decimal], p: Sequence[Decimal], reference: Policy, settings: TrainingSettings
) -> list[Decimal]:
    """Subtract beta p_j (ln(p_j / ref_j) - KL) from each logit's surrogate gradient; with beta = 0 there is nothing to subtract."""
    if settings.kl_weight == 0:
        return list(surrogate)
    beta = exact_decimal(settings.kl_weight)
    terms = kl_terms(p, reference.probabilities)
    kl = add_in_order(terms)
    gradient = []
    for g_j, p_j, term in zip(surrogate, p, terms):
        # term = p_j ln(p_j / ref_j), so beta p_j (ln(p_j / ref_j) - KL) = beta (term - p_j KL).
        penalty = CONTEXT.multiply(beta, CONTEXT.subtract(term, CONTEXT.multiply(p_j, kl)))
        gradient.append(CONTEXT.subtract(g_j, penalty))
    return gradient


def expected_reward_of(policy: Policy) -> Decimal:
    """Return sum_i p_i r_i, the reward the policy earns on average."""
    return add_in_order(CONTEXT.multiply(p, exact_decimal(c.reward)) for p, c in zip(policy.probabilities, CANDIDATES))


def _floats(values: Sequence[Decimal]) -> list[float]:
    # + 0.0 turns a -0.0 into 0.0, so the JSON never carries a negative zero.
    return [float(value) + 0.0 for value in values]


def run_training(
    rounds: object = DEFAULT_ROUNDS,
    group_size: object = DEFAULT_TRAINING_GROUP_SIZE,
    seed: object = DEFAULT_SEED,
    learning_rate: object = DEFAULT_LEARNING_RATE,
    epochs: object = DEFAULT_EPOCHS,
    clip: object = DEFAULT_CLIP,
    kl_weight: object = DEFAULT_KL_WEIGHT,
    signal_rule: object = DEFAULT_SIGNAL_RULE,
) -> dict[str, Any]:
    """Run R rounds of collect, score and E clipped-surrogate updates; return the JSON-ready record.

    Raises SettingError (a ValueError) naming the first bad setting.
    """
    settings = check_training_settings(rounds, group_size, seed, learning_rate, epochs, clip, kl_weight, signal_rule)
    reference = policy_from_logits([exact_decimal(c.logit) for c in CANDIDATES])
    policy = reference
    state = settings.seed
    record_rounds = []
    for number in range(1, settings.rounds + 1):
        behaviour = policy
        drawing = _floats(behaviour.probabilities)
        indices = []
        for _ in range(settings.group_size):
            # One stream for the whole run: each round goes on from the last round's state.
            state = next_state(state)
            indices.append(draw_index(uniform_from_state(state), drawing))
        rewards = tuple(CANDIDATES[index].reward for index in indices)
        signals = group_signals(rewards, settings.signal_rule)
        signal_of = {index: exact_decimal(signal) for index, signal in zip(indices, signals)}
        epoch_records = []
        for _ in range(settings.epochs):
            policy, ratio_of, clipped_of = update_step(policy, behaviour, reference, indices, signal_of, settings)
            # Each answer's ratio is converted once; every draw of it records the same float.
            ratios = _floats(ratio_of)
            epoch_records.append(
                {
                    "ratios": [ratios[index] for index in indices],
                    "clipped": [clipped_of[index] for index in indices],
                    "probabilities": _floats(policy.probabilities),
                }
            )
        record_rounds.append(
            {
                "round": number,
                "behaviour": drawing,
                "indices": indices,
                "rewards": list(rewards),
                "signals": list(signals),
                "epochs": epoch_records,
                "expected_reward": float(expected_reward_of(policy)),
                "kl": float(add_in_order(kl_terms(policy.probabilities, reference.probabilities))) + 0.0,
            }
        )
    return {
        "settings": settings.to_json(),
        "start": {
            "probabilities": _floats(reference.probabilities),
            "expected_reward": float(expected_reward_of(reference)),
            "kl": 0.0,
        },
        "rounds": record_rounds,
    }
