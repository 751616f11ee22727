// Start Pyodide 314 under Node from node_modules, offline, and fill its file system.

import "./network_guard.mjs";

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const PYODIDE_DIRECTORY = path.join(REPOSITORY, "node_modules", "pyodide");
export const WHEEL_DIRECTORY = path.join(REPOSITORY, ".cache", "pyodide-wheels");
export const HOME = "/home/pyodide";

/**
 * Load the runtime from node_modules/pyodide (optionally with another standard library zip). Python's stdout goes to `stdout`
 * (ours by default; a runner whose stdout carries JSON passes process.stderr).
 */
export async function startPyodide({ stdout = process.stdout, stdLibURL = undefined } = {}) {
  const { loadPyodide } = await import(path.join(PYODIDE_DIRECTORY, "pyodide.mjs"));
  // stdLibURL: a trimmed standard library (the lab's), instead of the package's full one.
  const pyodide = await loadPyodide({ indexURL: PYODIDE_DIRECTORY + path.sep, ...(stdLibURL ? { stdLibURL } : {}) });
  // Raw writes keep pytest's progress line and its summary intact.
  const writeTo = (stream) => ({
    write: (bytes) => {
      stream.write(bytes);
      return bytes.length;
    },
  });
  pyodide.setStdout(writeTo(stdout));
  pyodide.setStderr(writeTo(process.stderr));
  return pyodide;
}

/** Install pure wheels by path (never by name, which would reach for the CDN). */
export function installLocalWheels(pyodide) {
  const stamp = path.join(WHEEL_DIRECTORY, ".downloaded");
  if (!fs.existsSync(stamp)) {
    throw new Error(`${WHEEL_DIRECTORY} is not filled; run: make ${path.relative(REPOSITORY, stamp)}`);
  }
  const wheels = fs
    .readdirSync(WHEEL_DIRECTORY)
    .filter((name) => name.endsWith(".whl"))
    .sort();
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  for (const wheel of wheels) {
    // unpackArchive wants a plain Uint8Array, not Node's Buffer subclass.
    const bytes = new Uint8Array(fs.readFileSync(path.join(WHEEL_DIRECTORY, wheel)));
    pyodide.unpackArchive(bytes, "wheel", { extractDir: sitePackages });
  }
  pyodide.runPython("import importlib; importlib.invalidate_caches()");
  return wheels;
}

/** Copy a host directory into Pyodide's file system, skipping caches. */
export function copyTree(pyodide, hostDirectory, pyodideDirectory) {
  pyodide.FS.mkdirTree(pyodideDirectory);
  for (const entry of fs.readdirSync(hostDirectory, { withFileTypes: true })) {
    if (entry.name === "__pycache__" || entry.name.startsWith(".")) continue;
    const source = path.join(hostDirectory, entry.name);
    const target = `${pyodideDirectory}/${entry.name}`;
    if (entry.isDirectory()) copyTree(pyodide, source, target);
    else if (entry.isFile()) pyodide.FS.writeFile(target, new Uint8Array(fs.readFileSync(source)));
  }
}

/** Copy the core into Pyodide and make it importable. */
export function installCore(pyodide) {
  copyTree(pyodide, path.join(REPOSITORY, "pysrc", "rollout_lab"), `${HOME}/pysrc/rollout_lab`);
  pyodide.runPython(`import sys; sys.path.insert(0, "${HOME}/pysrc")`);
}

/** Run the async main of a runner; on an error print its message (not Node's dump of minified source) and exit 1. */
export function runMain(main) {
  main().then(
    (status) => process.exit(status),
    (error) => {
      console.error(`${path.basename(process.argv[1])}: ${error?.stack ?? error}`);
      process.exit(1);
    },
  );
}
