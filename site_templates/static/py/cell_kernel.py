"""Run a page's Python cells in Pyodide: the one piece of Python that both the build and the reader's browser execute.

The build runs it under Node (sitegen/check/cell_runner.mjs) and the page's cell
worker (js/cell-worker.js) fetches this very file, so a cell's output at first
paint is, byte for byte, what the reader's browser computes. Standard library
only; nothing here may depend on where it runs.

A page's cells share one namespace (notebook semantics); `CellPage()` gives
every page the same deterministic start: a fresh `__main__`-like namespace,
`random` seeded with 0, no standard input, and the interpreter as it was when
this module was imported — every module imported since is forgotten and the
builtins are restored. Every start imports the core before this module
(SNAPSHOT_IMPORTS, client/python/pyodide-start.mjs), restored from the memory
snapshot or started plainly, so a page's first cell finds `rollout_lab`
imported, as the lab does. Both places give each page an interpreter of its
own (the browser a fresh worker, the build a fresh runner restored from the
memory snapshot), so nothing a cell changes, the core and this module
included, reaches another page. The hash seed is fixed when
the interpreter starts: PYTHONHASHSEED=0 in both places.

Output is a list of [stream, text] segments, neighbours of one stream merged:
"stdout", "stderr", "result" (the repr of a final expression, as a notebook
shows it) and "error" (a traceback trimmed to the reader's code). On its way
out (`BoundedOutput`) every character a page must not show raw is escaped as
Python would write it in a string (`\x1b`, `\u202e`: control characters but
newline and tab, the bidirectional controls, lone surrogates), and a cell's
output stops at OUTPUT_LIMIT characters with one note saying so; a traceback
keeps its last ERROR_LIMIT characters (its last line says what was raised: the
exception's own line is cut to MESSAGE_LIMIT characters first, so a long
message never pushes its type out).
"""

import ast
import builtins
import gc
import io
import linecache
import random
import re
import sys
import traceback

RANDOM_SEED = 0
OUTPUT_LIMIT = 1_000_000  # characters of a cell's output (a traceback aside)
ERROR_LIMIT = 100_000  # characters of a traceback, kept from its end
MESSAGE_LIMIT = 10_000  # characters of the exception's own lines at a traceback's end: its type and its message's start
TRUNCATION_NOTE = f"\n[output truncated: the cell wrote more than {OUTPUT_LIMIT:,} characters; the rest is not shown]\n"
# Control characters (newline and tab aside), bidirectional controls (U+202E turns the text after it around),
# and lone surrogates (no page can be written with one).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_BASELINE_MODULES = frozenset(sys.modules)
_BASELINE_BUILTINS = dict(vars(builtins))
_BASELINE_PATH = list(sys.path)
_BASELINE_GC_CALLBACKS = list(gc.callbacks)
_MONITORING = getattr(sys, "monitoring", None)  # Python 3.12 on
_BASELINE_TOOLS = frozenset(tool for tool in range(6) if _MONITORING and _MONITORING.get_tool(tool) is not None)
AUDIT_HOOK_REFUSAL = "a cell cannot add an audit hook: audit hooks cannot be removed, and it would run in every later cell"
_scheduled = []  # the asyncio callbacks scheduled since the last cell ended (contain_leftovers)
_contained = False


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


def escape_unsafe(text):
    """Return text with each unsafe character written as a string escape (\\x1b, \\u202e, \\ud800)."""
    return _UNSAFE.sub(lambda match: f"\\x{ord(match[0]):02x}" if ord(match[0]) < 0x100 else f"\\u{ord(match[0]):04x}", text)


class BoundedOutput:
    """A cell's output on its way to `emit`: unsafe characters escaped, OUTPUT_LIMIT characters, then one note."""

    def __init__(self, emit):
        self._emit = emit
        self._left = OUTPUT_LIMIT

    def __call__(self, stream, text):
        if stream == "error":
            text = escape_unsafe(text)
            self._emit(stream, text if len(text) <= ERROR_LIMIT else "[traceback truncated]\n" + text[-ERROR_LIMIT:])
            return
        if self._left < 0:
            return  # truncated already
        text = escape_unsafe(text)
        if len(text) <= self._left:
            self._left -= len(text)
            self._emit(stream, text)
            return
        if self._left:
            self._emit(stream, text[: self._left])
        self._left = -1
        self._emit("stderr", TRUNCATION_NOTE)


