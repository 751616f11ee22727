"""`python build.py lab`: the record as JSON, the table, and one-line errors with exit status 2.

Runs build.py as a real subprocess, so "no traceback" and the exit status are
what a user sees. Skipped inside Pyodide, which cannot start processes.
"""

import json
import sys

import pytest

from lab_command import run_build_lab
from rollout_lab import run_lab
from rollout_lab.learning.training import run_training

if sys.platform == "emscripten":
    pytest.skip("subprocesses are not available inside Pyodide", allow_module_level=True)


def test_default_json_is_run_lab():
    result = run_build_lab()
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout) == run_lab()
    assert result.stdout == json.dumps(run_lab(), indent=2, ensure_ascii=False) + "\n"


def test_settings_reach_the_record():
    result = run_build_lab("--temperature", "0.05", "--group-size", "64", "--seed", "4294967295")
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout) == run_lab(0.05, 64, 2**32 - 1)


@pytest.mark.parametrize(
    ("arguments", "golden_name"),
    [
        ((), "lab-table-default.txt"),
        (("--temperature", "7.77", "--group-size", "8", "--seed", "0"), "lab-table-t7.77-k8-seed0.txt"),
    ],
)
def test_table_format(arguments, golden_name, golden):
    result = run_build_lab("--format", "table", *arguments)
    assert (result.returncode, result.stderr) == (0, "")
    golden.check(golden_name, result.stdout)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("--seed", "4294967296"), "Seed must be a whole number from 0 to 4294967295; 4294967296 is too high"),
        (("--seed", "-1"), "Seed must be a whole number from 0 to 4294967295; \u22121 is too low"),
        (("--temperature", "abc"), "Temperature must be a number from 0.05 to 20; \u201cabc\u201d is not a number"),
        (("--temperature", "0"), "Temperature must be a number from 0.05 to 20; 0 is too low"),
        (("--temperature", "nan"), "Temperature must be a number from 0.05 to 20; \u201cnan\u201d is not a number"),
        (("--temperature", ""), "Temperature must be a number from 0.05 to 20; nothing was entered"),
        (("--group-size", "2.5"), "Group size must be a whole number from 1 to 64; 2.5 is not a whole number"),
        (("--group-size", "65", "--seed", "x"), "Group size must be a whole number from 1 to 64; 65 is too high"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, tuple) else None,
)
def test_bad_setting_is_one_line_and_exit_2(arguments, message):
    result = run_build_lab(*arguments)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"build.py lab: {message}\n"


def test_the_training_widget_prints_run_training():
    result = run_build_lab("--widget", "training")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == json.dumps(run_training(), indent=2, ensure_ascii=False) + "\n"
    result = run_build_lab(
        "--widget", "training", "--rounds", "10", "--group-size", "64", "--signal-rule", "std", "--kl-weight", "0.5"
    )
    assert json.loads(result.stdout) == run_training(rounds=10, group_size=64, signal_rule="std", kl_weight=0.5)


def test_the_training_table_has_one_row_per_round(golden):
    result = run_build_lab("--widget", "training", "--format", "table")
    assert (result.returncode, result.stderr) == (0, "")
    golden.check("training-table-default.txt", result.stdout)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("--widget", "training", "--clip", "-1"), "Clip must be a number from 0.01 to 1; \u22121 is too low"),
        (
            ("--widget", "training", "--signal-rule", "median"),
            "Signal rule must be \u201cmean\u201d or \u201cstd\u201d; \u201cmedian\u201d is not one of them",
        ),
        (
            ("--widget", "training", "--temperature", "2"),
            "--temperature is not a setting of the training lab (its settings: --rounds, --group-size, --seed, "
            "--learning-rate, --epochs, --clip, --kl-weight, --signal-rule)",
        ),
        (("--epochs", "2"), "--epochs is not a setting of the sampler lab (its settings: --temperature, --group-size, --seed)"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, tuple) else None,
)
def test_a_bad_training_setting_is_one_line_and_exit_2(arguments, message):
    result = run_build_lab(*arguments)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"build.py lab: {message}\n")
