// Run tests/core inside Pyodide 314 under Node, offline; exit with pytest's status.
//
// Usage: node tests/pyodide/run_core_tests.mjs [extra pytest arguments]

import fs from "node:fs";
import path from "node:path";

import { assertNoNetworkUse } from "./network_guard.mjs";
import { copyTree, HOME, installCore, installLocalWheels, REPOSITORY, runMain, startPyodide } from "./pyodide_node.mjs";

async function runCoreTests() {
  const started = performance.now();
  const pyodide = await startPyodide();
  const loaded = performance.now();
  const wheels = installLocalWheels(pyodide);
  installCore(pyodide);
  copyTree(pyodide, path.join(REPOSITORY, "tests", "core"), `${HOME}/tests/core`);
  // The shared tests/conftest.py defines --update-golden, which the golden fixture reads.
  pyodide.FS.writeFile(`${HOME}/tests/conftest.py`, new Uint8Array(fs.readFileSync(path.join(REPOSITORY, "tests", "conftest.py"))));

  const version = pyodide.runPython("import sys; '.'.join(map(str, sys.version_info[:3]))");
  console.log(`Python ${version} (Pyodide ${pyodide.version}, node ${process.version})`);
  console.log(`wheels: ${wheels.join(" ")}`);

  pyodide.globals.set("extra_arguments", pyodide.toPy(process.argv.slice(2)));
  const status = await pyodide.runPythonAsync(`
import os
import pytest

os.chdir("${HOME}")
# No config file here (pyproject's addopts name plugins Pyodide lacks); the
# cache plugin is off because nothing reads it back in a throwaway file system.
int(pytest.main(["tests/core", "--rootdir=${HOME}", "-p", "no:cacheprovider", "-q", "-ra", *extra_arguments]))
`);
  const finished = performance.now();
  console.log(
    `timing: pyodide start ${((loaded - started) / 1000).toFixed(1)} s, ` +
      `setup and tests ${((finished - loaded) / 1000).toFixed(1)} s, total ${((finished - started) / 1000).toFixed(1)} s`,
  );
  assertNoNetworkUse();
  return status;
}

runMain(runCoreTests);
