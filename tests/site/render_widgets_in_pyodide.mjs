// Start Pyodide from a built site's runtime folder as the browser lab does
// (the standard library's parts, the core archive unpacked into
// site-packages) and print render_widget's results for the cases given on stdin.
// Usage: node render_widgets_in_pyodide.mjs PYODIDE_DIR CORE_ZIP < cases.json
import fs from "node:fs";
import path from "node:path";

import { startPyodide } from "../../client/python/pyodide-start.mjs";

const [pyodideDirectory, archivePath] = process.argv.slice(2);
const directory = fs.readdirSync(pyodideDirectory).find((name) => /^python_stdlib\.[0-9a-f]{8}\.json$/.test(name));
const { pyodide } = await startPyodide({
  indexURL: pyodideDirectory + path.sep,
  core: new Uint8Array(fs.readFileSync(archivePath)),
  stdlib: {
    directory: fs.readFileSync(path.join(pyodideDirectory, directory)),
    readPart: (name) => new Uint8Array(fs.readFileSync(path.join(pyodideDirectory, name))),
  },
});
pyodide.globals.set("cases_json", fs.readFileSync(0, "utf8"));
const output = pyodide.runPython(`
import json
from rollout_lab.widgets import render_widget
json.dumps([render_widget(name, settings) for name, settings in json.loads(cases_json)])
`);
process.stdout.write(output);
