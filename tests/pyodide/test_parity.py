"""The core gives bit-identical results in CPython and in Pyodide 314 under Node.

One node process computes the whole grid (one Pyodide start); the same
parity_records.py computes it here. Floats are compared as float.hex text,
never approximately, and the display text (present_lab, present_group) and the
widgets' HTML must match character for character.
"""

import json
import random
import subprocess
import time
from pathlib import Path

import pytest

from parity_records import compute_parity_results
from sitegen.assets.lab_stdlib import read_lab_stdlib_list, trim_stdlib
from sitegen.node import find_node

NODE = find_node() or "node"  # the Node the build runs (sitegen/node.py)

HERE = Path(__file__).parent
REPOSITORY = HERE.parents[1]

# Awkward temperatures: extremes, decimals with no exact binary form, 1/3
# written several ways, values typed as strings, and random 17-digit floats.
TEMPERATURES = [
    0.05,
    0.06,
    0.07,
    0.1,
    0.2,
    0.3,
    "0.30",
    1 / 3,
    0.33,
    0.333,
    "0.3333333",
    0.5,
    2 / 3,
    0.7,
    0.9,
    1,
    1.0,
    1.1,
    1.2,
    1.5,
    1.7,
    2,
    2.5,
    3.14159,
    4.2,
    5,
    7.77,
    "7.770",
    9.99,
    12.5,
    13.37,
    19.95,
    20,
    "20",
] + [random.Random(20260903 + n).uniform(0.05, 20) for n in range(6)]
SEEDS = [0, 1, 2, 12345, 20260903, 2**31, 2**32 - 1]
SETTINGS = [
    [temperature, (t * 7 + s * 13) % 64 + 1, seed] for t, temperature in enumerate(TEMPERATURES) for s, seed in enumerate(SEEDS)
] + [[1, 1, 0], [1, 64, 0], [20, 64, 2**32 - 1], [0.05, 64, 2**32 - 1], [0.05, 1, 2**32 - 1]]
DENSE_TEMPERATURES = [round(0.05 + 0.01 * n, 2) for n in range(1996)] + [random.Random(n).uniform(0.05, 20) for n in range(500)]
REWARD_LISTS = ["1,0.75,0,1", "1,0.6,0,1", "0.1,0.2,0.3", "1e-7, 3", "-2.5, 0.333, 17"] + [
    ",".join(repr(random.Random(n).uniform(-5, 5)) for _ in range(1 + n % 64)) for n in range(40)
]


def describe_as_typed(value) -> str:
    """Write a setting the way the browser's text field would hold it."""
    return repr(value) if isinstance(value, float) else str(value)


# run_training over the named settings, both ends of every range and random settings in between.
TRAININGS = [
    [5, 8, 20260903, 1.0, 4, 0.2, 0.0, "mean"],
    [5, 8, 20260903, 0.0, 4, 0.2, 0.0, "mean"],
    [5, 8, 20260903, 1.0, 1, 0.2, 0.0, "mean"],
    [5, 8, 20260903, 1.0, 4, 1.0, 0.0, "mean"],
    [5, 8, 20260903, 1.0, 4, 0.2, 0.5, "mean"],
    [5, 8, 20260903, 1.0, 4, 0.2, 0.0, "std"],
    [5, 1, 20260903, 1.0, 4, 0.2, 0.0, "mean"],
    [10, 8, 20260903, 1.0, 4, 0.2, 0.0, "mean"],
    [5, 64, 20260903, 1.0, 4, 0.2, 0.0, "mean"],
    [10, 64, 2**32 - 1, 5.0, 10, 1.0, 1.0, "std"],
    [10, 64, 0, 5.0, 10, 0.01, 0.0, "std"],
    [1, 1, 0, 0.0, 1, 0.01, 0.0, "mean"],
] + [
    [
        rng.randint(1, 10),
        rng.randint(1, 64),
        rng.randint(0, 2**32 - 1),
        rng.choice([0.5, 2.0, rng.uniform(0, 5), "1.25"]),
        rng.randint(1, 10),
        rng.choice([0.1, 0.3, rng.uniform(0.01, 1)]),
        rng.choice([0.0, 0.1, rng.uniform(0, 1)]),
        rng.choice(["mean", "std"]),
    ]
    for rng in (random.Random(7000 + n) for n in range(20))
]
TRAINING_NAMES = ("rounds", "group_size", "seed", "learning_rate", "epochs", "clip", "kl_weight", "signal_rule")

