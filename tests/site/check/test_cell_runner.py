"""Python cells at build time: Pyodide's Python (not the host's), a fresh deterministic start per page, the cache, the limits.

Each runner here is real: node, Pyodide 314 from node_modules, the kernel the
site ships and the core's zip. Diagnostics have their own fixtures in
bad_inputs/ (cell_raises, cell_runs_too_long, cell_bad_options, cell_unclosed).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

import sitegen.check.cell_cache
import sitegen.check.cell_runner
from site_testing import PROJECT_ROOT, SAMPLE_CONTENT, make_scratch_project, run_build_py, share_python_snapshot
from sitegen.assets.python_snapshot import read_python_snapshot
from sitegen.check.cell_cache import chain_cell_keys
from sitegen.check.cell_runner import CellRunner
from sitegen.diagnostics import Location
from sitegen.files.paths import SNAPSHOT_RECORD
from sitegen.kinds.blocks.cell import read_cell
from sitegen.model import Cell, CellOptions
from sitegen.pipeline import create_cell_runner
from sitegen.read.load import load_project

pytestmark = [pytest.mark.slow, pytest.mark.pyodide]

# The messages' fixed words, written out: the catalogue (sitegen/messages.py) must print exactly these.
FORGED_NOTE = (
    "wrote output the kernel never writes (unescaped control characters, an unknown stream or more than "
    "1,000,000 characters): a cell on its page changed cell_kernel; Python was restarted"
)
FATAL_NOTE = "Pyodide cannot go on after that (os.abort, os._exit, a stack overflow, memory out of bounds); Python was restarted"
BROKEN_KERNEL_NOTE = "a cell on its page broke what the kernel relies on (sys.stdout, sys.stderr, cell_kernel)"


def page_of(path: str, *codes: str) -> tuple[Cell, ...]:
    """Return a page's cells, read as the block kind reads them (options included)."""
    cells = []
    for number, text in enumerate(codes, start=1):
        cell, problem = read_cell(text, Location(path, number * 10))
        assert problem is None and cell is not None
        cells.append(Cell(number, cell.code, cell.options, cell.location, cell.code_line))
    return tuple(cells)


def outputs_text(outputs, cells) -> list[str]:
    return [outputs[cell.location].text for cell in cells]


@pytest.fixture(scope="module")
def project():
    return load_project(PROJECT_ROOT, SAMPLE_CONTENT)


def runner_with_cache(project, cache: Path | None) -> CellRunner:
    runner = create_cell_runner(project)
    runner._cache_dir = cache  # a test's own cache, so nothing depends on what earlier builds left
    return runner


def runner_with_snapshot(project, root: Path) -> CellRunner:
    """A runner with a cache of its own under root holding only the project's snapshot: every page a restored start."""
    share_python_snapshot(root)
    return runner_with_cache(project, root / ".cache" / "cells")


def test_cells_run_in_pyodide_in_one_namespace_per_page_and_every_page_starts_the_same(project, tmp_path):
    first = page_of(
        "content/01-a.md",
        "import sys, random\nprint(sys.version_info[:2], sys.platform)\nsum([0.1] * 10)",
        "import rollout_lab\nrollout_lab.run_lab = None\nvalue = random.random()\nvalue",
        "print(value, hash('rollouts') == hash('rollouts'))",
    )
    second = page_of(
        "content/02-b.md",
        "import random, rollout_lab\nprint(random.random(), rollout_lab.run_lab is None)\n'value' in globals()",
    )
    with runner_with_snapshot(project, tmp_path) as runner:
        outputs, problems = runner.run([first, second])
        hashed = runner.run([page_of("content/03-c.md", "hash('rollouts')")])[0]
        hashed_again = runner.run([page_of("content/04-d.md", "hash('rollouts')")])[0]
    assert problems == []
    assert outputs_text(outputs, first) == [
        "(3, 14) emscripten\n1.0\n",  # CPython 3.11 on the host says 0.9999999999999999
        "0.8444218515250481\n",  # random.seed(0)'s first draw
        "0.8444218515250481 True\n",
    ]
    # The second page starts as fresh as the first: random re-seeded, the core as the start left it, no names left over.
    assert outputs_text(outputs, second) == ["0.8444218515250481 False\nFalse\n"]
    assert [o.text for o in hashed.values()] == [o.text for o in hashed_again.values()]  # PYTHONHASHSEED is fixed


