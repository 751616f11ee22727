// Unpack the built core archive into Pyodide's site-packages (as the browser
// lab does) and print render_widget's results for the cases given on stdin.
// Usage: node render_widgets_in_pyodide.mjs PYODIDE_DIR CORE_ZIP < cases.json
import fs from "node:fs";
import path from "node:path";

const [pyodideDirectory, archivePath] = process.argv.slice(2);
const { loadPyodide } = await import(path.join(pyodideDirectory, "pyodide.mjs"));
const pyodide = await loadPyodide({ indexURL: pyodideDirectory + path.sep });
const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
pyodide.unpackArchive(new Uint8Array(fs.readFileSync(archivePath)), "zip", { extractDir: sitePackages });
pyodide.globals.set("cases_json", fs.readFileSync(0, "utf8"));
const output = pyodide.runPython(`
import json
from rollout_lab.widgets import render_widget
json.dumps([render_widget(name, settings) for name, settings in json.loads(cases_json)])
`);
process.stdout.write(output);
