"""The shipped core archive works in Pyodide and renders the very same widget HTML as the build."""

from __future__ import annotations

import json
import subprocess

import pytest

from rollout_lab.widgets import render_widget
from site_testing import PROJECT_ROOT, SITE_TESTS
from sitegen.node import find_node

CASES = [
    ["probabilities", {"temperature": "1"}],
    ["probabilities", {"temperature": "0.5"}],
    ["calculator", {"rewards": "1, 0.6, 0, 1"}],
    ["sampler", {}],
    ["sampler", {"temperature": "2", "group_size": "8", "seed": "7"}],
]


@pytest.mark.slow
@pytest.mark.pyodide
def test_widgets_from_the_archive_render_byte_identical_html_in_pyodide(built_sample):
    node = find_node()
    assert node, "node is required"
    (archive,) = (built_sample / "lab").glob("rollout_lab.*.zip")
    (pyodide,) = (built_sample / "pyodide").iterdir()
    result = subprocess.run(
        [node, str(SITE_TESTS / "render_widgets_in_pyodide.mjs"), str(pyodide), str(archive)],
        input=json.dumps(CASES),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=PROJECT_ROOT,
    )
    assert result.returncode == 0, result.stderr
    in_pyodide = json.loads(result.stdout)
    in_cpython = json.loads(json.dumps([render_widget(name, settings) for name, settings in CASES]))
    assert in_pyodide == in_cpython