def test_outputs_are_cached_by_content_and_an_unchanged_build_starts_no_node(project, tmp_path):
    # Restored from the project's snapshot: making one is test_the_first_start_makes_the_snapshot_...'s subject.
    page = page_of("content/01-a.md", "total = 2\nprint(total)", "#| timeout: 5\ntotal * 21")
    with runner_with_snapshot(project, tmp_path) as runner:
        outputs, _ = runner.run([page])
        assert runner.ran == 2
    assert outputs_text(outputs, page) == ["2\n", "42\n"]

    with runner_with_snapshot(project, tmp_path) as cached:
        again, problems = cached.run([page])
        assert (cached.ran, cached.is_running, problems) == (0, False, [])
    assert again == outputs

    # A changed first cell changes every later cell's key: the page runs again, from its first cell.
    changed = page_of("content/01-a.md", "total = 3\nprint(total)", "#| timeout: 5\ntotal * 21")
    with runner_with_snapshot(project, tmp_path) as runner:
        outputs, _ = runner.run([changed])
        assert runner.ran == 2
    assert outputs_text(outputs, changed) == ["3\n", "63\n"]


def test_a_cell_past_the_memory_limit_is_stopped_and_the_next_page_runs(project, monkeypatch, tmp_path):
    monkeypatch.setattr(sitegen.check.cell_runner, "MEMORY_LIMIT", 700 * 1024**2)
    greedy = page_of("content/01-a.md", "#| timeout: 60\nheap = bytearray(1024 ** 3)\nwhile True:\n    pass")
    after = page_of("content/02-b.md", "print('fresh')")
    with runner_with_snapshot(project, tmp_path) as runner:
        outputs, problems = runner.run([greedy, after])
    assert [p.format() for p in problems] == ["content/01-a.md:10: cell 1 used more than 700 MiB of memory; Python was restarted"]
    assert outputs_text(outputs, after) == ["fresh\n"]


def test_expected_errors_show_the_traceback_from_the_cells_own_code(project):
    page = page_of("content/01-a.md", "#| expect: error\ndef f():\n    return {}['k']\nf()")
    assert page[0].options == CellOptions(expect_error=True)
    with runner_with_cache(project, None) as runner:
        outputs, problems = runner.run([page])
    assert problems == []
    output = outputs[page[0].location]
    assert output.raised
    assert output.segments == (
        (
            "error",
            "Traceback (most recent call last):\n"
            '  File "<cell 1>", line 3, in <module>\n'
            "    f()\n"
            "    ~^^\n"
            '  File "<cell 1>", line 2, in f\n'
            "    return {}['k']\n"
            "           ~~^^^^^\n"
            "KeyError: 'k'\n",
        ),
    )


