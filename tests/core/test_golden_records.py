"""run_lab records and their display text for a grid of settings, against golden files.

Compared as text: json writes each float with repr, so equal text means
bit-equal floats (and -0.0 would show up as a difference). The same tests run
inside Pyodide, which makes the golden files a cross-runtime check as well.
"""

import json

from golden_files import GOLDEN_DIRECTORY
from rollout_lab import present_lab, run_lab
from rollout_lab.world import GROUP_SIZE_RANGE, SEED_RANGE, TEMPERATURE_RANGE

TEMPERATURES = [0.05, 0.1, 0.5, 1.0, 2.0, 7.77, 20.0]
GROUP_SIZES_AND_SEEDS = [(1, 0), (3, 1), (6, 20260903), (8, 12345), (64, 0), (64, 2**32 - 1)]
GRID = [(t, k, s) for t in TEMPERATURES for k, s in GROUP_SIZES_AND_SEEDS]


def format_records(records: list[dict]) -> str:
    """Write records as JSON with one line per candidate and per draw, so diffs stay readable."""

    def line(value) -> str:
        return json.dumps(value, ensure_ascii=False)

    blocks = []
    for record in records:
        candidates = ",\n".join("   " + line(c) for c in record["candidates"])
        draws = ",\n".join("   " + line(d) for d in record["draws"])
        blocks.append(
            f' {{"settings": {line(record["settings"])},\n'
            f'  "candidates": [\n{candidates}\n  ],\n'
            f'  "draws": [\n{draws}\n  ],\n'
            f'  "mean": {line(record["mean"])}}}'
        )
    return "[\n" + ",\n".join(blocks) + "\n]\n"


def test_the_golden_records_reach_both_ends_of_every_range_the_core_accepts():
    # Read from the stored golden file and from the core's own ranges, not from GRID,
    # so a narrowed range in world.py or a trimmed golden file is noticed.
    settings = [record["settings"] for record in json.loads((GOLDEN_DIRECTORY / "records.json").read_text(encoding="utf-8"))]
    for name, (low, high) in [("temperature", TEMPERATURE_RANGE), ("group_size", GROUP_SIZE_RANGE), ("seed", SEED_RANGE)]:
        assert {low, high} <= {s[name] for s in settings}, f"records.json has no {name} at {low} and at {high}"


def test_records_match_golden(golden):
    records = [run_lab(t, k, s) for t, k, s in GRID]
    text = format_records(records)
    # The writer must be lossless, or the golden would compare less than the records.
    assert json.loads(text) == records
    golden.check("records.json", text)


def test_display_text_matches_golden(golden):
    shown = [present_lab(run_lab(t, k, s)) for t, k, s in GRID if k <= 8]
    golden.check("present-lab.json", json.dumps(shown, ensure_ascii=False, indent=1) + "\n")
