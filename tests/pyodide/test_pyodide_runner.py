"""The core's own test suite passes inside Pyodide 314 (Python 3.14) under Node, offline."""

import re
import subprocess
import time
from pathlib import Path

import pytest

from sitegen.node import find_node

NODE = find_node() or "node"  # the Node the build runs (sitegen/node.py)

HERE = Path(__file__).parent
REPOSITORY = HERE.parents[1]

# Each test here starts Pyodide under Node: out of `make test-fast`.
pytestmark = pytest.mark.pyodide


def test_core_tests_pass_inside_pyodide(record_property, report_figure):
    started = time.perf_counter()
    result = subprocess.run(
        [NODE, str(HERE / "run_core_tests.mjs")],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=REPOSITORY,
        timeout=600,
    )
    elapsed = time.perf_counter() - started
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-5000:]
    assert re.search(r"^Python 3\.14\.\d+ \(Pyodide 314\.0\.7,", result.stdout, re.MULTILINE), result.stdout[:500]
    summary = re.search(r"^=*\s*(\d+) passed.* in [\d.]+s", result.stdout, re.MULTILINE)
    assert summary, output[-3000:]
    passed = int(summary.group(1))
    assert passed > 0
    assert not re.search(r"\d+ (failed|errors?)\b", summary.group(0))
    record_property("pyodide_passed", passed)
    timing = re.search(r"^timing: .*$", result.stdout, re.MULTILINE)
    report_figure(f"tests/core inside Pyodide: {summary.group(0).strip('= ')}; node run {elapsed:.1f} s ({timing.group(0)})")


def test_network_guard_refuses_the_cdn_fallback():
    # Asking Pyodide for a package by name that is not in node_modules makes it
    # reach for its CDN; the guard must refuse that before any connection.
    probe = """
import { startPyodide } from "./tests/pyodide/pyodide_node.mjs";
import { assertNoNetworkUse } from "./tests/pyodide/network_guard.mjs";
const pyodide = await startPyodide();
const loaded = await pyodide.loadPackage("numpy", { messageCallback: () => {}, errorCallback: () => {} });
console.log(`loadPackage resolved to ${JSON.stringify(loaded)}`);
let httpsRefused = false;
try { (await import("node:https")).get("https://pypi.org/"); } catch { httpsRefused = true; }
console.log(`https refused: ${httpsRefused}`);
assertNoNetworkUse();
"""
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", probe],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=REPOSITORY,
        timeout=300,
    )
    assert result.returncode == 3, result.stdout + result.stderr[-3000:]
    # loadPackage does not fail on a missing package: it resolves to [].
    assert result.stdout.splitlines() == ["loadPackage resolved to []", "https refused: true"]
    refused = result.stderr.split("refused network requests:\n", 1)[1].split()
    assert refused[0] == "fetch" and refused[1].startswith("https://cdn.jsdelivr.net/pyodide/v314.0.7/")
    assert refused[2:] == ["https.get", "https://pypi.org/"]