def test_the_first_start_makes_the_snapshot_later_ones_restore_it_and_each_page_starts_with_the_core_imported(project, tmp_path):
    page = page_of(
        "content/01-a.md",
        # What a page's first cell finds imported: the core, so it is not compiled again (SNAPSHOT_IMPORTS).
        "import sys\nfound = [name for name in ('json', 'rollout_lab', 'rollout_lab.widgets') if name in sys.modules]\n"
        "import random, rollout_lab\nprint(random.random(), found)",
        "print(hash('rollouts') == hash('rollouts'), sorted({'b', 'a', 'c'}))",
    )
    stale = tmp_path / "snapshot-0123456789abcdef0123456789abcdef.bin.gz"
    stale.write_bytes(b"made for a runtime since changed")
    with runner_with_cache(project, tmp_path) as runner:
        made, problems = runner.run([page])
        path = runner.snapshot_path
        assert path is not None and path.parent == tmp_path
        snapshot = read_python_snapshot(runner, page[0].location)
    assert problems == []
    assert snapshot == path.read_bytes() and snapshot[:2] == b"\x1f\x8b"  # gzip
    assert path.name == f"snapshot-{runner._fingerprint}.bin.gz"  # named by the runtime, core and kernel it holds
    assert not stale.exists()  # only the current one is kept

    for cached in tmp_path.glob("*.json"):
        cached.unlink()  # the outputs must be computed again, this time by a Python restored from the snapshot
    with runner_with_cache(project, tmp_path) as runner:
        restored, _ = runner.run([page])
        assert runner.ran == 2
    assert path.read_bytes() == snapshot  # restored, not made again
    with runner_with_cache(project, None) as plain:  # no snapshot at all: the plain start imports what one holds
        started, _ = plain.run([page])
    expected = ["0.8444218515250481 ['json', 'rollout_lab', 'rollout_lab.widgets']\n", "True ['a', 'b', 'c']\n"]
    assert outputs_text(restored, page) == outputs_text(made, page) == outputs_text(started, page) == expected


def test_a_damaged_snapshot_is_made_again(project, tmp_path):
    page = page_of("content/01-a.md", "print(6 * 7)")
    with runner_with_cache(project, tmp_path) as runner:
        path = runner.snapshot_path
        assert path is not None
        path.write_bytes(b"not a snapshot")
        outputs, problems = runner.run([page])
    assert (problems, outputs_text(outputs, page)) == ([], ["42\n"])
    assert path.read_bytes()[:2] == b"\x1f\x8b"


# What one page's cells can change of the interpreter; the probe page prints each.
MUTATIONS = (
    "import random, os, sys, math, builtins\n"
    "random.seed(5)\n"
    "os.environ['ROLLOUTS'] = 'changed'\n"
    "os.chdir('/tmp')\n"
    "sys.setrecursionlimit(60)\n"
    "math.pi = 3\n"
    "builtins.len = lambda value: 0\n"
    "sys.modules['json'] = None\n",
    # The kernel itself, as a cell can reach it.
    "import cell_kernel\n"
    "cell_kernel.append_segment = lambda segments, stream, text: segments.append([stream, 'forged\\n'])\n"
    "cell_kernel.restore_interpreter = lambda: None\n"
    "cell_kernel.RANDOM_SEED = 7",
)
PROBE = (
    "import random, os, sys, math, json\n"
    "print(random.random(), os.environ.get('ROLLOUTS'), os.getcwd(), sys.getrecursionlimit(), math.pi, len('abc'), json.dumps(1))"
)


def test_a_page_cannot_change_what_another_page_computes(project, tmp_path):
    probe = page_of("content/02-b.md", PROBE)
    with runner_with_snapshot(project, tmp_path / "alone") as runner:
        alone, _ = runner.run([probe])
    with runner_with_snapshot(project, tmp_path / "after") as runner:
        after, problems = runner.run([page_of("content/01-a.md", *MUTATIONS), probe])
    assert problems == []
    expected = "0.8444218515250481 None /home/pyodide 1000 3.141592653589793 3 1\n"
    assert outputs_text(alone, probe) == outputs_text(after, probe) == [expected]


def test_a_patched_kernel_reaches_no_later_page_even_in_the_dev_servers_long_lived_runner(project, tmp_path):
    """One runner across rebuilds, as `serve` keeps it: a page run later still gets a Python of its own."""
    probe = page_of("content/02-b.md", PROBE)
    with runner_with_snapshot(project, tmp_path) as runner:
        runner.run([page_of("content/01-a.md", *MUTATIONS)])
        later, problems = runner.run([probe])
    assert problems == []
    assert outputs_text(later, probe) == ["0.8444218515250481 None /home/pyodide 1000 3.141592653589793 3 1\n"]


ENTRY_PAGE = page_of("content/01-a.md", "print(6 * 7)")


