// Which files of Pyodide's python_stdlib.zip the browser lab needs: start the
// runtime as lab-worker.js does (from the full standard library), unpack the
// core archive, run the worker's own bridge, render every widget with good and
// bad settings and let one unexpected error cross into JavaScript; then list
// the stdlib files behind every module imported. Prints the sorted list as
// JSON on stdout. Usage: node find_lab_stdlib.mjs CORE_ZIP [STDLIB_ZIP LOCK_FILE]
// (with them, Pyodide starts from the trimmed zip and lock file, which must suffice).
// With --start instead: only the files behind what every start imports, the
// core and the cells' kernel (its baseline: the modules every page of cells keeps), the
// boot part of the standard library (pysrc/sitegen/assets/stdlib_parts.py).
// The list is committed (pysrc/sitegen/assets/lab_stdlib.txt); tests/pyodide checks
// it is still what this finds, and that the lab runs from the trimmed zip.

import fs from "node:fs";
import path from "node:path";

import { importSnapshotModules, startPyodide } from "../../client/python/pyodide-start.mjs";
import { assertNoNetworkUse } from "./network_guard.mjs";
import { PYODIDE_DIRECTORY, REPOSITORY, runMain } from "./pyodide_node.mjs";

const WORKER = path.join(REPOSITORY, "client", "lab-worker.js");

export function bridgeSource() {
  const match = fs.readFileSync(WORKER, "utf8").match(/const BRIDGE_SOURCE = `([\s\S]*?)`;/);
  if (match === null) throw new Error(`no BRIDGE_SOURCE in ${WORKER}`);
  return match[1];
}

/** Start Pyodide with the workers' own start-up module, unpack the core and run the worker's bridge; returns render_as_json. */
export async function startLikeTheWorker(coreZip, options = {}) {
  const { pyodide } = await startPyodide({
    indexURL: PYODIDE_DIRECTORY + path.sep,
    options,
    core: new Uint8Array(fs.readFileSync(coreZip)),
  });
  const namespace = pyodide.globals.get("dict")();
  pyodide.runPython(bridgeSource(), { globals: namespace });
  return { pyodide, renderAsJson: namespace.get("render_as_json") };
}

// Good and bad settings for every widget: error paths import what messages need.
export const EXERCISE = [
  ["sampler", {}],
  ["sampler", { temperature: "2", group_size: "64", seed: "7" }],
  ["sampler", { temperature: "abc" }],
  ["sampler", { group_size: "2.5" }],
  ["sampler", { seed: "" }],
  ["probabilities", { temperature: "0.05" }],
  ["probabilities", { temperature: "1e999" }],
  ["calculator", { rewards: "1, 0.75, 0, 1" }],
  ["calculator", { rewards: "1,,2" }],
  ["training", {}],
  ["training", { rounds: "10", group_size: "64", epochs: "10", kl_weight: "1", signal_rule: "std" }],
  ["training", { clip: "-1" }],
  ["training", { signal_rule: "median" }],
  ["histogram", {}],
];

const LIST_ZIP_FILES = `
import json, sys
zip_path = next(p for p in sys.path if p.endswith(".zip"))
files = set()
for module in list(sys.modules.values()):
    name = getattr(module, "__file__", None) or ""
    if name.startswith(zip_path + "/"):
        files.add(name[len(zip_path) + 1:])
json.dumps(sorted(files))
`;

/** The files behind a start with the cells' kernel imported (sys.modules as the kernel records its baseline). */
async function listStartFiles(coreZip) {
  const kernel = fs.readFileSync(path.join(REPOSITORY, "site_templates", "static", "py", "cell_kernel.py"), "utf8");
  const { pyodide } = await startPyodide({
    indexURL: PYODIDE_DIRECTORY + path.sep,
    core: new Uint8Array(fs.readFileSync(coreZip)),
    files: { "cell_kernel.py": kernel },
  });
  importSnapshotModules(pyodide);
  // Listed from the kernel's own record, so the json imported to list them does not count.
  return pyodide.runPython(`
import cell_kernel, json, sys
zip_path = next(p for p in sys.path if p.endswith(".zip"))
files = {getattr(sys.modules[n], "__file__", None) or "" for n in cell_kernel._BASELINE_MODULES if n in sys.modules}
json.dumps(sorted(f[len(zip_path) + 1:] for f in files if f.startswith(zip_path + "/")))
`);
}

async function main() {
  if (process.argv[2] === "--start") {
    const files = await listStartFiles(process.argv[3]);
    assertNoNetworkUse();
    await new Promise((resolve) => process.stdout.write(`${files}\n`, resolve));
    return 0;
  }
  const [coreZip, stdLibURL, lockFileURL] = process.argv.slice(2);
  const { pyodide, renderAsJson } = await startLikeTheWorker(coreZip, stdLibURL ? { stdLibURL, lockFileURL } : {});
  for (const [name, settings] of EXERCISE) {
    const response = JSON.parse(renderAsJson(name, JSON.stringify(settings)));
    // Only the expected failures: a bad setting, or the unknown widget; never a missing module.
    if (!response.ok && response.error.field === null && !response.error.message.startsWith("ValueError: unknown lab widget")) {
      throw new Error(`${name} ${JSON.stringify(settings)}: ${response.error.message}`);
    }
  }
  try {
    pyodide.runPython("raise RuntimeError('an unexpected failure, formatted for the page')");
  } catch (error) {
    // lab-worker.js reads the last line of a PythonError's traceback.
    if (!String(error.message).trim().endsWith("RuntimeError: an unexpected failure, formatted for the page")) throw error;
  }
  const files = pyodide.runPython(LIST_ZIP_FILES);
  assertNoNetworkUse();
  await new Promise((resolve) => process.stdout.write(`${files}\n`, resolve));
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runMain(main);
}
