"""The toy sampler, the training lab, the token-level world and the update's estimator figures behind the Rollouts tutorial.

Standard library only and free of I/O, so that the very same code runs in the
build (CPython) and in the reader's browser (Pyodide) and gives bit-identical
records in both. The one-action world sits at the top (world, sampling,
statistics, record, update); the token world in tokens/, learning beyond one
step in learning/, the charts and the chapters' figures (`FIGURES`) in
figures/, the lab widgets (`WIDGETS`) in widgets/ and the prose's computed
values (`VALUES`) in computed/ (docs/architecture.md, "The layout"). The
names below are what the chapters' cells and readers import from here.
"""

from rollout_lab.display import (
    format_fixed,
    format_logit,
    format_number,
    format_percent,
    format_signal,
    format_u,
    present_group,
    present_lab,
    present_probabilities,
)
from rollout_lab.learning.batch import BATCH_PROMPTS, batch_signals
from rollout_lab.learning.estimator import ESTIMATOR_RULES, compare_signal_rules, compute_policy_gradient
from rollout_lab.learning.training import (
    Policy,
    TrainingSettings,
    check_training_settings,
    policy_from_logits,
    run_training,
    update_step,
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
from rollout_lab.tokens.credit import token_credit, token_values
from rollout_lab.tokens.rollouts import completion_probabilities, sample_token_group
from rollout_lab.tokens.update import check_length_rule, token_update
from rollout_lab.tokens.world import LENGTH_RULES, TOKEN_STATES, TokenOption, TokenState
from rollout_lab.validation import (
    SettingError,
    check_clip,
    check_epochs,
    check_group_size,
    check_kl_weight,
    check_lambda,
    check_learning_rate,
    check_rounds,
    check_seed,
    check_signal_rule,
    check_temperature,
    parse_rewards,
)
from rollout_lab.world import (
    CANDIDATES,
    DEFAULT_CLIP,
    DEFAULT_EPOCHS,
    DEFAULT_GROUP_SIZE,
    DEFAULT_KL_WEIGHT,
    DEFAULT_LAMBDA,
    DEFAULT_LEARNING_RATE,
    DEFAULT_ROUNDS,
    DEFAULT_SEED,
    DEFAULT_SIGNAL_RULE,
    DEFAULT_TEMPERATURE,
    DEFAULT_TRAINING_GROUP_SIZE,
    PROMPT,
    SIGNAL_RULES,
    Candidate,
)

__all__ = [
    "BATCH_PROMPTS",
    "CANDIDATES",
    "DEFAULT_CLIP",
    "DEFAULT_EPOCHS",
    "DEFAULT_GROUP_SIZE",
    "DEFAULT_KL_WEIGHT",
    "DEFAULT_LAMBDA",
    "DEFAULT_LEARNING_RATE",
    "DEFAULT_ROUNDS",
    "DEFAULT_SEED",
    "DEFAULT_SIGNAL_RULE",
    "DEFAULT_TEMPERATURE",
    "DEFAULT_TRAINING_GROUP_SIZE",
    "ESTIMATOR_RULES",
    "LENGTH_RULES",
    "PROMPT",
    "SIGNAL_RULES",
    "TOKEN_STATES",
    "Candidate",
    "GroupStatistics",
    "Policy",
    "SettingError",
    "TokenOption",
    "TokenState",
    "TrainingSettings",
    "batch_signals",
    "check_clip",
    "check_epochs",
    "check_group_size",
    "check_kl_weight",
    "check_lambda",
    "check_learning_rate",
    "check_length_rule",
    "check_rounds",
    "check_seed",
    "check_signal_rule",
    "check_temperature",
    "check_training_settings",
    "compare_signal_rules",
    "completion_probabilities",
    "compute_policy_gradient",
    "draw_index",
    "expected_reward",
    "first_uniforms",
    "format_fixed",
    "format_logit",
    "format_number",
    "format_percent",
    "format_signal",
    "format_u",
    "group_statistics",
    "next_state",
    "parse_rewards",
    "policy_from_logits",
    "present_group",
    "present_lab",
    "present_probabilities",
    "run_lab",
    "run_training",
    "sample_group",
    "sample_token_group",
    "softmax_probabilities",
    "token_credit",
    "token_update",
    "token_values",
    "uniform_from_state",
    "update_step",
]