WIDGETS = (
    [["sampler", {"temperature": describe_as_typed(t), "group_size": str(k), "seed": str(s)}] for t, k, s in SETTINGS[::4]]
    + [["probabilities", {"temperature": describe_as_typed(t)}] for t in TEMPERATURES]
    + [["calculator", {"rewards": rewards}] for rewards in REWARD_LISTS]
    + [["training", {name: describe_as_typed(value) for name, value in zip(TRAINING_NAMES, t)}] for t in TRAININGS[::2]]
)
# The token world (issue 37) over awkward temperatures, every group size's ends, both seeds' ends,
# learning rates 0 to 5 and both length rules; settings as numbers and as typed.
TOKEN_SETTINGS = [
    [
        temperature,
        (t * 11 + 5) % 64 + 1,
        SEEDS[t % len(SEEDS)],
        [0, 1.0, 5, 2.5, "0.5", 1.7][t % 6],
        ["sequence_mean", "token_sum"][t % 2],
    ]
    for t, temperature in enumerate(TEMPERATURES)
] + [
    [1.0, 6, 20260903, 1.0, "sequence_mean"],
    [1.0, 6, 20260903, 1.0, "token_sum"],
    [0.05, 64, 2**32 - 1, 5.0, "token_sum"],
    [20, 64, 0, 5.0, "sequence_mean"],
    [1, 1, 0, 0.0, "sequence_mean"],
    ["0.30", "64", "4294967295", "5", " TOKEN_SUM "],
]
# The estimator's exact enumeration (issue 38): the default, both ends of its group sizes and of the temperatures.
TOKEN_NAMES = ("temperature", "group_size", "seed", "learning_rate", "length_rule")
# The token lab renders the same HTML in both runtimes (its tables, tree and completions figure).
WIDGETS += [["tokens", {name: describe_as_typed(value) for name, value in zip(TOKEN_NAMES, t)}] for t in TOKEN_SETTINGS[::2]]
ESTIMATORS = [[1.0, 6], [1.0, 2], [1.0, 8], [0.05, 6], [20.0, 6], [1 / 3, 5], [7.77, 4], ["2", "6"]]
# Chapter 7's credit and batch (issue 57): the token settings' temperatures, group sizes and seeds, λ across 0 to 1.
CREDITS = [
    [temperature, group_size, seed, [0, 1, 0.5, "0.95", 0.25, 1.0][n % 6], ["mean", "std"][n % 2]]
    for n, (temperature, group_size, seed, *_rest) in enumerate(TOKEN_SETTINGS)
]
# The credit and batch labs render the same HTML in both runtimes (their tables and the credit tree).
WIDGETS += [
    ["credit", {"temperature": describe_as_typed(t), "group_size": str(k), "seed": str(s), "lam": describe_as_typed(lam)}]
    for t, k, s, lam, _ in CREDITS[::2]
] + [
    ["batch", {"temperature": describe_as_typed(t), "group_size": str(k), "seed": str(s), "signal_rule": rule}]
    for t, k, s, _, rule in CREDITS[1::2]
]
REQUEST = {
    "settings": SETTINGS,
    "temperatures": DENSE_TEMPERATURES,
    "rewards": REWARD_LISTS,
    "widgets": WIDGETS,
    "trainings": TRAININGS,
    "tokens": TOKEN_SETTINGS,
    "estimators": ESTIMATORS,
    "credits": CREDITS,
}


def test_grid_is_large_and_covers_the_edges():
    assert len(SETTINGS) >= 200
    assert {k for _, k, _ in SETTINGS} == set(range(1, 65))
    assert {0, 2**32 - 1} <= {seed for _, _, seed in SETTINGS}
    assert {0.05, 0.1, 0.3, 1 / 3, 7.77, 20} <= set(TEMPERATURES)
    assert {rule.strip().lower() for *_, rule in TOKEN_SETTINGS} == {"sequence_mean", "token_sum"}
    assert {1, 64} <= {int(k) for _, k, *_ in TOKEN_SETTINGS} and {0.0, 5.0} <= {float(a) for *_, a, _ in TOKEN_SETTINGS}
    assert {2, 8} <= {int(k) for _, k in ESTIMATORS}


