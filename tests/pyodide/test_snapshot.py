"""The memory snapshot the pages' Python starts from: made and restored by the shared start-up module under Node.

The module is client/python/pyodide-start.mjs, the one the build's
cell runner and the browser's workers use (docs/workers.md).
"""

import json
import subprocess
from pathlib import Path

import pytest

from sitegen.assets.stdlib_parts import read_stdlib_parts
from sitegen.node import find_node

NODE = find_node() or "node"  # the Node the build runs (sitegen/node.py)

REPOSITORY = Path(__file__).parents[2]

# Each test here starts Pyodide under Node: out of `make test-fast`.
pytestmark = pytest.mark.pyodide

_PRELUDE = """
import { execSync } from "node:child_process";
import fs from "node:fs";
import { makeSnapshot, SNAPSHOT_ENV, startPyodide } from "./client/python/pyodide-start.mjs";
const indexURL = `${process.cwd()}/node_modules/pyodide/`;
const core = new Uint8Array(execSync("cd pysrc && zip -qr - rollout_lab -x '*__pycache__*'"));
const files = { "cell_kernel.py": fs.readFileSync("site_templates/static/py/cell_kernel.py", "utf8") };
const options = { env: SNAPSHOT_ENV, stdout: () => {}, stderr: () => {} };
// The standard library as the pages get it (sitegen/assets/stdlib_parts.py), its parts in the folder given.
const folder = process.argv[1];
const partsRead = [];
const stdlib = {
  directory: fs.readFileSync(`${folder}/directory.json`),
  readPart: (name) => (partsRead.push(name), new Uint8Array(fs.readFileSync(`${folder}/${name}`))),
};
const made = await startPyodide({ indexURL, options: { ...options, _makeSnapshot: true }, core, files, stdlib });
"""


@pytest.fixture(scope="module")
def parts_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("stdlib")
    stdlib = read_stdlib_parts(REPOSITORY / "node_modules" / "pyodide" / "python_stdlib.zip")
    (folder / "directory.json").write_bytes(stdlib.directory)
    for name, data in stdlib.parts.items():
        (folder / name).write_bytes(data)
    return folder


def run_node(script: str, parts_folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [NODE, "--input-type=module", "-e", _PRELUDE + script, str(parts_folder)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=REPOSITORY,
        timeout=300,
    )


def test_a_restored_python_has_the_core_and_kernel_imported_and_a_fresh_random_state(parts_folder: Path):
    # makeSnapshot refuses a heap past Pyodide's initial size, so this also shows the real imports fit in it.
    probe = """
const snapshot = makeSnapshot(made.pyodide);
const madeWith = [...partsRead];
partsRead.length = 0;
const probe = `import json, random, sys
json.dumps({"imported": sorted(m for m in ("cell_kernel", "rollout_lab", "rollout_lab.widgets") if m in sys.modules),
            "random": random.random(), "hash": hash("rollouts")})`;
const results = [];
for (let i = 0; i < 2; i++) {
  const { pyodide } = await startPyodide({ indexURL, options, core, files, snapshot, stdlib });
  results.push(JSON.parse(pyodide.runPython(probe)));
  const kernel = pyodide.pyimport("cell_kernel");
  const output = kernel.run_collected(kernel.CellPage(), 1, "import random, rollout_lab\\nprint(random.random())");
  results.push(output.toJs({ dict_converter: Object.fromEntries }));
}
const restoredRead = [...partsRead];
const { pyodide } = await startPyodide({ indexURL, options, core, files, snapshot, stdlib });
pyodide.runPython("import statistics");
console.log(JSON.stringify({ length: snapshot.length, results, madeWith, restoredRead, statistics: partsRead.slice(restoredRead.length) }));
"""
    result = run_node(probe, parts_folder)
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
    # Made with the parts: the start read only the boot part. Restored, Python fetched nothing, not even for a page's
    # first cell importing the core (the kernel's baseline holds it); a module first imported later, its part.
    assert [name.split(".")[0] for name in report["madeWith"]] == ["python_stdlib-00-boot"]
    assert report["restoredRead"] == []  # two restores, a cell each
    statistics = [name.split(".")[0] for name in report["statistics"]]
    assert "python_stdlib-00-boot" not in statistics
    assert [name for name in statistics if name.startswith("python_stdlib-")]
    assert len(statistics) == len(set(statistics))  # each part once


def test_a_snapshot_of_a_heap_past_its_initial_size_is_refused(parts_folder: Path):
    # Pyodide 314 restores into a heap of its initial size (pyodide#6254): such a snapshot would fail in every browser.
    result = run_node(
        """
try {
  makeSnapshot(made.pyodide, "import cell_kernel\\nkept = bytearray(16 * 1024 * 1024)");
  console.log("made");
} catch (error) {
  console.log(error.message);
}
""",
        parts_folder,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    message = result.stdout.strip()
    assert message.startswith("the heap grew to "), message
    assert message.endswith(" bytes, past Pyodide's initial 31457280: its snapshot could not be restored")
