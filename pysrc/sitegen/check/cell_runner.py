"""Running Python cells at build time: one node process per page, in a sandbox, with the reader's own kernel.

A page's cells run in order in one namespace, fresh for each page, in Pyodide
under Node (cell_runner.mjs) with the same kernel the reader's browser runs
(site_templates/static/py/cell_kernel.py), so the output shown at first paint
is what the browser computes. Outputs are answered from the cache where they
can be (cell_cache.py: keyed by content and this runtime's fingerprint), so a
rebuild where no cell changed never starts node. The runner's first plain
start makes the memory snapshot of Python with the core and kernel imported;
every later start, in the build and in the reader's browser, restores it
(docs/workers.md). A cell's syntax (its `#|` options) is the cell kind's:
kinds/blocks/cell.py.
"""

from __future__ import annotations

import base64
import hashlib
import json
import queue
import re
import subprocess
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitegen.check.cell_cache import (
    OUTPUT_LIMIT,
    SNAPSHOT_LIMIT,
    UNSAFE_CHARACTERS,
    chain_cell_keys,
    discard_unrecorded_snapshot,
    discard_unusable,
    find_cache_entry,
    find_snapshot,
    read_cached,
    read_output,
    record_snapshot,
    remove_other_snapshots,
    write_cached,
)
from sitegen.check.confinement import confine
from sitegen.check.node_process import kill_node
from sitegen.diagnostics import BuildFailed, Diagnostic, Location, Message, report
from sitegen.files.atomic import write_atomically
from sitegen.files.hashes import hash_file
from sitegen.files.paths import RUNTIME_MODULES_FOLDER, find_project_root
from sitegen.messages import (
    CELL_BROKE_KERNEL,
    CELL_FLOODED_ERRORS,
    CELL_FORGED_OUTPUT,
    CELL_MALFORMED_ANSWER,
    CELL_MEMORY,
    CELL_OVERSIZED_ANSWER,
    CELL_RAISED,
    CELL_RAISED_NOTHING,
    CELL_REFUSED,
    CELL_RUNNER_FAILED,
    CELL_RUNNER_STOPPED,
    CELL_STOPPED_PYTHON,
    CELL_TIMEOUT,
    NODE_MISSING_FOR_CELLS,
)
from sitegen.model import Cell, CellOutput
from sitegen.node import find_node, permission_flag

RUNNER_SCRIPT = Path(__file__).with_name("cell_runner.mjs")
# The folder of the modules the runner imports (Pyodide's start and the kernel's names, shared with the browser's
# cells worker): every module in it counts as part of the runtime (a change to any reruns the cells).
RUNNER_MODULES = find_project_root() / RUNTIME_MODULES_FOLDER
# SES (npm `ses`, pinned): the runner's lockdown() freezes JavaScript's intrinsics before any cell runs.
SES_FOLDER = find_project_root() / "node_modules" / "ses"
KERNEL_ASSET = "py/cell_kernel.py"
START_TIMEOUT = 120.0  # Pyodide's start under a loaded machine; not the cell's time
MEMORY_LIMIT = 2 * 1024**3  # resident bytes of the runner before it counts as a runaway
# An answer's longest line: the init's with a snapshot (base64 of about 7 MB), a run's with its output (at most
# OUTPUT_LIMIT characters, each at most 6 in JSON, and a traceback).
ANSWER_LIMIT = 64 * 1024**2
OVERSIZED = "an answer longer than ANSWER_LIMIT"  # what the reader thread queues for one (compared by identity)
# What the runner may write to its standard error (Node's own warnings, a crash's message) before it counts as a
# runaway; none of it reaches the terminal but the last line of a crash, escaped (ERROR_LINE_LIMIT characters).
ERRORS_LIMIT = 1024**2
ERROR_LINE_LIMIT = 300
FLOODED = "more than ERRORS_LIMIT on standard error"  # what the error reader queues past it (compared by identity)
# What a runner's message must not carry to the build's terminal: a line of its own (a forged diagnostic), a control.
TERMINAL_UNSAFE = re.compile(f"[\n\t]|{UNSAFE_CHARACTERS.pattern}")
MAX_PROCESSES = 64  # the runner's tree is bwrap, its init and node; more is none of the runner's making


