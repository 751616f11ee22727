"""Executable Python cells: a ```{python} fence's options, its run at build time, and the cache of its output.

A page's cells run in order in one namespace, fresh for each page, in Pyodide
under Node (cell_runner.mjs) with the same kernel the reader's browser runs
(site_templates/static/py/cell_kernel.py), so the output shown at first paint
is what the browser computes. Outputs are cached by content under
.cache/cells/: a cell's key covers the code and options of every cell up to
it on its page and the runtime (kernel, runner, core, Pyodide), so a rebuild
where no cell changed never starts node.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import queue
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sitegen.diagnostics import BuildFailed, Diagnostic, Location, report_error, suggest_name

RUNNER_SCRIPT = Path(__file__).with_name("cell_runner.mjs")
KERNEL_ASSET = "py/cell_kernel.py"
CELL_INFO = "{python}"
DEFAULT_TIMEOUT = 10.0
MAX_TIMEOUT = 120.0
START_TIMEOUT = 120.0  # Pyodide's start under a loaded machine; not the cell's time
MEMORY_LIMIT = 2 * 1024**3  # resident bytes of the runner before it counts as a runaway
OPTIONS = ("expect", "timeout")
_OPTION_LINE = re.compile(r"#\|\s*(?P<key>[\w-]*)\s*(?::\s*(?P<value>.*?))?\s*$")
_BRACED_INFO = re.compile(r"^\{(?P<language>[^}]*)\}")


@dataclass(frozen=True)
class CellOptions:
    """A cell's `#| key: value` options."""

    expect_error: bool = False
    timeout: float = DEFAULT_TIMEOUT


@dataclass(frozen=True)
class Cell:
    """One ```{python} block: its number on the page (from 1), the code shown and run (options removed), its key."""

    number: int
    code: str
    options: CellOptions
    location: Location
    key: str  # the content hash of this cell and every earlier cell on its page (see read_page_cells)


@dataclass(frozen=True)
class CellOutput:
    """What a cell printed: [stream, text] segments (stdout, stderr, result, error), and whether it raised."""

    segments: tuple[tuple[str, str], ...]
    raised: bool = False

    @property
    def text(self) -> str:
        """Return the whole output as one text."""
        return "".join(text for _stream, text in self.segments)

    def to_json(self) -> dict:
        """Return the form stored in the cache and compared with the browser's."""
        return {"output": [list(segment) for segment in self.segments], "raised": self.raised}


def is_cell_fence(info: str) -> bool:
    """Say whether a fence's info string asks for execution: any braced language ({python}, or a mistyped one)."""
    return bool(_BRACED_INFO.match(info.strip()))


def read_cell(info: str, text: str, location: Location) -> tuple[CellOptions, str, list[Diagnostic]]:
    """Check a braced fence's language and read its leading `#|` option lines; return options, code and problems."""
    problems: list[Diagnostic] = []
    match = _BRACED_INFO.match(info.strip())
    language = match["language"].strip() if match else ""
    if language != "python" or info.strip() != CELL_INFO:
        problems.append(
            report_error(location, f"unknown cell '```{info.strip()}': only '```{{python}}' cells run (a plain '```python' block is a listing)")
        )
    lines = text.split("\n")
    options: dict[str, object] = {}
    count = 0
    while count < len(lines) and lines[count].lstrip().startswith("#|"):
        where = Location(location.path, location.line + 1 + count)
        problem = read_option(lines[count].strip(), options)
        if problem:
            problems.append(report_error(where, problem))
        count += 1
    code = "\n".join(lines[count:]).rstrip("\n") + "\n"
    if not code.strip():
        problems.append(report_error(location, "empty cell: write some Python after the '```{python}' line"))
    return CellOptions(**options), code, problems  # type: ignore[arg-type]  # read_option stores only checked values


def read_option(line: str, options: dict[str, object]) -> str:
    """Read one `#| key: value` line into options (as CellOptions fields); return a problem, or ""."""
    match = _OPTION_LINE.fullmatch(line)
    key, value = (match["key"], match["value"]) if match else ("", None)
    if not key or value is None:
        return f"bad cell option '{line}': write '#| key: value', e.g. '#| timeout: 30'"
    if key not in OPTIONS:
        return f"unknown cell option '{key}'{suggest_name(key, OPTIONS)}; options: {', '.join(OPTIONS)}"
    if key == "expect":
        if value != "error":
            return f"bad cell option 'expect: {value}': the only value is 'expect: error' (the cell is meant to raise)"
        options["expect_error"] = True
    elif key == "timeout":
        try:
            seconds = float(value)
        except ValueError:
            seconds = -1.0
        if not 0 < seconds <= MAX_TIMEOUT:
            return f"bad cell option 'timeout: {value}': a number of seconds above 0 and at most {MAX_TIMEOUT:g}"
        options["timeout"] = seconds
    return ""


