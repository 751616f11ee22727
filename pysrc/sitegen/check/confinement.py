"""The operating system's sandbox around the cell runner: Bubblewrap (bwrap), where the machine has it.

Inside it the runner has no network (a namespace of its own, with nothing in
it), no other process (a PID namespace of its own: it can signal nothing of
the build's), an empty environment (no variable of the build's, a CI job's
secrets among them; only bwrap's PWD=/) and a root holding exactly the runtime's files, each bound
read-only: Node and the libraries it links, Pyodide's folder, the runner and
the modules it imports, SES, and the snapshot. Node's permission model and the
frozen intrinsics hold inside it too; where bwrap cannot run (not Linux, not
installed, no user namespaces) they are all that confines a cell, and the
build says so once (docs/authoring.md, "Python cells").
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

BWRAP = "bwrap"
UNCONFINED_NOTE = (
    "note: Python cells run without the operating system's sandbox (bubblewrap: {reason}); only Node's permission "
    "model and frozen JavaScript confine them (apt-get install -y bubblewrap)\n"
)
_told: list[bool] = []  # whether UNCONFINED_NOTE was written (once per process)


@cache
def find_bwrap() -> tuple[str | None, str]:
    """Return bwrap's path if it runs here (a sandbox is made once to know), else None; and why not."""
    if not sys.platform.startswith("linux"):
        return None, "not Linux"
    bwrap = shutil.which(BWRAP)
    if bwrap is None:
        return None, "not installed"
    try:
        tried = subprocess.run(
            [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as error:
        return None, str(error)
    if tried.returncode != 0:
        return None, (tried.stderr.strip().splitlines() or ["it cannot make a sandbox here"])[-1]
    return bwrap, ""


def confine(command: Sequence[str], readable: Iterable[Path]) -> list[str]:
    """Return `command` run inside bwrap with only `readable` (and the libraries its program links) bound read-only,
    or `command` as it is where bwrap cannot run (told once on standard error)."""
    bwrap, reason = find_bwrap()
    if bwrap is None:
        if not _told:
            _told.append(True)
            sys.stderr.write(UNCONFINED_NOTE.format(reason=reason))
        return list(command)
    program = Path(command[0])
    paths = {program, *find_libraries(program), *readable}
    pairs = {(str(path.resolve()), str(path)) for path in paths} | {(str(path.resolve()),) * 2 for path in paths}
    # Only what exists (a snapshot not made yet is not bound: the runner then makes it); a folder before what is in it.
    binds = sorted(pairs, key=lambda pair: (pair[1], pair[0]))
    return [
        bwrap,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--clearenv",  # bwrap then sets PWD alone: "/", below
        "--chdir",
        "/",
        *(argument for source, target in binds if Path(source).exists() for argument in ("--ro-bind", source, target)),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        *command,
    ]


def find_libraries(program: Path) -> list[Path]:
    """Return the shared libraries `program` links, its loader among them (as ldd lists them)."""
    try:
        listed = subprocess.run(["ldd", str(program)], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    found = []
    for line in listed.splitlines():
        words = line.split()
        path = words[2] if len(words) > 2 and words[1] == "=>" else words[0] if words else ""
        if path.startswith("/"):
            found.append(Path(path))
    return found