@pytest.fixture(scope="module")
def pyodide_results(report_figure, tmp_path_factory) -> dict:
    # The grid runs on the lab's trimmed standard library, as the browser lab does.
    stdlib = tmp_path_factory.mktemp("stdlib") / "python_stdlib.zip"
    stdlib.write_bytes(trim_stdlib(REPOSITORY / "node_modules" / "pyodide" / "python_stdlib.zip", read_lab_stdlib_list()))
    started = time.perf_counter()
    result = subprocess.run(
        [NODE, str(HERE / "run_parity.mjs"), str(stdlib)],
        input=json.dumps(REQUEST),
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=REPOSITORY,
        timeout=300,
    )
    elapsed = time.perf_counter() - started
    assert result.returncode == 0, result.stderr[-3000:]
    report_figure(
        f"parity grid: {len(SETTINGS)} records, {len(DENSE_TEMPERATURES)} softmax rows, {len(REWARD_LISTS)} groups, "
        f"{len(WIDGETS)} widgets, {len(TRAININGS)} training runs, {len(TOKEN_SETTINGS)} token updates, "
        f"{len(ESTIMATORS)} estimator enumerations; node run {elapsed:.1f} s ({result.stderr.strip()})"
    )
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def cpython_results() -> dict:
    return json.loads(compute_parity_results(json.dumps(REQUEST)))


@pytest.mark.pyodide
@pytest.mark.parametrize("part", ["hex", "json", "shown"])
def test_records_are_identical(part, pyodide_results, cpython_results):
    pyodide, cpython = pyodide_results["records"], cpython_results["records"]
    assert len(pyodide) == len(cpython) == len(SETTINGS)
    differing = [c["settings"] for p, c in zip(pyodide, cpython) if p[part] != c[part]]
    assert differing == []


@pytest.mark.pyodide
def test_probabilities_are_identical(pyodide_results, cpython_results):
    assert len(pyodide_results["probabilities"]) == len(DENSE_TEMPERATURES)
    differing = [c[0] for p, c in zip(pyodide_results["probabilities"], cpython_results["probabilities"]) if p != c]
    assert differing == []


@pytest.mark.pyodide
def test_group_statistics_are_identical(pyodide_results, cpython_results):
    assert len(pyodide_results["groups"]) == len(REWARD_LISTS)
    differing = [c["rewards"] for p, c in zip(pyodide_results["groups"], cpython_results["groups"]) if p != c]
    assert differing == []


@pytest.mark.pyodide
def test_widgets_are_identical(pyodide_results, cpython_results):
    assert len(pyodide_results["widgets"]) == len(WIDGETS)
    differing = [(c["name"], c["settings"]) for p, c in zip(pyodide_results["widgets"], cpython_results["widgets"]) if p != c]
    assert differing == []


@pytest.mark.pyodide
def test_update_numbers_and_generated_figures_are_identical(pyodide_results, cpython_results):
    # rollout_lab.update and its two figures: what chapters 4 to 6 print and draw.
    assert len(pyodide_results["updates"]) == len(SETTINGS)
    differing = [s for p, c, s in zip(pyodide_results["updates"], cpython_results["updates"], SETTINGS) if p != c]
    assert differing == []
    assert pyodide_results["figures"] == cpython_results["figures"]


@pytest.mark.pyodide
def test_training_records_are_identical(pyodide_results, cpython_results):
    pyodide, cpython = pyodide_results["trainings"], cpython_results["trainings"]
    assert len(pyodide) == len(cpython) == len(TRAININGS)
    differing = [c["settings"] for p, c in zip(pyodide, cpython) if p != c]
    assert differing == []


@pytest.mark.pyodide
@pytest.mark.parametrize("part", ["sample", "completions", "update"])
def test_token_world_records_are_identical(part, pyodide_results, cpython_results):
    pyodide, cpython = pyodide_results["tokens"], cpython_results["tokens"]
    assert len(pyodide) == len(cpython) == len(TOKEN_SETTINGS)
    differing = [c["settings"] for p, c in zip(pyodide, cpython) if p[part] != c[part]]
    assert differing == []


@pytest.mark.pyodide
def test_estimator_figures_are_identical(pyodide_results, cpython_results):
    pyodide, cpython = pyodide_results["estimators"], cpython_results["estimators"]
    assert len(pyodide) == len(cpython) == len(ESTIMATORS)
    differing = [c["settings"] for p, c in zip(pyodide, cpython) if p != c]
    assert differing == []


@pytest.mark.pyodide
def test_credit_and_batch_records_are_identical(pyodide_results, cpython_results):
    pyodide, cpython = pyodide_results["credits"], cpython_results["credits"]
    assert len(pyodide) == len(cpython) == len(CREDITS)
    differing = [c["settings"] for p, c in zip(pyodide, cpython) if p != c]
    assert differing == []
