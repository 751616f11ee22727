"""The package root's names stay exactly: what the chapters' cells, the prose and readers' code import from `rollout_lab`.

The core is grouped by concern in sub-packages (tokens/, learning/,
figures/, widgets/, computed/); the names a reader meets stay importable
from the root, as they were before the modules moved. The list is the
root's `__all__` as it stood then, with issue 57's credit and batch
names added: a name leaves it only on purpose.
"""

import importlib
from collections.abc import Callable

import pytest

import rollout_lab

ROOT_NAMES = [
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


@pytest.mark.parametrize("name", ROOT_NAMES)
def test_each_name_imports_from_the_package_root(name):
    namespace: dict[str, object] = {}
    exec(f"from rollout_lab import {name}", namespace)  # the statement a cell or a reader writes
    assert namespace[name] is getattr(importlib.import_module("rollout_lab"), name)


def test_the_root_exports_exactly_these_names():
    assert sorted(rollout_lab.__all__) == sorted(ROOT_NAMES)
    assert len(set(ROOT_NAMES)) == len(ROOT_NAMES)


def test_the_root_functions_the_chapters_call_are_functions_not_modules():
    # token_update is also the name of the module it once lived in; the root's is the function chapter 6 calls.
    called: list[Callable[..., object]] = [
        rollout_lab.run_lab,
        rollout_lab.run_training,
        rollout_lab.sample_token_group,
        rollout_lab.completion_probabilities,
        rollout_lab.token_update,
    ]
    assert all(callable(function) for function in called)
    assert rollout_lab.token_update()["settings"]["length_rule"] == "sequence_mean"
    assert rollout_lab.PROMPT.startswith("A box has 3 red labels")
