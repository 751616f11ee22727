"""Run a page's Python cells in Pyodide: the one piece of Python that both the build and the reader's browser execute.

The build runs it under Node (sitegen/cell_runner.mjs) and the page's cell
worker (js/cell-worker.js) fetches this very file, so a cell's output at first
paint is, byte for byte, what the reader's browser computes. Standard library
only; nothing here may depend on where it runs.

A page's cells share one namespace (notebook semantics); `CellPage()` gives
every page the same deterministic start: a fresh `__main__`-like namespace,
`random` seeded with 0, no standard input, and the interpreter as it was when
this module was imported — every module imported since is forgotten (so
`rollout_lab`, even if a cell reassigned one of its functions, is imported
afresh) and the builtins are restored. Both places give each page an
interpreter of its own (the browser a fresh worker, the build a fresh runner
restored from the memory snapshot), so nothing a cell changes, this module
included, reaches another page; the reset makes a page's start the same
whether Python was restored or started plainly. The hash seed is fixed when
the interpreter starts: PYTHONHASHSEED=0 in both places.

Output is a list of [stream, text] segments, neighbours of one stream merged:
"stdout", "stderr", "result" (the repr of a final expression, as a notebook
shows it) and "error" (a traceback trimmed to the reader's code).
"""

import ast
import builtins
import io
import linecache
import random
import sys
import traceback

RANDOM_SEED = 0
_BASELINE_MODULES = frozenset(sys.modules)
_BASELINE_BUILTINS = dict(vars(builtins))
_BASELINE_PATH = list(sys.path)


class SegmentWriter(io.TextIOBase):
    """A text stream that hands every write to `emit(stream, text)` at once (nothing is buffered)."""

    def __init__(self, stream, emit):
        self._stream = stream
        self._emit = emit

    def writable(self):
        return True

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if text:
            self._emit(self._stream, text)
        return len(text)


class CellPage:
    """One page's cells: a namespace, and the cells run in it so far."""

    def __init__(self):
        restore_interpreter()
        self.namespace = {"__name__": "__main__", "__builtins__": builtins}
        self.error_line = None
        random.seed(RANDOM_SEED)
        sys.stdin = io.StringIO("")

    def run(self, number, code, emit):
        """Run cell `number` (1-based, as the page numbers its cells); send its output to emit(stream, text).

        Return True when the cell raised (its traceback was emitted as "error").
        """
        filename = f"<cell {number}>"
        self.error_line = None
        # Registered so tracebacks quote the reader's lines, as they do for a file.
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        saved = sys.stdout, sys.stderr
        sys.stdout = SegmentWriter("stdout", emit)
        sys.stderr = SegmentWriter("stderr", emit)
        try:
            tree = ast.parse(code, filename, "exec")
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, filename, "exec"), self.namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), filename, "eval"), self.namespace)
                if value is not None:
                    emit("result", repr(value) + "\n")
        except BaseException as error:  # noqa: BLE001 -- SystemExit and KeyboardInterrupt too: the reader's code raised them
            self.error_line = find_error_line(error, filename)
            emit("error", describe_error(error, filename))
            return True
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            sys.stdout, sys.stderr = saved
        return False


def restore_interpreter():
    """Forget the modules imported since this module was, restore the builtins and sys.path."""
    for name in [name for name in sys.modules if name not in _BASELINE_MODULES]:
        del sys.modules[name]
    table = vars(builtins)  # looked up once: clearing it removes vars() itself until the update
    table.clear()
    table.update(_BASELINE_BUILTINS)
    sys.path[:] = _BASELINE_PATH


def describe_error(error, filename):
    """Return the traceback from the cell's own frame on (this module's frames are not the reader's code)."""
    frames = error.__traceback__
    while frames is not None and frames.tb_frame.f_code.co_filename != filename:
        frames = frames.tb_next
    if isinstance(error, SyntaxError) and frames is None:
        # A syntax error happens before any frame: its own lines say where.
        return "".join(traceback.format_exception_only(error))
    return "".join(traceback.format_exception(type(error), error, frames))


def find_error_line(error, filename):
    """Return the line of the cell where the error arose (its innermost frame in the cell), or None."""
    line = error.lineno if isinstance(error, SyntaxError) and error.filename == filename else None
    for frame, frame_line in traceback.walk_tb(error.__traceback__):
        if frame.f_code.co_filename == filename:
            line = frame_line
    return line


def run_collected(page, number, code):
    """Run one cell on `page` and return {"output": segments, "raised": bool} (the build's way; the browser streams)."""
    segments = []
    raised = page.run(number, code, lambda stream, text: append_segment(segments, stream, text))
    return {"output": segments, "raised": raised, "line": page.error_line}


def append_segment(segments, stream, text):
    """Add text to the output, merged into the last segment when it is of the same stream."""
    if segments and segments[-1][0] == stream:
        segments[-1][1] += text
    else:
        segments.append([stream, text])