class CellPage:
    """One page's cells: a namespace, and the cells run in it so far."""

    def __init__(self):
        contain_leftovers()
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
        emit = BoundedOutput(emit)
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
            # A trace or profile function the cell set (sys.settrace) would run in this module's own code: after
            # the cell, and as the next cell starts, outside its try. It would fail the next cell, or the whole
            # runner, for what this cell did: it ends with the cell that set it.
            sys.settrace(None)
            sys.setprofile(None)
            end_leftovers()
            sys.stdout.flush()
            sys.stderr.flush()
            sys.stdout, sys.stderr = saved
        return False


def contain_leftovers():
    """Once per interpreter, before its first page: refuse audit hooks (one a cell added would run in every later
    cell, and none can be removed), and note every callback asyncio schedules, so that the cell's end cancels it.

    Not at import: the host's Python imports this module in tests, and the snapshot holds the interpreter as the
    import left it.
    """
    global _contained
    if _contained:
        return
    _contained = True
    sys.addaudithook(_refuse_audit_hooks)
    try:
        from pyodide.webloop import WebLoop
    except ImportError:
        return  # not in Pyodide: no event loop of Pyodide's to watch
    schedule = WebLoop.call_later  # call_soon and call_at call it too

    def call_later(self, delay, callback, *args, context=None):
        handle = schedule(self, delay, callback, *args, context=context)
        _scheduled.append(handle)
        return handle

    WebLoop.call_later = call_later


class AuditHookRefused(BaseException):
    """What sys.addaudithook raises in a cell. Not an Exception: sys.addaudithook would swallow one, silently."""


def _refuse_audit_hooks(event, _arguments):
    if event == "sys.addaudithook":
        raise AuditHookRefused(AUDIT_HOOK_REFUSAL)


def end_leftovers():
    """End what a cell left to run later, as it ends (its output streams still in place): the garbage collector's
    callbacks it added, the asyncio callbacks it scheduled (cancelled: between cells JavaScript's event loop would
    run them, and inside a later cell that runs the loop they would write there), the sys.monitoring tools it took;
    then collect its garbage, so what a cyclic object's __del__ or a weakref.finalize writes is this cell's output,
    not whichever later cell's allocation would have set the collector off."""
    gc.callbacks[:] = _BASELINE_GC_CALLBACKS
    for handle in _scheduled:
        handle.cancel()
    _scheduled.clear()
    for tool in range(6):
        if _MONITORING and tool not in _BASELINE_TOOLS and _MONITORING.get_tool(tool) is not None:
            _MONITORING.clear_tool_id(tool)
            _MONITORING.free_tool_id(tool)
    gc.collect()


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
    own = "".join(traceback.format_exception_only(error))
    if isinstance(error, SyntaxError) and frames is None:
        # A syntax error happens before any frame: its own lines say where.
        return shorten_message(own)
    text = "".join(traceback.format_exception(type(error), error, frames))
    # The exception's own lines end its traceback; a message of megabytes would leave ERROR_LIMIT's cut nothing else.
    return text[: len(text) - len(own)] + shorten_message(own) if text.endswith(own) else text


def shorten_message(text):
    """Return an exception's own lines cut to MESSAGE_LIMIT characters, saying how many more there were."""
    if len(text) <= MESSAGE_LIMIT:
        return text
    return f"{text[:MESSAGE_LIMIT]}… [{len(text) - MESSAGE_LIMIT:,} more characters]\n"


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
    output = [[stream, "".join(pieces)] for stream, pieces in segments]
    return {"output": output, "raised": raised, "line": page.error_line}


def append_segment(segments, stream, text):
    """Add text to the output, to the last segment's pieces when it is of the same stream (joined once, at the end:
    adding to a string copies it, and 100 000 prints would copy the output 100 000 times)."""
    if segments and segments[-1][0] == stream:
        segments[-1][1].append(text)
    else:
        segments.append([stream, [text]])
