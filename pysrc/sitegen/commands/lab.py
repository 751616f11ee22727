"""`build.py lab`: run the toy lab once from the command line."""

import json
from typing import Any

from rollout_lab import PROMPT, present_lab, run_lab


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


def render_lab_output(settings: dict[str, str], output_format: str) -> str:
    """Run the lab with the settings as typed (the rest default) and return JSON or a table; ValueError on a bad one."""
    record = run_lab(**settings)
    if output_format == "table":
        return format_record_table(record)
    return json.dumps(record, indent=2, ensure_ascii=False)