def fingerprint_runtime(kernel: bytes, core_archive: bytes, runtime: str) -> str:
    """Return what every cell's output depends on besides its page's code: kernel, runner, core and Pyodide."""
    digest = hashlib.sha256()
    modules = b"".join(path.read_bytes() for path in sorted(RUNNER_MODULES.rglob("*.mjs")))
    for part in (kernel, RUNNER_SCRIPT.read_bytes(), modules, core_archive, runtime.encode()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:32]


@dataclass(frozen=True)
class RunnerProcess:
    """A started runner: the process, the queue its answers (and floods) arrive in, what it wrote to standard error
    (and the thread that reads it), and the id of its init request (the first answer it owes)."""

    process: subprocess.Popen[str]
    answers: queue.Queue[str | None]
    errors: list[str]
    errors_reader: threading.Thread
    init_id: int


class CellRunner:
    """Run pages of cells, each page in a node process of its own, answering from .cache/cells/ where it can.

    node is started only when some cell is not in the cache; every page that
    runs gets a fresh process (restored from the memory snapshot), and a cell
    that runs past its timeout or its memory ends its page's process, and the
    build goes on.
    """

    def __init__(
        self,
        pyodide_folder: Path,
        kernel: bytes,
        core_archive: bytes,
        cache_dir: Path | None,
        stdlib: tuple[bytes, Mapping[str, bytes]] = (b"", {}),
        snapshot_record: Path | None = None,
    ) -> None:
        """`stdlib`: the standard library as the pages get it (assets/stdlib_parts.py), its directory and parts by name;
        `snapshot_record`: the file outside the cache that holds the kept snapshot's SHA-256 (paths.SNAPSHOT_RECORD);
        without one, a kept snapshot is trusted as it is."""
        self._node = find_node()
        # The snapshot is made with the pages' layout of the standard library: its directory names every part's hash.
        self._stdlib = stdlib
        self._init_args: str | None = None  # the init request's arguments as JSON, made at the first start
        runtime = f"{hash_runtime(pyodide_folder)}:{hashlib.sha256(stdlib[0]).hexdigest()}"
        self._fingerprint = fingerprint_runtime(kernel, core_archive, runtime)
        self._pyodide_folder = pyodide_folder
        self._kernel = kernel
        self._core_archive = core_archive
        self._cache_dir = cache_dir
        self._snapshot_record = snapshot_record
        self._runner: RunnerProcess | None = None
        self._requests = 0  # the last request's id
        self._served = False  # whether the running process has run a page's cells (it runs no other page's)
        self._spare: RunnerProcess | None = None  # the next page's, starting
        # Keep a runner started for the next run (the dev server: the next edit's page does not wait for a restore).
        self.keep_spare = False
        self.ran = 0  # cells run by node (not the cache) in this runner's life: for tests and benchmarks

    def run(self, pages: Iterable[Sequence[Cell]]) -> tuple[dict[Location, CellOutput], list[Diagnostic]]:
        """Run each page's cells (in page order); return every output by the cell's location, and a problem per failed cell."""
        outputs: dict[Location, CellOutput] = {}
        problems: list[Diagnostic] = []
        to_run = []
        for cells in pages:
            keys = chain_cell_keys(cells)
            cached = [self._read_cached(key) for key in keys]
            if all(output is not None for output in cached):
                outputs.update({cell.location: output for cell, output in zip(cells, cached) if output is not None})
                problems += [problem for cell in cells if (problem := check_output(cell, outputs[cell.location]))]
            else:
                to_run.append((cells, keys))
        for index, (cells, keys) in enumerate(to_run):
            page_outputs, page_problems = self._run_page(cells, keys, another=index + 1 < len(to_run) or self.keep_spare)
            outputs.update(page_outputs)
            problems += page_problems
        if to_run and self.keep_spare:
            self.close(keep_spare=True)  # what waits for the next edit is the spare, pristine
        return outputs, problems

    def _run_page(
        self, cells: Sequence[Cell], keys: Sequence[str], another: bool = False
    ) -> tuple[dict[Location, CellOutput], list[Diagnostic]]:
        """Run one page's cells in a runner of its own; with `another`, start the next page's runner meanwhile."""
        outputs: dict[Location, CellOutput] = {}
        # A Python of the page's own, restored from the snapshot: nothing a cell of another page did (random.seed,
        # os.environ, os.chdir, sys.setrecursionlimit, math.pi, a patched kernel) can reach this page's outputs,
        # so a page's cached outputs depend on its own cells alone, as their keys say.
        if self._served:
            self.close(keep_spare=True)
        self._served = True
        cell = cells[0]
        try:
            self._ask({"op": "page", "args": []}, START_TIMEOUT, cell.location)
            if another:
                self._prepare_spare()
            for cell, key in zip(cells, keys):
                answer = self._ask({"op": "run", "args": [cell.number, cell.code]}, cell.options.timeout, cell.location)
                self.ran += 1
                check_run_result(answer, cell)
                try:
                    output = read_output(answer["output"], answer["raised"])
                except (ValueError, TypeError):
                    self.close(keep_spare=True)
                    return outputs, [report(cell.location, CELL_FORGED_OUTPUT, number=cell.number, limit=OUTPUT_LIMIT)]
                if answer.get("stopped"):
                    self.close(keep_spare=True)  # Pyodide stopped for good
                    reason = escape_for_terminal(output.text.strip())
                    stopped = CELL_REFUSED if answer.get("refused") else CELL_STOPPED_PYTHON
                    return outputs, [report(cell.location, stopped, number=cell.number, reason=reason)]
                problem = check_output(cell, output, answer.get("line"))
                if problem:
                    # Later cells would only fail for want of what this one defines.
                    return outputs, [problem]
                outputs[cell.location] = output
                self._write_cached(key, output)
        except CellRunaway as runaway:
            self.close(keep_spare=True)
            return outputs, [report(cell.location, runaway.message, number=cell.number, **runaway.fields)]
        return outputs, []

    def _start(self, location: Location) -> RunnerProcess:
        if self._runner is not None:
            return self._runner
        if self._node is None:
            raise BuildFailed([report(location, NODE_MISSING_FOR_CELLS)])
        spare, self._spare = self._spare, None
        self._runner = spare if spare is not None else self._launch(self._node)
        started = self._wait(self._runner.init_id, START_TIMEOUT, location)
        snapshot = started.get("snapshot")
        if snapshot is not None and not isinstance(snapshot, str):
            raise MalformedAnswer("its snapshot is not text")
        if snapshot and self.snapshot_path is not None:
            # Made by the runner, which may write nothing; beside, then renamed: a build and the dev server may share the cache.
            try:
                made = base64.b64decode(snapshot, validate=True)
            except ValueError:
                raise MalformedAnswer("its snapshot is not base64") from None
            write_atomically(self.snapshot_path, made)
            if self._snapshot_record is not None:
                record_snapshot(self._snapshot_record, self._fingerprint, made)
        return self._runner

    def _launch(self, node: str) -> RunnerProcess:
        """Start a runner and send it "init" (the start is not awaited).

        Its standard output is read a line at a time (answers), its standard
        error apart: kept, never shown, up to ERRORS_LIMIT characters; past
        them it counts as a runaway (FLOODED), and is read no further.
        """
        if self.snapshot_path is not None:
            discard_unusable(self.snapshot_path, SNAPSHOT_LIMIT)  # node would hang on a FIFO, or read through a link
            if self._snapshot_record is not None:
                discard_unrecorded_snapshot(self.snapshot_path, self._snapshot_record, self._fingerprint)
        process = subprocess.Popen(
            sandboxed_runner_command(node, self._pyodide_folder, self.snapshot_path),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        answers: queue.Queue[str | None] = queue.Queue()
        errors: list[str] = []
        stdout, stderr = process.stdout, process.stderr
        assert stdout is not None and stderr is not None and process.stdin is not None

        def read_answers() -> None:
            # Each line read up to ANSWER_LIMIT characters: past it, the answer is not one the kernel writes, and
            # what follows it is never read (the process is ended).
            while line := stdout.readline(ANSWER_LIMIT + 1):
                answers.put(line if len(line) <= ANSWER_LIMIT else OVERSIZED)
                if len(line) > ANSWER_LIMIT:
                    return
            answers.put(None)

        def read_errors() -> None:
            written = 0
            while chunk := stderr.read(64 * 1024):
                written += len(chunk)
                if written > ERRORS_LIMIT:
                    answers.put(FLOODED)
                    return
                errors.append(chunk)

        threading.Thread(target=read_answers, daemon=True).start()
        errors_reader = threading.Thread(target=read_errors, daemon=True)
        errors_reader.start()
        if self._init_args is None:
            # The same for every page's process: the parts (2.5 MB, 3.4 MB as base64) are encoded once per runner.
            snapshot = str(self.snapshot_path) if self.snapshot_path is not None else ""
            directory, parts = (
                self._stdlib[0].decode(),
                {name: base64.b64encode(data).decode() for name, data in self._stdlib[1].items()},
            )
            core = base64.b64encode(self._core_archive).decode()
            self._init_args = json.dumps([self._kernel.decode(), core, snapshot, directory, parts])
        self._requests += 1
        process.stdin.write(f'{{"id": {self._requests}, "op": "init", "args": {self._init_args}}}\n')
        process.stdin.flush()
        return RunnerProcess(process, answers, errors, errors_reader, self._requests)

    def _prepare_spare(self) -> None:
        """Start the next page's runner now, so it restores while this page runs (or the dev server waits)."""
        if self._spare is None and self._node is not None and self.snapshot_path is not None and self.snapshot_path.is_file():
            self._spare = self._launch(self._node)

    @property
    def snapshot_path(self) -> Path | None:
        """Return where the memory snapshot of this runtime, core and kernel is kept (gzip), or None without a cache."""
        if self._cache_dir is None:
            return None
        return find_snapshot(self._cache_dir, self._fingerprint)

    def make_snapshot(self, location: Location) -> Path | None:
        """Return the memory snapshot's file, made now by one start of node if no start made it yet.

        None when there is no cache to keep it in, or no node to make it: the
        pages then start Python the plain way. The assets stage reads it
        (assets/python_snapshot.py).
        """
        path = self.snapshot_path
        if path is None:
            return None
        if self._snapshot_record is not None:
            discard_unrecorded_snapshot(path, self._snapshot_record, self._fingerprint)  # never shipped: made again
        if not path.is_file():
            if self._node is None:
                return None
            self.close()  # a runner restored from a snapshot since deleted makes no new one
            self._start(location)
        remove_other_snapshots(path)
        return path

    def _ask(self, request: Mapping[str, object], timeout: float, location: Location) -> dict[str, Any]:
        runner = self._start(location)
        assert runner.process.stdin is not None
        self._requests += 1
        runner.process.stdin.write(json.dumps({"id": self._requests, **request}) + "\n")
        runner.process.stdin.flush()
        return self._wait(self._requests, timeout, location)

    def _wait(self, request_id: int, timeout: float, location: Location) -> dict[str, Any]:
        """Wait for node's answer to request `request_id`, checking its memory as it runs; return its result.

        Raise CellRunaway past the timeout or the limits (memory, an answer's
        length, standard error), MalformedAnswer (a CellRunaway too) for an
        answer that is not one the runner gives, BuildFailed when the runner
        stopped or failed.
        """
        assert self._runner is not None
        runner = self._runner
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = runner.answers.get(timeout=min(0.1, max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                if time.monotonic() >= deadline:
                    raise CellRunaway(CELL_TIMEOUT, seconds=timeout) from None
                if read_resident_bytes(runner.process.pid) > MEMORY_LIMIT:
                    raise CellRunaway(CELL_MEMORY, limit=MEMORY_LIMIT // 1024**2) from None
                continue
            if line is None:
                runner.process.wait()
                # Its standard error is complete once it has ended, but the thread reading it may not have read the
                # last words yet: wait for it (bounded: a grandchild holding the pipe open must not hang the build).
                runner.errors_reader.join(timeout=5)
                said = describe_last_error(runner.errors)
                raise BuildFailed([report(location, CELL_RUNNER_STOPPED, said=said)])
            if line is OVERSIZED:
                raise CellRunaway(CELL_OVERSIZED_ANSWER, limit=ANSWER_LIMIT)
            if line is FLOODED:
                raise CellRunaway(CELL_FLOODED_ERRORS, limit=ERRORS_LIMIT)
            answer = read_answer(line, request_id)
            if not answer["ok"]:
                message = escape_for_terminal(answer["error"]["message"])
                if request_id != runner.init_id:
                    # Past the start, only a cell can make the kernel fail (sys.stdout = None breaks its own flush).
                    raise CellRunaway(CELL_BROKE_KERNEL, problem=message[:ERROR_LINE_LIMIT])
                raise BuildFailed([report(location, CELL_RUNNER_FAILED, problem=message)])
            result: dict[str, Any] = answer["result"] or {}
            return result

    def _cache_file(self, key: str) -> Path | None:
        return find_cache_entry(self._cache_dir, self._fingerprint, key) if self._cache_dir is not None else None

    def _read_cached(self, key: str) -> CellOutput | None:
        path = self._cache_file(key)
        return read_cached(path) if path is not None else None

    def _write_cached(self, key: str, output: CellOutput) -> None:
        path = self._cache_file(key)
        if path is not None:
            write_cached(path, output)

    @property
    def is_running(self) -> bool:
        """Say whether node is running (it is not while every cell came from the cache)."""
        return self._runner is not None

    def close(self, keep_spare: bool = False) -> None:
        """Stop node if it was started (killed: it holds nothing worth flushing), and the spare unless `keep_spare`."""
        runner, self._runner, self._served = self._runner, None, False
        kill_node(runner.process if runner is not None else None)
        if not keep_spare and self._spare is not None:
            spare, self._spare = self._spare, None
            kill_node(spare.process)

    def __enter__(self) -> CellRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def sandboxed_runner_command(node: str, pyodide_folder: Path, snapshot: Path | None) -> list[str]:
    """Return the command that starts the cell runner in its sandbox.

    Inside the operating system's sandbox where the machine has one
    (confinement.py: no network, no other process, no environment, only these
    files). Node's permission model: the runner may read its own script, the modules
    it imports, Pyodide's folder and the snapshot, and nothing else; it may
    write nothing, start no child process and no worker. Node's loader keeps
    each path as given (--preserve-symlinks), so a link on the way (a scratch
    project's node_modules) is never looked up itself: allowing each hop, a
    link `node_modules` to `node_modules.real` was refused, as Node's
    permission model denies a path whose name begins another allowed path's
    (node_modules beside node_modules.real), where bwrap is not there to turn
    the links into binds. V8 refuses to run
    code from strings (eval, Function), which the cell runner never needs
    once Pyodide is started and Pyodide never needs at all.
    """
    readable = [RUNNER_SCRIPT, RUNNER_MODULES, SES_FOLDER, pyodide_folder, *([snapshot] if snapshot is not None else [])]
    # Only the outermost: Node 20 denies a folder itself when a path inside it is allowed too.
    allowed = sorted(str(path) for path in readable if not any(other in path.parents for other in readable))
    command = [
        node,
        permission_flag(node),
        *(f"--allow-fs-read={path}" for path in allowed),
        "--preserve-symlinks",
        "--preserve-symlinks-main",
        "--disallow-code-generation-from-strings",
        "--disable-warning=ExperimentalWarning",
        str(RUNNER_SCRIPT),
        str(pyodide_folder),
    ]
    return confine(command, [Path(path) for path in allowed])


class CellRunaway(Exception):
    """A cell ran past its timeout or its memory limit; node was stopped. The message takes the cell's number too."""

    def __init__(self, message: Message, **fields: object) -> None:
        super().__init__(message.id)
        self.message = message
        self.fields = fields


class MalformedAnswer(CellRunaway):
    """The runner gave an answer it never gives (the protocol of docs/workers.md): the cell's error, Python restarted."""

    def __init__(self, reason: str) -> None:
        super().__init__(CELL_MALFORMED_ANSWER, reason=reason)


def read_answer(line: str, request_id: int) -> dict[str, Any]:
    """Return the runner's answer to request `request_id` from its line: {id, ok: true, result} or {id, ok: false,
    error: {message}}; raise MalformedAnswer for anything else (not JSON, another request's, a field missing)."""
    try:
        answer = json.loads(line)
    except ValueError:
        raise MalformedAnswer("not JSON") from None
    if not isinstance(answer, dict) or type(answer.get("id")) is not int or not isinstance(answer.get("ok"), bool):
        raise MalformedAnswer("no id or ok")
    if answer["id"] != request_id:
        raise MalformedAnswer(f"it answers request {answer['id']}, not {request_id}")
    if answer["ok"] and not (answer.get("result") is None or isinstance(answer["result"], dict)):
        raise MalformedAnswer("its result is not an object")
    if not answer["ok"] and not (isinstance(answer.get("error"), dict) and isinstance(answer["error"].get("message"), str)):
        raise MalformedAnswer("its error has no message")
    return answer


def check_run_result(result: Mapping[str, Any], cell: Cell) -> None:
    """Raise MalformedAnswer unless a "run" result has its fields: output, raised, line (a line of the cell, or
    null), stopped and refused (optional); what output holds is read_output's to check."""
    missing = [name for name in ("output", "raised") if name not in result]
    if missing:
        raise MalformedAnswer(f"no {missing[0]!r}")
    line = result.get("line")
    if line is not None and not (type(line) is int and 1 <= line <= max(1, len(cell.code.splitlines()))):
        raise MalformedAnswer(f"'line' is not a line of the cell: {escape_for_terminal(repr(line)[:40])}")
    for flag in ("stopped", "refused"):
        if not isinstance(result.get(flag, False), bool):
            raise MalformedAnswer(f"{flag!r} is not true or false")


def escape_for_terminal(text: str) -> str:
    """Return text as one line with every character a terminal would act on (line breaks, escape sequences,
    bidirectional controls) escaped."""
    return TERMINAL_UNSAFE.sub(lambda match: match[0].encode("unicode_escape").decode("ascii"), text)


def describe_last_error(errors: Sequence[str]) -> str:
    """Return ": " and the last line the runner wrote to standard error (escaped, shortened), or "" if it wrote none."""
    lines = "".join(errors).strip().splitlines()
    if not lines:
        return ""
    last = escape_for_terminal(lines[-1].strip())
    return f": {last[:ERROR_LINE_LIMIT]}{'…' if len(last) > ERROR_LINE_LIMIT else ''}"


def check_output(cell: Cell, output: CellOutput, line: int | None = None) -> Diagnostic | None:
    """Return the problem with a cell's output, if any: an unexpected error, or an expected one that did not come."""
    if output.raised and not cell.options.expect_error:
        # The traceback's last line, not the output's: a warning printed as the cell's objects are collected after it
        # comes later.
        errors = [text for stream, text in output.segments if stream == "error"]
        last = (errors[-1] if errors else output.text).rstrip("\n").split("\n")[-1]
        last = f"{last[:ERROR_LINE_LIMIT]}…" if len(last) > ERROR_LINE_LIMIT else last
        # At the line that raised, when the traceback passes through the cell's own code.
        location = Location(cell.location.path, cell.code_line + line - 1) if line else cell.location
        return report(location, CELL_RAISED, number=cell.number, error=last)
    if cell.options.expect_error and not output.raised:
        return report(cell.location, CELL_RAISED_NOTHING)
    return None


def read_resident_bytes(pid: int) -> int:
    """Return the resident memory in bytes of a process and every process under it (the runner's node runs under
    bwrap); 0 for what cannot be read."""
    return sum(read_own_resident_bytes(each) for each in find_process_tree(pid))


def find_process_tree(pid: int) -> list[int]:
    """Return `pid` and every process under it, as /proc lists each thread's children (a process gone lists none)."""
    found: list[int] = []
    waiting = [pid]
    while waiting and len(found) < MAX_PROCESSES:
        each = waiting.pop()
        found.append(each)
        try:
            for task in Path(f"/proc/{each}/task").iterdir():
                waiting.extend(int(child) for child in (task / "children").read_text(encoding="ascii").split())
        except (OSError, ValueError):
            pass
    return found


def read_own_resident_bytes(pid: int) -> int:
    """Return a process's resident memory in bytes (0 when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def hash_runtime(pyodide_folder: Path) -> str:
    """Return a hash of every file of the Pyodide the runner loads (~14 MB): its version alone would vouch for a
    runtime edited in place, whose outputs the cache would then keep under the unedited one's key."""
    digest = hashlib.sha256(pyodide_version(pyodide_folder).encode())
    try:
        paths = sorted(path for path in pyodide_folder.iterdir() if path.is_file())
        for path in paths:  # each file's hash, taken once per process: the assets hash the same files (hashes.py)
            digest.update(f"\0{path.name}\0".encode() + bytes.fromhex(hash_file(path)))
    except OSError:
        digest.update(b"\0unreadable")  # the runner then fails clearly
    return digest.hexdigest()


def pyodide_version(pyodide_folder: Path) -> str:
    """Return the installed Pyodide's version from its package.json ("" when unreadable: the runner then fails clearly)."""
    try:
        return str(json.loads((pyodide_folder / "package.json").read_text(encoding="utf-8"))["version"])
    except (OSError, ValueError, KeyError):
        return ""