@pytest.fixture(scope="module")
def kept_entry(project, tmp_path_factory) -> bytes:
    """The cache entry a run of ENTRY_PAGE leaves, made once: the cases below damage its path without a run of their own."""
    with runner_with_snapshot(project, tmp_path_factory.mktemp("kept")) as runner:
        runner.run([ENTRY_PAGE])
        entry = runner._cache_file(chain_cell_keys(ENTRY_PAGE)[0])
    assert entry is not None and entry.is_file()
    return entry.read_bytes()


@pytest.mark.parametrize(
    "damage",
    [
        None,  # the entry as the run left it: read, not run again (so the path damaged below is the one read)
        b"not json",
        b"\xff\xfe not utf-8",
        b'{"output": [["stdout"]], "raised": false}',
        b'{"output": [["stdout", 5]], "raised": false}',
        b'{"output": [["shell", "x"]], "raised": false}',
        b'{"output": [["stdout", "\\ud800"]], "raised": false}',  # a lone surrogate cannot be written to a page
        b'{"output": [["stdout", "\\u001b[2J"]], "raised": false}',  # the kernel escapes ESC
        b'{"output": [], "raised": "no"}',
        b'{"output": {}}',
        b"[]",
        "fifo",
        "folder",
        "link",
    ],
)
def test_a_cache_entry_that_cannot_be_read_or_decoded_is_run_again(project, tmp_path, kept_entry, damage):
    with runner_with_snapshot(project, tmp_path) as runner:
        entry = runner._cache_file(chain_cell_keys(ENTRY_PAGE)[0])
        assert entry is not None
        if damage is None:
            entry.write_bytes(kept_entry)
        elif damage == "fifo":
            os.mkfifo(entry)
        elif damage == "folder":
            entry.mkdir()
        elif damage == "link":
            (tmp_path / "elsewhere.json").write_text('{"output": [["stdout", "planted\\n"]], "raised": false}')
            entry.symlink_to(tmp_path / "elsewhere.json")
        else:
            assert isinstance(damage, bytes)
            entry.write_bytes(damage)
        outputs, problems = runner.run([ENTRY_PAGE])
        assert runner.ran == (0 if damage is None else 1)
    assert (problems, outputs_text(outputs, ENTRY_PAGE)) == ([], ["42\n"])


@pytest.mark.parametrize("damage", ["fifo", "folder", "link"])
def test_a_snapshot_that_is_not_a_regular_file_is_made_again(project, tmp_path, damage):
    page = page_of("content/01-a.md", "print(6 * 7)")
    with runner_with_cache(project, tmp_path) as runner:
        path = runner.snapshot_path
        assert path is not None
        if damage == "fifo":
            os.mkfifo(path)
        elif damage == "folder":
            path.mkdir()
        else:
            (tmp_path / "elsewhere").write_bytes(b"not a snapshot")
            path.symlink_to(tmp_path / "elsewhere")
        outputs, problems = runner.run([page])
        assert read_python_snapshot(runner, page[0].location) == path.read_bytes()
    assert (problems, outputs_text(outputs, page)) == ([], ["42\n"])
    assert not path.is_symlink() and path.read_bytes()[:2] == b"\x1f\x8b"


def test_control_characters_bidi_controls_and_lone_surrogates_are_shown_escaped(project, tmp_path):
    page = page_of(
        "content/01-a.md",
        "print('a\\x00b\\x1b[31mc\\u202ed\\ud800e\\tf\\rg\\x85h')\nimport sys\nsys.stderr.write('\\u2066')\n'\\x1b'",
        "#| expect: error\nraise ValueError('\\x1b[2J\\u202e')",
    )
    with runner_with_snapshot(project, tmp_path) as runner:
        outputs, problems = runner.run([page])
    assert problems == []
    assert [outputs[cell.location].segments for cell in page] == [
        (("stdout", "a\\x00b\\x1b[31mc\\u202ed\\ud800e\tf\\x0dg\\x85h\n"), ("stderr", "\\u2066"), ("result", "'\\x1b'\n")),
        (
            (
                "error",
                "Traceback (most recent call last):\n"
                '  File "<cell 2>", line 1, in <module>\n'
                "    raise ValueError('\\x1b[2J\\u202e')\n"
                "ValueError: \\x1b[2J\\u202e\n",
            ),
        ),
    ]


