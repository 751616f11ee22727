"""One lab run as the JSON-ready record shared by the CLI, the site, the browser and the tests."""

from typing import Any

from rollout_lab.sampling import sample_group, softmax_probabilities
from rollout_lab.statistics import summarise_checked_rewards
from rollout_lab.validation import check_group_size, check_seed, check_temperature
from rollout_lab.world import CANDIDATES, DEFAULT_GROUP_SIZE, DEFAULT_SEED, DEFAULT_TEMPERATURE


def run_lab(
    temperature: object = DEFAULT_TEMPERATURE,
    group_size: object = DEFAULT_GROUP_SIZE,
    seed: object = DEFAULT_SEED,
) -> dict[str, Any]:
    """Sample one group from a fresh stream at the seed and return its record.

    Raises ValueError naming the first bad setting.
    """
    checked_temperature = check_temperature(temperature)
    checked_group_size = check_group_size(group_size)
    checked_seed = check_seed(seed)

    probabilities = softmax_probabilities(checked_temperature)
    group = sample_group(probabilities, checked_group_size, checked_seed)
    # The rewards come from the candidate table, so they need no checking.
    statistics = summarise_checked_rewards(tuple(CANDIDATES[index].reward for _, index in group))

    return {
        "settings": {
            "temperature": checked_temperature,
            "group_size": checked_group_size,
            "seed": checked_seed,
        },
        "candidates": [
            {
                "index": candidate.index,
                "completion": candidate.completion,
                "logit": candidate.logit,
                "reward": candidate.reward,
                "probability": probability,
            }
            for candidate, probability in zip(CANDIDATES, probabilities)
        ],
        "draws": [
            {
                "draw": number,
                "u": u,
                "index": index,
                "completion": CANDIDATES[index].completion,
                "reward": CANDIDATES[index].reward,
                "signal": signal,
            }
            for number, ((u, index), signal) in enumerate(zip(group, statistics.signals), start=1)
        ],
        "mean": statistics.mean,
    }
