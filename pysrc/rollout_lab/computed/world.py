"""The computed values of the toy world's table: each answer's logit, reward and completion, and the prompt."""

from rollout_lab.display import format_logit, format_number
from rollout_lab.values import ValueDefinition, read_candidate
from rollout_lab.world import CANDIDATES, PROMPT

# The givens of chapter 2's table, by name.
VALUES: dict[str, ValueDefinition] = {
    "logit": ValueDefinition({"candidate": None}, lambda p: format_logit(CANDIDATES[read_candidate(p["candidate"])].logit)),
    "reward": ValueDefinition({"candidate": None}, lambda p: format_number(CANDIDATES[read_candidate(p["candidate"])].reward)),
    "completion": ValueDefinition({"candidate": None}, lambda p: CANDIDATES[read_candidate(p["candidate"])].completion),
    "prompt": ValueDefinition({}, lambda p: PROMPT),
}