def test_output_stops_at_a_million_characters_with_a_note_and_many_writes_stay_linear(project, tmp_path):
    # 160 000 prints: with a copy of the output per write (the old kernel) this ran past the cell's 10 s.
    page = page_of("content/01-a.md", "#| expect: error\nfor i in range(160_000):\n    print(i)\nraise KeyError('after')")
    with runner_with_snapshot(project, tmp_path) as runner:
        outputs, problems = runner.run([page])
    assert problems == []
    written = "".join(f"{i}\n" for i in range(160_000))
    assert len(written) > 1_000_000
    assert outputs[page[0].location].segments == (
        ("stdout", written[:1_000_000]),
        ("stderr", "\n[output truncated: the cell wrote more than 1,000,000 characters; the rest is not shown]\n"),
        (
            "error",
            "Traceback (most recent call last):\n"
            '  File "<cell 1>", line 3, in <module>\n'
            "    raise KeyError('after')\n"
            "KeyError: 'after'\n",
        ),
    )


def test_a_build_publishes_escaped_output_and_builds_again_from_its_cache(tmp_path):
    """The issue's lone surrogate broke every later build through the cache; raw ESC and U+202E reached the page."""
    project = make_scratch_project(tmp_path / "project")
    chapter = project / "content" / "02-possibilities.md"
    code = "print('\\ud800 \\x1b[2J \\u202e')"
    chapter.write_text(chapter.read_text(encoding="utf-8") + f"\n```{{python}}\n{code}\n```\n", encoding="utf-8")
    for build in ("made", "from the cache"):
        result = run_build_py(project, "build")
        assert (result.returncode, result.stderr) == (0, ""), build
        page = (project / "dist" / "02-possibilities.html").read_text(encoding="utf-8")
        assert '<span class="cell-stdout">\\ud800 \\x1b[2J \\u202e\n</span>' in page, build
        assert not any(character in page for character in "\x1b\u202e"), build
        (project / "dist" / "02-possibilities.html").unlink()  # built again, from the cached output


def test_a_kernel_reset_patched_to_hang_reaches_no_later_page(project, tmp_path):
    """With one interpreter for all pages, the next page's reset hung for START_TIMEOUT, then CellRunaway was uncaught."""
    hang = page_of("content/01-a.md", "import cell_kernel\ncell_kernel.restore_interpreter = lambda: [0 for _ in iter(int, 1)]")
    after = page_of("content/02-b.md", "print('fresh')")
    with runner_with_snapshot(project, tmp_path) as runner:
        outputs, problems = runner.run([hang, after])
    assert (problems, outputs_text(outputs, after)) == ([], ["fresh\n"])


def test_the_build_checks_the_runners_output_as_the_kernel_bounds_it(project, tmp_path):
    """A cell can change the kernel for its own page; what the changed kernel writes still never reaches the page."""
    page = page_of(
        "content/01-a.md",
        "import cell_kernel\ncell_kernel.escape_unsafe = lambda text: text",
        "print('\\x1b[2J')",
    )
    with runner_with_snapshot(project, tmp_path) as runner:
        outputs, problems = runner.run([page])
    assert [problem.format() for problem in problems] == [f"content/01-a.md:20: cell 2 {FORGED_NOTE}"]
    assert list(outputs) == [page[0].location]


def test_the_builds_bounds_are_the_kernels():
    spec = importlib.util.spec_from_file_location("kernel_on_the_host", PROJECT_ROOT / "site_templates/static/py/cell_kernel.py")
    assert spec is not None and spec.loader is not None
    kernel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernel)
    assert (kernel.OUTPUT_LIMIT, kernel.TRUNCATION_NOTE, kernel._UNSAFE.pattern) == (
        sitegen.check.cell_cache.OUTPUT_LIMIT,
        sitegen.check.cell_cache.TRUNCATION_NOTE,
        sitegen.check.cell_cache.UNSAFE_CHARACTERS.pattern,
    )


