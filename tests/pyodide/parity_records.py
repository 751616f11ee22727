"""What the parity test compares, computed by this same file in CPython and in Pyodide.

Floats are written with float.hex, so two runtimes agree only if every bit
agrees; the records' own JSON (repr-based) and the display text are compared
as well.
"""

import json

from rollout_lab import (
    batch_signals,
    compare_signal_rules,
    completion_probabilities,
    group_statistics,
    present_group,
    present_lab,
    run_lab,
    sample_token_group,
    softmax_probabilities,
    token_credit,
    token_update,
    token_values,
)
from rollout_lab.figures.clipped_objective import render_clipped_objective
from rollout_lab.figures.estimator_variance import render_estimator_variance
from rollout_lab.figures.reward_kl_frontier import render_reward_kl_frontier, trace_frontier
from rollout_lab.figures.update_step import render_update_step
from rollout_lab.learning.training import run_training
from rollout_lab.update import (
    KL_ESTIMATORS,
    average_kl_estimate,
    clipped_objective,
    kl_divergence,
    kl_sample_estimate,
    logit_step,
    normalised_signals,
    probabilities_after_step,
    probability_slopes,
)
from rollout_lab.widgets import render_widget


def encode_floats_as_hex(value):
    """Return the value with every float replaced by its float.hex text."""
    if isinstance(value, float):
        return float.hex(value)
    if isinstance(value, dict):
        return {key: encode_floats_as_hex(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode_floats_as_hex(item) for item in value]
    return value


def compute_parity_results(request_json: str) -> str:
    """Run every requested lab setting, softmax, reward list and widget; return the results as JSON text."""
    request = json.loads(request_json)
    results = {
        "records": [],
        "probabilities": [],
        "groups": [],
        "widgets": [],
        "updates": [],
        "figures": [],
        "trainings": [],
        "tokens": [],
        "estimators": [],
        "credits": [],
    }
    for temperature, group_size, seed in request["settings"]:
        record = run_lab(temperature, group_size, seed)
        results["records"].append(
            {
                "settings": [temperature, group_size, seed],
                "hex": encode_floats_as_hex(record),
                "json": json.dumps(record, ensure_ascii=False),
                "shown": present_lab(record),
            }
        )
        # What chapters 4 to 6 print about an update: the same bits in the build and the browser.
        results["updates"].append(
            encode_floats_as_hex(
                {
                    "logit_step": logit_step(record),
                    "after": probabilities_after_step(record, 0.5),
                    "slopes": probability_slopes(record),
                    "kl": kl_divergence(softmax_probabilities(record["settings"]["temperature"]), softmax_probabilities(1.0)),
                    "clipped": [clipped_objective(d["u"] * 2, d["signal"]) for d in record["draws"]],
                    # Chapter 5's three KL estimates of one sample, and their averages over each policy's draws.
                    "kl_estimates": [
                        [kl_sample_estimate(name, d["u"] + 0.5) for d in record["draws"]]
                        + [
                            average_kl_estimate(name, sampling, softmax_probabilities(0.5), softmax_probabilities(1.0))
                            for sampling in (softmax_probabilities(0.5), softmax_probabilities(1.0))
                        ]
                        for name in KL_ESTIMATORS
                    ],
                }
            )
        )
    for temperature in request["temperatures"]:
        results["probabilities"].append([temperature, encode_floats_as_hex(softmax_probabilities(temperature))])
    for rewards in request["rewards"]:
        statistics = group_statistics(rewards)
        samples = (False, True) if len(statistics.rewards) > 1 else (False,)
        normalised = [encode_floats_as_hex(normalised_signals(rewards, sample=sample).__dict__) for sample in samples]
        results["groups"].append(
            {
                "rewards": rewards,
                "hex": encode_floats_as_hex(statistics.to_json()),
                "shown": present_group(statistics),
                "normalised": normalised,
            }
        )
    for name, settings in request["widgets"]:
        # The HTML the build pre-renders must be the HTML the browser renders live.
        results["widgets"].append({"name": name, "settings": settings, "widget": render_widget(name, settings)})
    for arguments in request.get("trainings", []):
        # The training lab's record, every float as hex: the same bits in the build and the browser.
        results["trainings"].append({"settings": arguments, "hex": encode_floats_as_hex(run_training(*arguments))})
    for temperature, group_size, seed, learning_rate, length_rule in request.get("tokens", []):
        # The token world's three contract functions, every float as hex.
        results["tokens"].append(
            {
                "settings": [temperature, group_size, seed, learning_rate, length_rule],
                "sample": encode_floats_as_hex(sample_token_group(temperature, group_size, seed)),
                "completions": encode_floats_as_hex(completion_probabilities(temperature)),
                "update": encode_floats_as_hex(token_update(temperature, group_size, seed, learning_rate, length_rule)),
            }
        )
    for temperature, group_size in request.get("estimators", []):
        # The estimator's exact figures (issue 38): the same bits for the prose and the figure.
        results["estimators"].append(
            {"settings": [temperature, group_size], "hex": encode_floats_as_hex(compare_signal_rules(temperature, group_size))}
        )
    for temperature, group_size, seed, lam, rule in request.get("credits", []):
        # Chapter 7's exact credit and its batch of prompts (issue 57), every float as hex.
        results["credits"].append(
            {
                "settings": [temperature, group_size, seed, lam, rule],
                "hex": encode_floats_as_hex(
                    {
                        "values": token_values(temperature),
                        "credit": token_credit(temperature, group_size, seed, lam),
                        "batch": batch_signals(temperature, group_size, seed, rule),
                    }
                ),
            }
        )
    results["figures"] = [
        render_clipped_objective(title="t"),
        render_update_step(run_lab(), title="t"),
        render_estimator_variance(compare_signal_rules(), title="t"),
        render_reward_kl_frontier(trace_frontier(), title="t"),
    ]
    return json.dumps(results, ensure_ascii=False)
