"""The memory snapshot the pages' Python starts from: made and restored by the shared start-up module under Node.

The module is site_templates/modules/pyodide-start.mjs, the one the build's
cell runner and the browser's workers use (docs/workers.md).
"""

import json
import subprocess
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).parents[2]

# Each test here starts Pyodide under Node: out of `make test-fast`.
pytestmark = pytest.mark.pyodide

_PRELUDE = """
import { execSync } from "node:child_process";
import fs from "node:fs";
import { makeSnapshot, SNAPSHOT_ENV, startPyodide } from "./site_templates/modules/pyodide-start.mjs";
const indexURL = `${process.cwd()}/node_modules/pyodide/`;
const core = new Uint8Array(execSync("cd pysrc && zip -qr - rollout_lab -x '*__pycache__*'"));
const files = { "cell_kernel.py": fs.readFileSync("site_templates/static/py/cell_kernel.py", "utf8") };
const options = { env: SNAPSHOT_ENV, stdout: () => {}, stderr: () => {} };
const made = await startPyodide({ indexURL, options: { ...options, _makeSnapshot: true }, core, files });
"""


def run_node(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["node", "--input-type=module", "-e", _PRELUDE + script],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=REPOSITORY,
        timeout=300,
    )


def test_a_restored_python_has_the_core_and_kernel_imported_and_a_fresh_random_state():
    # makeSnapshot refuses a heap past Pyodide's initial size, so this also shows the real imports fit in it.
    probe = """
const snapshot = makeSnapshot(made.pyodide);
const probe = `import json, random, sys
json.dumps({"imported": sorted(m for m in ("cell_kernel", "rollout_lab", "rollout_lab.widgets") if m in sys.modules),
            "random": random.random(), "hash": hash("rollouts")})`;
const results = [];
for (let i = 0; i < 2; i++) {
  const { pyodide } = await startPyodide({ indexURL, options, core, files, snapshot });
  results.push(JSON.parse(pyodide.runPython(probe)));
  const kernel = pyodide.pyimport("cell_kernel");
  const output = kernel.run_collected(kernel.CellPage(), 1, "import random, rollout_lab\\nprint(random.random())");
  results.push(output.toJs({ dict_converter: Object.fromEntries }));
}
console.log(JSON.stringify({ length: snapshot.length, results }));
"""
    result = run_node(probe)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout)
    first, first_cell, second, second_cell = report["results"]
    assert first["imported"] == second["imported"] == ["cell_kernel", "rollout_lab", "rollout_lab.widgets"]
    # random's state was frozen in the snapshot; each restore reseeds it, as a plain start would be seeded.
    assert first["random"] != second["random"]
    # The hash seed is the snapshot's (PYTHONHASHSEED=0), the one the cells' kernel promises.
    assert first["hash"] == second["hash"]
    # The kernel's page seeds random with its own seed: a cell prints the same number after every restore.
    assert first_cell == second_cell
    assert first_cell["output"][0][1] == "0.8444218515250481\n"
    assert first_cell["raised"] is False


def test_a_snapshot_of_a_heap_past_its_initial_size_is_refused():
    # Pyodide 314 restores into a heap of its initial size (pyodide#6254): such a snapshot would fail in every browser.
    result = run_node("""
try {
  makeSnapshot(made.pyodide, "import cell_kernel\\nkept = bytearray(16 * 1024 * 1024)");
  console.log("made");
} catch (error) {
  console.log(error.message);
}
""")
    assert result.returncode == 0, result.stderr[-3000:]
    message = result.stdout.strip()
    assert message.startswith("the heap grew to "), message
    assert message.endswith(" bytes, past Pyodide's initial 31457280: its snapshot could not be restored")