def test_an_answer_too_long_to_be_the_kernels_is_not_read(project, tmp_path):
    """A kernel changed to write past its bound: the build reads at most ANSWER_LIMIT characters of the answer."""
    page = page_of(
        "content/01-a.md",
        "import cell_kernel\ncell_kernel.BoundedOutput.__call__ = lambda self, stream, text: self._emit(stream, text)",
        "#| timeout: 60\nprint('x' * 70 * 1024**2)",
    )
    with runner_with_snapshot(project, tmp_path) as runner:
        outputs, problems = runner.run([page])
    assert [problem.format() for problem in problems] == [
        "content/01-a.md:20: cell 2 wrote an answer longer than any the kernel writes (67,108,864 characters): "
        "a cell on its page changed cell_kernel; Python was restarted"
    ]
    assert list(outputs) == [page[0].location]


def test_a_runtime_edited_in_place_keys_the_cells_and_the_snapshot_anew(tmp_path):
    # Same version, one byte changed: the outputs and the snapshot the unedited runtime made must not be used.
    runtime = tmp_path / "pyodide"
    shutil.copytree(PROJECT_ROOT / "node_modules" / "pyodide", runtime)
    before = CellRunner(runtime, b"", b"", tmp_path / "cells").snapshot_path
    wasm = bytearray((runtime / "pyodide.asm.wasm").read_bytes())
    wasm[-1] ^= 1
    (runtime / "pyodide.asm.wasm").write_bytes(wasm)
    after = CellRunner(runtime, b"", b"", tmp_path / "cells").snapshot_path
    assert before is not None and after is not None and before != after