def find_unclosed_fence(lines: Sequence[str], opening_line: int, end_line: int, markup: str) -> bool:
    """Say whether a fence that ends at end_line (markdown-it's map) ran to the end of the file without a closing marker."""
    if end_line < len(lines):
        return False
    last = lines[end_line - 1].strip() if end_line - 1 > opening_line else ""
    return not (last.startswith(markup[:3]) and set(last) <= set(markup[0]) and len(last) >= len(markup))


def read_page_cells(path: str, lines: Sequence[str], fences: Iterable[tuple[str, str, int, int, str]]) -> tuple[tuple[Cell, ...], list[Diagnostic]]:
    """Read a page's cells from its braced fences (info, content, first line, markdown-it's end line, markup), in order.

    Each cell's key is a hash of its code and options and those of every cell
    before it on the page: since every page starts the same way, that is all
    its output can depend on (besides the runtime, which the cache adds).
    """
    cells: list[Cell] = []
    problems: list[Diagnostic] = []
    digest = hashlib.sha256()
    for info, content, first_line, end_line, markup in fences:
        location = Location(path, first_line)
        if find_unclosed_fence(lines, first_line - 1, end_line, markup):
            problems.append(report_error(location, f"unclosed cell: add a line '{markup}' where it ends"))
            continue
        options, code, cell_problems = read_cell(info, content, location)
        problems += cell_problems
        if cell_problems:
            continue
        digest.update(json.dumps([code, options.expect_error, options.timeout]).encode())
        cells.append(Cell(len(cells) + 1, code, options, location, digest.copy().hexdigest()))
    return tuple(cells), problems


def fingerprint_runtime(kernel: bytes, core_archive: bytes, pyodide_version: str) -> str:
    """Return what every cell's output depends on besides its page's code: kernel, runner, core and Pyodide."""
    digest = hashlib.sha256()
    for part in (kernel, RUNNER_SCRIPT.read_bytes(), core_archive, pyodide_version.encode()):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:32]


@dataclass(frozen=True)
class PageCells:
    """A page's cells, for the runner."""

    path: str
    cells: tuple[Cell, ...]


