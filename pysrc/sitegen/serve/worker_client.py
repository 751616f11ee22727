"""The dev server's side of the build process (build_worker.py): start it, ask for a rebuild, restart it after a code edit, stop it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

WORKER_STOP_SECONDS = 3


@dataclass(frozen=True)
class BuildOutcome:
    """One answer of the build process."""

    ok: bool
    written: tuple[str, ...] = ()
    rendered: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    seconds: float = 0.0
    traceback: str = ""
    fatal: bool = False


class BuildProcess:
    """The build process (build_worker.py): started, asked to rebuild, restarted after a code change, stopped."""

    def __init__(self, root: Path, out_dir: Path, content: str | None, strict: bool) -> None:
        self._command = [sys.executable, "-m", "sitegen.serve.build_worker", str(root), str(out_dir)]
        if content is not None:
            self._command += ["--content", content]
        if strict:
            self._command.append("--strict")
        self._root = root
        self._process: subprocess.Popen[str] | None = None
        self._errors: TextIO | None = None

    def start(self) -> None:
        """Start a fresh build process (imports the pipeline's current code)."""
        self._errors = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 - open while the process runs; stop() closes it
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(self._root / "pysrc"), os.environ.get("PYTHONPATH", "")])}
        self._process = subprocess.Popen(
            self._command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errors,
            text=True,
            encoding="utf-8",
            env=environment,
            # Its own session: Ctrl-C in the terminal reaches only the server,
            # which then stops this process (and KaTeX) in order.
            start_new_session=True,
        )

    def rebuild(self, reload_everything: bool) -> BuildOutcome:
        """Ask for a rebuild and wait for the answer."""
        if self._process is None or self._process.poll() is not None:
            self.stop()
            self.start()
            reload_everything = True
        process = self._process
        assert process is not None and process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps({"reload": "all" if reload_everything else "content"}) + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            return BuildOutcome(ok=False, problems=(self.describe_crash(),), fatal=True)
        answer = json.loads(line)
        return BuildOutcome(
            ok=answer["ok"],
            written=tuple(answer.get("written", ())),
            rendered=tuple(answer.get("rendered", ())),
            warnings=tuple(answer.get("warnings", ())),
            problems=tuple(answer.get("problems", ())),
            seconds=answer.get("seconds", 0.0),
            traceback=answer.get("traceback", ""),
            fatal=answer.get("fatal", False),
        )

    def describe_crash(self) -> str:
        """Return one line saying why the build process ended (its last line of output, e.g. a SyntaxError)."""
        assert self._process is not None
        try:
            self._process.wait(timeout=WORKER_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
        output = ""
        if self._errors is not None:
            self._errors.seek(0)
            output = self._errors.read()
        if output.strip():
            print(output.rstrip(), file=sys.stderr, flush=True)
        last = output.strip().splitlines()[-1] if output.strip() else f"exit status {self._process.returncode}"
        return f"build.py serve: the build process stopped ({last}); fix the code and save to try again"

    def stop(self) -> None:
        """End the build process: close its input (it stops KaTeX and exits), kill it if it does not."""
        process, self._process = self._process, None
        if process is not None:
            try:
                if process.stdin:
                    process.stdin.close()
            except OSError:
                pass
            try:
                process.wait(timeout=WORKER_STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout:
                process.stdout.close()
        if self._errors is not None:
            self._errors.close()
            self._errors = None