def test_the_snapshot_is_the_same_on_every_fresh_make_and_a_damaged_kept_one_is_made_again(project, tmp_path):
    # Random's states and the file system's clock once made every build publish a new 6.5 MB file. The record
    # holds the snapshot's hash: the make here, of a kept snapshot found damaged, must give the committed one, made
    # by another make (and test_two_checkouts_at_different_paths makes two more), so one make is enough to compare.
    share_python_snapshot(tmp_path)  # the project's kept snapshot and the committed record that vouches for it
    runner = runner_with_cache(project, tmp_path / ".cache" / "cells")
    runner._snapshot_record = tmp_path / SNAPSHOT_RECORD
    try:
        kept = read_python_snapshot(runner, Location("content/01-a.md", 1))  # made here if this clone kept none yet
    finally:
        runner.close()
    path = runner.snapshot_path
    assert path is not None and path.read_bytes() == kept

    # One flipped byte in the kept snapshot: not shipped, made again (the record lies outside .cache/).
    damaged = bytearray(kept)
    damaged[len(damaged) // 2] ^= 1
    path.write_bytes(damaged)
    runner = runner_with_cache(project, tmp_path / ".cache" / "cells")
    runner._snapshot_record = tmp_path / SNAPSHOT_RECORD
    try:
        assert read_python_snapshot(runner, Location("content/01-a.md", 1)) == kept
    finally:
        runner.close()
    assert runner._snapshot_record.read_text(encoding="ascii") == (PROJECT_ROOT / SNAPSHOT_RECORD).read_text(encoding="ascii")


# Cells that make Pyodide fail for good, each on a page of its own: a WebAssembly trap, an exit, a stack overflow, and
# the case, a fatal error inside a call from JavaScript back into Python, after which Pyodide returned nothing
# instead of raising ("the Python cell runner failed: Cannot read properties of undefined (reading 'toJs')").
FATAL_CELLS = {
    "abort": ("import os\nos.abort()", "unreachable"),
    "exit": ("import os\nos._exit(3)", "Program terminated with exit(3)"),
    "bounds": ("import ctypes\nctypes.string_at(0xFFFFFFF0, 100)", "memory access out of bounds"),
    "stack": (
        "import sys\nsys.setrecursionlimit(10**6)\nnested = []\nfor _ in range(10**5):\n    nested = [nested]\nrepr(nested)",
        "Maximum call stack size exceeded",
    ),
    "through-javascript": (
        "import os\nfrom pyodide.ffi import to_js\ntry:\n    to_js([1]).forEach(lambda *a: os.abort())\n"
        "except BaseException as error:\n    print('caught', error)\nprint('alive')",
        "unreachable",
    ),
}


def test_a_cell_that_makes_pyodide_fail_for_good_is_reported_at_the_cell_and_later_pages_run(project, tmp_path):
    pages = [page_of(f"content/{name}.md", code, "print('never')") for name, (code, _) in FATAL_CELLS.items()]
    after = page_of("content/after.md", "print('after')")
    runner = runner_with_snapshot(project, tmp_path)
    try:
        outputs, problems = runner.run([*pages, after])
    finally:
        runner.close()
    assert [problem.format() for problem in problems] == [
        f"content/{name}.md:10: cell 1 stopped Python: {reason}; {FATAL_NOTE}" for name, (_, reason) in FATAL_CELLS.items()
    ]
    assert outputs_text(outputs, after) == ["after\n"]
    assert set(outputs) == {after[0].location}


# What a cell can leave to run later, each kind with what the cell itself writes. Each fired in (or killed) whichever
# later cell set it off or ran when it fired, and was cached so: cell 1's writes blamed on cell 2.
LEFTOVERS = {
    "gc-callback": ("gc.callbacks.append(lambda phase, info: print('gc', phase))", "left\n"),
    "gc-callback-raising": ("gc.callbacks.append(lambda phase, info: 1 / 0)", "left\n"),
    "audit-hook": (
        "try:\n    sys.addaudithook(lambda event, arguments: print(event))\n"
        "except BaseException as error:\n    print(type(error).__name__)",
        "AuditHookRefused\nleft\n",
    ),
    "del": (
        "class Noisy:\n    def __del__(self):\n        print('deleted')\nnoisy = Noisy()\nnoisy.me = noisy\ndel noisy",
        "left\ndeleted\n",
    ),
    "finalize": (
        "class Thing:\n    pass\nthing = Thing()\nthing.me = thing\nweakref.finalize(thing, print, 'finalized')\ndel thing",
        "left\nfinalized\n",
    ),
    "atexit": ("_ = atexit.register(print, 'at exit')", "left\n"),
    "call-later": ("asyncio.get_event_loop().call_later(0, print, 'later')", "left\n"),
    "call-later-raising": ("asyncio.get_event_loop().call_later(0, lambda: 1 / 0)", "left\n"),
    "call-later-abort": ("asyncio.get_event_loop().call_later(0, os.abort)", "left\n"),
    "monitoring": (
        "def f():\n    pass\nsys.monitoring.use_tool_id(3, 'left')\n"
        "sys.monitoring.register_callback(3, sys.monitoring.events.PY_START, lambda *a: print('started'))\n"
        "sys.monitoring.set_local_events(3, f.__code__, sys.monitoring.events.PY_START)",
        "left\n",
    ),
}
# What sets each off: a call, a collection, an import, a turn of JavaScript's event loop (the next request).
SETS_OFF = "globals().get('f', lambda: None)()\nimport gc, json\ngc.collect()\nprint('cell 2')"


@pytest.mark.parametrize("kind", LEFTOVERS)
def test_what_a_cell_leaves_to_run_later_never_writes_into_a_later_cell(project, tmp_path, kind):
    code, written = LEFTOVERS[kind]
    page = page_of("content/01-a.md", f"import asyncio, atexit, gc, os, sys, weakref\n{code}\nprint('left')", SETS_OFF)
    runner = runner_with_snapshot(project, tmp_path)
    try:
        outputs, problems = runner.run([page])
    finally:
        runner.close()
    assert (outputs_text(outputs, page), problems) == ([written, "cell 2\n"], [])


def test_two_checkouts_at_different_paths_make_the_same_snapshot_and_the_committed_record(tmp_path):
    # Emscripten took the runner script's absolute path for sys.executable: every folder made its own snapshot,
    # so a fresh clone's first build rewrote python-snapshot.sha256 and published a new file.
    made = []
    for folder in ("a", "a checkout at a much longer path/of its own"):
        project = make_scratch_project(tmp_path / folder)
        shutil.rmtree(project / ".cache" / "cells")
        (project / SNAPSHOT_RECORD).unlink()
        result = run_build_py(project, "check")
        assert (result.returncode, result.stderr) == (0, ""), result.stderr
        (snapshot,) = (project / ".cache" / "cells").glob("snapshot-*")
        made.append((snapshot.name, snapshot.read_bytes(), (project / SNAPSHOT_RECORD).read_text(encoding="ascii")))
    assert made[0] == made[1]
    assert made[0][2] == (PROJECT_ROOT / SNAPSHOT_RECORD).read_text(encoding="ascii")


def test_a_trace_function_a_cell_leaves_fails_neither_the_next_cell_nor_the_runner(project, tmp_path):
    # Cell 1's trace function raised as the kernel started cell 2 (outside cell 2's code): "the Python cell
    # runner failed", at cell 2's line, and the whole build stopped.
    page = page_of(
        "content/01-a.md",
        "import sys\ndef trace(frame, event, argument):\n    if frame.f_code.co_name == 'run_collected':\n"
        "        1 / 0\nsys.settrace(trace)\nprint('set')",
        "print(sys.gettrace())",
        "def later():\n    return 1 / 0\nsys.settrace(lambda *a: later())\n0",
    )
    runner = runner_with_snapshot(project, tmp_path)
    try:
        outputs, problems = runner.run([page])
    finally:
        runner.close()
    assert outputs_text(outputs, page[:2]) == ["set\n", "None\n"]
    assert [problem.format() for problem in problems] == [
        "content/01-a.md:32: cell 3 raised ZeroDivisionError: division by zero; "
        "fix it, or add '#| expect: error' if it is meant to raise"
    ]


def test_a_cell_that_breaks_its_own_streams_is_that_cells_error_and_every_other_problem_is_reported(project, tmp_path):
    """Issue 60: `sys.stdout = None` made the kernel's own flush fail, and the build stopped at "the Python cell runner
    failed" with nothing else reported; a warning printed after a traceback was taken for the error, and a message of
    5 MB lost its type (the traceback keeps its end)."""
    pages = [
        page_of("content/streams.md", "import sys\nsys.stdout = None", "print('never')"),
        page_of("content/raises.md", "raise ValueError('bad')"),
        page_of(
            "content/warning.md",
            # Held by the failing frame alone: collected as the kernel lets the traceback go, so it prints after it.
            "import sys\nclass Late:\n    def __del__(self):\n        print('RuntimeWarning: later', file=sys.stderr)\n"
            "def fail():\n    held = Late()\n    raise KeyError('k')\nfail()",
        ),
        page_of("content/large.md", "raise ValueError('x' * 5_000_000)"),
        page_of("content/after.md", "print('after')"),
    ]
    runner = runner_with_snapshot(project, tmp_path)
    try:
        outputs, problems = runner.run(pages)
    finally:
        runner.close()
    raised = "; fix it, or add '#| expect: error' if it is meant to raise"
    assert [problem.format() for problem in problems] == [
        f"content/streams.md:10: cell 1 made the cell kernel fail (PythonError): {BROKEN_KERNEL_NOTE}; Python was restarted",
        "content/raises.md:11: cell 1 raised ValueError: bad" + raised,
        "content/warning.md:17: cell 1 raised KeyError: 'k'" + raised,
        f"content/large.md:11: cell 1 raised ValueError: {'x' * 288}…" + raised,
    ]
    assert [outputs[cell.location].text for cell in pages[-1]] == ["after\n"]