class CellRunner:
    """Run pages of cells in one kept-alive node process, answering from .cache/cells/ where it can.

    node is started only when some cell is not in the cache, and restarted
    after a cell that ran past its timeout or its memory: the next page gets a
    fresh process, and the build goes on.
    """

    def __init__(self, pyodide_folder: Path, kernel: bytes, core_archive: bytes, cache_dir: Path | None) -> None:
        self._node = shutil.which("node")
        self._fingerprint = fingerprint_runtime(kernel, core_archive, pyodide_folder.name + ":" + pyodide_version(pyodide_folder))
        self._pyodide_folder = pyodide_folder
        self._kernel = kernel
        self._core_archive = core_archive
        self._cache_dir = cache_dir
        self._process: subprocess.Popen[str] | None = None
        self._answers: queue.Queue[str | None] = queue.Queue()
        self.ran = 0  # cells run by node (not the cache) in this runner's life: for tests and benchmarks

    def run(self, pages: Iterable[PageCells]) -> tuple[dict[str, CellOutput], list[Diagnostic]]:
        """Return every cell's output by key, and a problem for each cell that raised unexpectedly or ran too long."""
        outputs: dict[str, CellOutput] = {}
        problems: list[Diagnostic] = []
        for page in pages:
            cached = [self._read_cached(cell.key) for cell in page.cells]
            if all(output is not None for output in cached):
                results = dict(zip((cell.key for cell in page.cells), cached))
                outputs.update({key: output for key, output in results.items() if output is not None})
                problems += [problem for cell in page.cells if (problem := check_output(cell, outputs[cell.key]))]
                continue
            page_outputs, page_problems = self._run_page(page)
            outputs.update(page_outputs)
            problems += page_problems
        return outputs, problems

    def _run_page(self, page: PageCells) -> tuple[dict[str, CellOutput], list[Diagnostic]]:
        outputs: dict[str, CellOutput] = {}
        self._ask({"op": "page"}, START_TIMEOUT, page.cells[0].location)
        for cell in page.cells:
            try:
                answer = self._ask({"op": "run", "number": cell.number, "code": cell.code}, cell.options.timeout, cell.location)
            except CellRunaway as runaway:
                self.close()  # the next page starts a fresh process
                return outputs, [report_error(cell.location, str(runaway))]
            self.ran += 1
            output = CellOutput(tuple((stream, text) for stream, text in answer["output"]), bool(answer["raised"]))
            problem = check_output(cell, output, answer.get("line"))
            if problem:
                # Later cells would only fail for want of what this one defines.
                return outputs, [problem]
            outputs[cell.key] = output
            self._write_cached(cell.key, output)
        return outputs, []

    def _start(self, location: Location) -> subprocess.Popen[str]:
        if self._process is not None:
            return self._process
        if self._node is None:
            raise BuildFailed([Diagnostic(location, "node is not installed; Python cells run in Pyodide under node")])
        self._process = subprocess.Popen(
            [self._node, str(RUNNER_SCRIPT), str(self._pyodide_folder)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        answers: queue.Queue[str | None] = queue.Queue()
        self._answers = answers
        stdout = self._process.stdout
        assert stdout is not None

        def read_answers() -> None:
            for line in stdout:
                answers.put(line)
            answers.put(None)

        threading.Thread(target=read_answers, daemon=True).start()
        init = {"op": "init", "kernel": self._kernel.decode(), "core": base64.b64encode(self._core_archive).decode()}
        self._send(init)
        self._wait(START_TIMEOUT, location)
        return self._process

    def _ask(self, request: dict, timeout: float, location: Location) -> dict:
        self._start(location)
        self._send(request)
        return self._wait(timeout, location)

    def _send(self, request: dict) -> None:
        assert self._process is not None and self._process.stdin is not None
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()

    def _wait(self, timeout: float, location: Location) -> dict:
        """Wait for node's answer, checking its memory as it runs; raise CellRunaway past the timeout or the limit."""
        assert self._process is not None
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._answers.get(timeout=min(0.1, max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                if time.monotonic() >= deadline:
                    raise CellRunaway(f"cell ran past its timeout of {timeout:g} s (set '#| timeout: N' if it needs longer)") from None
                if read_resident_bytes(self._process.pid) > MEMORY_LIMIT:
                    raise CellRunaway(f"cell used more than {MEMORY_LIMIT // 1024**3} GiB of memory") from None
                continue
            if line is None:
                raise BuildFailed([Diagnostic(location, "the Python cell runner (node) stopped unexpectedly")])
            answer = json.loads(line)
            if "error" in answer:
                raise BuildFailed([Diagnostic(location, f"the Python cell runner failed: {answer['error']}")])
            return answer

    def _cache_file(self, key: str) -> Path | None:
        if self._cache_dir is None:
            return None
        return self._cache_dir / (hashlib.sha256((self._fingerprint + key).encode()).hexdigest()[:40] + ".json")

    def _read_cached(self, key: str) -> CellOutput | None:
        path = self._cache_file(key)
        if path is None:
            return None
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            return CellOutput(tuple((stream, text) for stream, text in stored["output"]), bool(stored["raised"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None  # missing or damaged: run the page again

    def _write_cached(self, key: str, output: CellOutput) -> None:
        path = self._cache_file(key)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written beside and renamed: the dev server and a build may share the cache.
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_text(json.dumps(output.to_json()), encoding="utf-8")
        partial.replace(path)

    @property
    def is_running(self) -> bool:
        """Say whether node is running (it is not while every cell came from the cache)."""
        return self._process is not None

    def close(self) -> None:
        """Stop node if it was started (killed: it holds nothing worth flushing)."""
        process, self._process = self._process, None
        if process is None:
            return
        process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream:
                stream.close()

    def __enter__(self) -> CellRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class CellRunaway(Exception):
    """A cell ran past its timeout or its memory limit; node was stopped."""


def check_output(cell: Cell, output: CellOutput, line: int | None = None) -> Diagnostic | None:
    """Return the problem with a cell's output, if any: an unexpected error, or an expected one that did not come."""
    if output.raised and not cell.options.expect_error:
        last = output.text.rstrip("\n").split("\n")[-1]
        where = f" (line {line} of the cell)" if line else ""
        return report_error(cell.location, f"cell raised {last}{where}; fix it, or add '#| expect: error' if it is meant to")
    if cell.options.expect_error and not output.raised:
        return report_error(cell.location, "cell has '#| expect: error' but raised nothing")
    return None


def read_resident_bytes(pid: int) -> int:
    """Return a process's resident memory in bytes (0 when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def pyodide_version(pyodide_folder: Path) -> str:
    """Return the installed Pyodide's version from its package.json ("" when unreadable: the runner then fails clearly)."""
    try:
        return str(json.loads((pyodide_folder / "package.json").read_text(encoding="utf-8"))["version"])
    except (OSError, ValueError, KeyError):
        return ""


def cell_cache_folder(root: Path) -> Path:
    """Return the cache of cell outputs: .cache/cells/ under the project root (git-ignored)."""
    return root / ".cache" / "cells"
