"""run_lab records and their display text for a grid of settings, against golden files.

Compared as text: json writes each float with repr, so equal text means
bit-equal floats (and -0.0 would show up as a difference). The same tests run
inside Pyodide, which makes the golden files a cross-runtime check as well.
"""

import json

from rollout_lab import present_lab, run_lab

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


def test_grid_covers_the_edges():
    assert len(GRID) == 42
    assert {0.05, 20.0} <= {t for t, _, _ in GRID}
    assert {1, 64} <= {k for _, k, _ in GRID}
    assert {0, 2**32 - 1} <= {s for _, _, s in GRID}


def test_records_match_golden(golden):
    records = [run_lab(t, k, s) for t, k, s in GRID]
    text = format_records(records)
    # The writer must be lossless, or the golden would compare less than the records.
    assert json.loads(text) == records
    golden.check("records.json", text)


def test_display_text_matches_golden(golden):
    shown = [present_lab(run_lab(t, k, s)) for t, k, s in GRID if k <= 8]
    golden.check("present-lab.json", json.dumps(shown, ensure_ascii=False, indent=1) + "\n")
