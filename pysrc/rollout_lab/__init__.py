"""The toy sampler behind the Rollouts tutorial, its token-level world and the update's estimator figures.

Standard library only and free of I/O, so that the very same code runs in the
build (CPython) and in the reader's browser (Pyodide) and gives bit-identical
records in both.
"""

from rollout_lab.display import (
    format_logit,
    format_number,
    format_percent,
    format_signal,
    format_u,
    present_group,
    present_lab,
    present_probabilities,
)
from rollout_lab.estimator import ESTIMATOR_RULES, compare_signal_rules, compute_policy_gradient
from rollout_lab.record import run_lab
from rollout_lab.sampling import (
    draw_index,
    first_uniforms,
    next_state,
    sample_group,
    softmax_probabilities,
    uniform_from_state,
)
from rollout_lab.statistics import GroupStatistics, expected_reward, group_statistics
from rollout_lab.token_rollouts import completion_probabilities, sample_token_group
from rollout_lab.token_update import check_length_rule, token_update
from rollout_lab.token_world import LENGTH_RULES, TOKEN_STATES, TokenOption, TokenState
from rollout_lab.validation import (
    SettingError,
    check_group_size,
    check_seed,
    check_temperature,
    parse_rewards,
)
from rollout_lab.world import (
    CANDIDATES,
    DEFAULT_GROUP_SIZE,
    DEFAULT_SEED,
    DEFAULT_TEMPERATURE,
    PROMPT,
    Candidate,
)

__all__ = [
    "CANDIDATES",
    "DEFAULT_GROUP_SIZE",
    "DEFAULT_SEED",
    "DEFAULT_TEMPERATURE",
    "ESTIMATOR_RULES",
    "LENGTH_RULES",
    "PROMPT",
    "TOKEN_STATES",
    "Candidate",
    "GroupStatistics",
    "SettingError",
    "TokenOption",
    "TokenState",
    "check_group_size",
    "check_length_rule",
    "check_seed",
    "check_temperature",
    "compare_signal_rules",
    "completion_probabilities",
    "compute_policy_gradient",
    "draw_index",
    "expected_reward",
    "first_uniforms",
    "format_logit",
    "format_number",
    "format_percent",
    "format_signal",
    "format_u",
    "group_statistics",
    "next_state",
    "parse_rewards",
    "present_group",
    "present_lab",
    "present_probabilities",
    "run_lab",
    "sample_group",
    "sample_token_group",
    "softmax_probabilities",
    "token_update",
    "uniform_from_state",
]
