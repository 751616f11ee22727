"""The Node the build runs (sitegen/node.py): the venv's pinned LTS, with its stable permission model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sitegen.node import find_node, permission_flag


def test_the_build_runs_the_venvs_pinned_node_24_lts():
    node = find_node()
    assert node is not None and Path(node).is_relative_to(Path(sys.prefix))
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout
    assert version.startswith("v24.")


def test_the_permission_model_is_asked_for_by_its_stable_name_and_holds():
    node = find_node()
    assert node is not None
    assert permission_flag(node) == "--permission"
    probe = "try { require('fs').readFileSync('/etc/hostname'); console.log('read') } catch (e) { console.log(e.code) }"
    denied = subprocess.run([node, "--permission", "-e", probe], capture_output=True, text=True, check=True)
    assert denied.stdout.strip() == "ERR_ACCESS_DENIED"
