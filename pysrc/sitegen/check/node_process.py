"""What the build's kept-alive Node helpers (KaTeX, the Python cell runner) share."""

from __future__ import annotations

import subprocess


def kill_node(process: subprocess.Popen[str] | None) -> None:
    """Kill a helper process and close its pipes (it holds nothing worth flushing); nothing for None."""
    if process is None:
        return
    process.kill()
    process.wait()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream:
            stream.close()
