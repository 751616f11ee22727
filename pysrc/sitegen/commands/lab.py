"""`build.py lab`: run a lab widget's core once from the command line (the sampler, or the training lab)."""

import json
from typing import Any

from rollout_lab import PROMPT, format_number, present_lab, run_lab
from rollout_lab.controls import WIDGETS
from rollout_lab.training import run_training
from rollout_lab.training_widget import clipped_count


def format_record_table(record: dict[str, Any]) -> str:
    """Write a record as a plain-text table a person can read in a terminal."""
    view = present_lab(record)
    settings = record["settings"]
    lines = [
        f"Prompt: {PROMPT}",
        f"Temperature {view['settings']['temperature']}, group size {settings['group_size']}, seed {settings['seed']}",
        "",
        f"{'Candidate':<20} {'Logit':>5} {'Reward':>6} {'Probability':>11}",
    ]
    for row in view["probabilities"]["rows"]:
        lines.append(f"{row['completion']:<20} {row['logit']:>5} {row['reward']:>6} {row['probability']:>11}")
    lines.append(f"{'(shown total)':<20} {'':>5} {'':>6} {view['probabilities']['shown_total']:>11}")
    lines += ["", f"{'Draw':>4} {'u':>6}  {'Completion':<20} {'Reward':>6} {'Signal':>7}"]
    for draw in view["draws"]:
        lines.append(f"{draw['draw']:>4} {draw['u']:>6}  {draw['completion']:<20} {draw['reward']:>6} {draw['signal']:>7}")
    lines += ["", f"Group mean: {view['mean']}"]
    return "\n".join(lines)


def format_training_table(record: dict[str, Any]) -> str:
    """Write a training record as the lab's round table, in plain text."""
    settings = record["settings"]
    lines = [
        f"Prompt: {PROMPT}",
        f"{settings['rounds']} rounds, group size {settings['group_size']}, seed {settings['seed']}, "
        f"learning rate {format_number(settings['learning_rate'])}, {settings['epochs']} epochs, "
        f"clip {format_number(settings['clip'])}, KL weight {format_number(settings['kl_weight'])}, "
        f"signal rule {settings['signal_rule']}",
        "",
        f"{'Round':>5} {'Expected reward':>15} {'KL':>7} {'Clipped':>7}",
        f"{'0':>5} {format_number(record['start']['expected_reward']):>15} {'0':>7}",
    ]
    for r in record["rounds"]:
        lines.append(
            f"{r['round']:>5} {format_number(r['expected_reward']):>15} {format_number(r['kl']):>7} {clipped_count(r):>7}"
        )
    return "\n".join(lines)


def render_lab_output(widget: str, settings: dict[str, str], output_format: str) -> str:
    """Run a widget's core with the settings as typed (the rest default) and return JSON or a table; ValueError on a bad one."""
    allowed = WIDGETS[widget].setting_names
    foreign = [name for name in settings if name not in allowed]
    if foreign:
        options = ", ".join("--" + name.replace("_", "-") for name in allowed)
        raise ValueError(f"--{foreign[0].replace('_', '-')} is not a setting of the {widget} lab (its settings: {options})")
    if widget == "training":
        record = run_training(**settings)
        return format_training_table(record) if output_format == "table" else json.dumps(record, indent=2, ensure_ascii=False)
    record = run_lab(**settings)
    if output_format == "table":
        return format_record_table(record)
    return json.dumps(record, indent=2, ensure_ascii=False)
