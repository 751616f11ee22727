// Compute parity results inside Pyodide 314 under Node, offline: request JSON on
// stdin, results JSON on stdout (see parity_records.py). One runtime start.
// Usage: node run_parity.mjs [STDLIB_ZIP] — with the lab's trimmed standard
// library, as the browser lab starts, so the grid proves the trimmed zip too.

import fs from "node:fs";
import path from "node:path";

import { assertNoNetworkUse } from "./network_guard.mjs";
import { HOME, installCore, REPOSITORY, runMain, startPyodide } from "./pyodide_node.mjs";

async function runParity() {
  const request = fs.readFileSync(0, "utf8");
  const started = performance.now();
  // Anything Python prints goes to stderr: stdout carries only the results.
  const pyodide = await startPyodide({ stdout: process.stderr, stdLibURL: process.argv[2] });
  installCore(pyodide);
  pyodide.FS.writeFile(
    `${HOME}/parity_records.py`,
    new Uint8Array(fs.readFileSync(path.join(REPOSITORY, "tests", "pyodide", "parity_records.py"))),
  );
  pyodide.runPython(`import sys; sys.path.insert(0, "${HOME}")`);
  const loaded = performance.now();
  const compute = pyodide.pyimport("parity_records").compute_parity_results;
  const results = compute(request);
  const finished = performance.now();
  console.error(
    `timing: pyodide start ${((loaded - started) / 1000).toFixed(1)} s, ` + `computing ${((finished - loaded) / 1000).toFixed(2)} s`,
  );
  assertNoNetworkUse();
  await new Promise((resolve) => process.stdout.write(results, resolve));
  return 0;
}

runMain(runParity);
