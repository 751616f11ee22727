"""The build reads its cell runner's answers as the protocol allows them (issue 42), whatever the runner writes.

Each runner here is a real node process started in the runner's own sandbox,
in the place of cell_runner.mjs: a planted script that answers its init and
page requests as the real one does, then gives the answer under test to the
cell's run, as a cell that took over the real runner's streams did before
issue 42. Every one must be that cell's error at its line, one line that
names it, with nothing of it reaching the terminal.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import sitegen.check.cell_runner
import sitegen.diagnostics
from site_testing import PROJECT_ROOT
from sitegen.check.cell_runner import ERRORS_LIMIT, CellRunner
from sitegen.diagnostics import Location
from sitegen.model import Cell, CellOptions

RESTARTED = "; Python was restarted"
MALFORMED_NOTE = "a cell on its page changed cell_kernel or the runner"  # written out: the catalogue must print it

# One JavaScript expression per case: what the planted runner writes for the run request `request` (its id: `id`).
FORGED = {
    "not-json": ('"{not json\\n"', "not JSON"),
    "no-output": ("JSON.stringify({ id, ok: true, result: { raised: false } }) + '\\n'", "no 'output'"),
    "no-error": ("JSON.stringify({ id, ok: false }) + '\\n'", "its error has no message"),
    "line-text": (
        "JSON.stringify({ id, ok: true, result: { output: [], raised: true, line: 'x' } }) + '\\n'",
        "'line' is not a line of the cell: 'x'",
    ),
    "line-past": (
        "JSON.stringify({ id, ok: true, result: { output: [], raised: true, line: 7 } }) + '\\n'",
        "'line' is not a line of the cell: 7",
    ),
    "refused-text": (
        "JSON.stringify({ id, ok: true, result: { output: [], raised: true, stopped: true, refused: 'yes' } }) + '\\n'",
        "'refused' is not true or false",
    ),
    "earlier-id": (
        "JSON.stringify({ id: id - 1, ok: true, result: null }) + '\\n'",
        "it answers request 2, not 3",
    ),
    "no-id": ("JSON.stringify({ ok: true, result: { output: [], raised: false } }) + '\\n'", "no id or ok"),
    "list": ("JSON.stringify([id]) + '\\n'", "no id or ok"),
}

PLANTED_RUNNER = """
import readline from "node:readline";
const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const { id, op } = JSON.parse(line);
  if (op === "init") process.stdout.write(JSON.stringify({ id, ok: true, result: { version: "3.14" } }) + "\\n");
  else if (op === "page") process.stdout.write(JSON.stringify({ id, ok: true, result: null }) + "\\n");
  else process.stdout.write(FORGED);
});
"""


def plant_runner(monkeypatch, folder: Path, forged: str) -> CellRunner:
    """Put a script answering `forged` to every run in the place of cell_runner.mjs; return a runner without a cache."""
    script = folder / "planted_runner.mjs"
    script.write_text(PLANTED_RUNNER.replace("FORGED", forged), encoding="utf-8")
    monkeypatch.setattr(sitegen.check.cell_runner, "RUNNER_SCRIPT", script)
    return CellRunner(PROJECT_ROOT / "node_modules" / "pyodide", b"", b"", None)


def one_cell(code: str = "print(1)\nprint(2)") -> tuple[Cell, ...]:
    return (Cell(1, code, CellOptions(), Location("content/a.md", 10), 11),)


@pytest.mark.parametrize("case", list(FORGED))
def test_a_forged_answer_is_the_cells_error_at_its_line(monkeypatch, tmp_path, capfd, case):
    forged, reason = FORGED[case]
    with plant_runner(monkeypatch, tmp_path, forged) as runner:
        outputs, problems = runner.run([one_cell()])
    assert [problem.format() for problem in problems] == [
        f"content/a.md:10: cell 1 got an answer from the runner that it never gives ({reason}): {MALFORMED_NOTE}{RESTARTED}"
    ]
    assert (outputs, capfd.readouterr()) == ({}, ("", ""))


def test_a_runner_flooding_its_standard_error_is_stopped_and_nothing_reaches_the_terminal(monkeypatch, tmp_path, capfd):
    """300 MB of escape sequences and forged diagnostics on the runner's standard error (issue 42)."""
    flood = "(process.stderr.write('\\x1b[2J\\x1b[31mcontent/x.md:1: forged\\n'.repeat(10_000_000)), '')"
    with plant_runner(monkeypatch, tmp_path, flood) as runner:
        outputs, problems = runner.run([one_cell()])
    assert [problem.format() for problem in problems] == [
        f"content/a.md:10: cell 1 made the runner write more than {ERRORS_LIMIT:,} characters to its standard error{RESTARTED}"
    ]
    assert (outputs, capfd.readouterr()) == ({}, ("", ""))


def test_a_runner_that_stops_says_its_last_words_escaped_on_one_line(monkeypatch, tmp_path, capfd):
    crash = "(process.stderr.write('\\x1b[2Jfirst\\n\\u202esecond\\x07\\n'), process.exit(3), '')"
    with plant_runner(monkeypatch, tmp_path, crash) as runner, pytest.raises(sitegen.diagnostics.BuildFailed) as failed:
        runner.run([one_cell()])
    assert [problem.format() for problem in failed.value.diagnostics] == [
        "content/a.md:10: the Python cell runner (node) stopped unexpectedly: \\u202esecond\\x07"
    ]
    assert capfd.readouterr() == ("", "")


def test_the_planted_runner_answers_as_the_real_one_when_it_forges_nothing(monkeypatch, tmp_path):
    """The cases' control: the same script with a well-formed answer gives the cell its output."""
    answer = json.dumps({"output": [["stdout", "1\n"]], "raised": False, "line": None})
    with plant_runner(monkeypatch, tmp_path, f"JSON.stringify({{ id, ok: true, result: {answer} }}) + '\\n'") as runner:
        outputs, problems = runner.run([one_cell()])
    assert (problems, [output.text for output in outputs.values()]) == ([], ["1\n"])
