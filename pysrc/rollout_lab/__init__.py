"""The toy sampler behind the Rollouts tutorial.

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
    "PROMPT",
    "Candidate",
    "GroupStatistics",
    "SettingError",
    "check_group_size",
    "check_seed",
    "check_temperature",
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
    "softmax_probabilities",
    "uniform_from_state",
]
