"""Python cells at build time reach nothing of the machine (issue 26): no Node API, process, network or file outside Python's own.

Each exploit is a real cell run by the real runner (node, Pyodide, the kernel
the site ships); each must fail with its exact diagnostic, and none may leave
a trace: no file written, no connection reaching the local server. The Node
layer (permission model, no code from strings) is tested apart with the
runner's own command line, so it holds even if the JavaScript layer did not.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from site_testing import PROJECT_ROOT, SAMPLE_CONTENT, make_scratch_project, run_build_py, share_python_snapshot
from sitegen.check.cell_runner import RUNNER_SCRIPT, CellRunner, sandboxed_runner_command
from sitegen.check.confinement import UNCONFINED_NOTE, find_bwrap
from sitegen.diagnostics import Location
from sitegen.kinds.blocks.cell import read_cell
from sitegen.model import Cell
from sitegen.node import find_node, permission_flag
from sitegen.pipeline import create_cell_runner
from sitegen.read.load import load_project

NODE = find_node() or "node"  # the Node the build runs (sitegen/node.py)

# What a cell that reached past its sandbox is told, written out: the catalogue (sitegen/messages.py) must print it.
SANDBOX_NOTE = "a cell has no processes, network, JavaScript or files outside Python's own; Python was restarted"

pytestmark = [pytest.mark.slow, pytest.mark.pyodide]

# What V8 says when a cell reaches a Function constructor: the runner's flag refuses code from strings (the constructors
# themselves are frozen with every intrinsic, so the page's own refusal is not installed at build time).
NO_CODE = "Code generation from strings disallowed for this context"
RAISED = "; fix it, or add '#| expect: error' if it is meant to raise"


@pytest.fixture(scope="module")
def local_server() -> Iterator[tuple[int, list[str]]]:
    """Serve 127.0.0.1 on a free port; yield the port and the paths it was asked for (none, if the sandbox holds)."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"secret")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], asked
    server.shutdown()
    server.server_close()


@pytest.fixture
def runner(tmp_path) -> Iterator[CellRunner]:
    """A real runner with a cache of its own holding the project's snapshot (a restored start, as in a build)."""
    share_python_snapshot(tmp_path)
    runner = create_cell_runner(load_project(PROJECT_ROOT, SAMPLE_CONTENT))
    runner._cache_dir = tmp_path / ".cache" / "cells"
    with runner:
        yield runner


def one_cell_page(name: str, code: str) -> tuple[Cell, ...]:
    cell, problem = read_cell(code, Location(f"content/{name}.md", 10))
    assert problem is None and cell is not None
    return (Cell(1, cell.code, cell.options, cell.location, cell.code_line),)


def test_a_cell_sees_no_javascript_and_no_network(runner, local_server, tmp_path):
    port, asked = local_server
    witness = tmp_path / "witness"
    exploits = {
        # The issue's own: a shell command through Node's child_process.
        "process": f'import js\njs.process.getBuiltinModule("child_process").execSync("touch {witness}")',
        "require": "import js\njs.require('node:fs')",
        "global": "import js\njs.globalThis",
        "eval": "import js\njs.eval('1')",
        "function": "import js\njs.Function('return 1')",
        "api": "import pyodide_js\npyodide_js.FS",
        # Every JavaScript object leads to Function through .constructor; so does every function.
        "constructor": "from pyodide.ffi import to_js\nto_js({}).constructor.constructor('return process')()",
        "async": "import pyodide.webloop\npyodide.webloop.scheduleCallback.constructor('return 1')",
        "run-js": "from pyodide.code import run_js\nrun_js('1')",
        "xhr": f"from pyodide.http import open_url\nopen_url('http://127.0.0.1:{port}/xhr')",
        "socket": f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)",
        "urllib": f"import urllib.request\nurllib.request.urlopen('http://127.0.0.1:{port}/urllib').read()",
        "file": f"open({str(PROJECT_ROOT / 'README.md')!r}).read()",
        "subprocess": "import subprocess\nsubprocess.run(['id'])",
    }
    outputs, problems = runner.run([one_cell_page(name, code) for name, code in exploits.items()])
    assert [problem.format() for problem in problems] == [
        f"content/process.md:12: cell 1 raised AttributeError: process{RAISED}",
        f"content/require.md:12: cell 1 raised AttributeError: require{RAISED}",
        f"content/global.md:12: cell 1 raised AttributeError: globalThis{RAISED}",
        f"content/eval.md:12: cell 1 raised AttributeError: eval{RAISED}",
        f"content/function.md:12: cell 1 raised AttributeError: Function{RAISED}",
        f"content/api.md:12: cell 1 raised AttributeError: FS{RAISED}",
        f"content/constructor.md:12: cell 1 raised pyodide.ffi.JsException: EvalError: {NO_CODE}{RAISED}",
        f"content/async.md:12: cell 1 raised pyodide.ffi.JsException: EvalError: {NO_CODE}{RAISED}",
        f"content/run-js.md:12: cell 1 raised ImportError: cannot import name 'eval' from 'js' (unknown location){RAISED}",
        f"content/xhr.md:12: cell 1 raised NameError: name 'XMLHttpRequest' is not defined{RAISED}",
        f"content/socket.md:12: cell 1 raised PermissionError: [Errno 2] Permission denied{RAISED}",
        f"content/urllib.md:12: cell 1 raised urllib.error.URLError: <urlopen error [Errno 2] Permission denied>{RAISED}",
        f"content/file.md:11: cell 1 raised FileNotFoundError: [Errno 44] No such file or directory: "
        f"{str(PROJECT_ROOT / 'README.md')!r}{RAISED}",
        f"content/subprocess.md:12: cell 1 raised OSError: [Errno 138] emscripten does not support processes.{RAISED}",
    ]
    assert (outputs, asked, witness.exists()) == ({}, [], False)


def test_what_stops_pyodide_is_the_cells_error_and_the_next_page_runs_afresh(runner, tmp_path):
    witness = tmp_path / "witness"
    pages = [
        # Emscripten runs a shell command through Node's child_process, and a string as code through eval.
        one_cell_page("system", f"import os\nos.system('touch {witness}')"),
        one_cell_page("detached", f"import os\nos.system('(sleep 60; touch {witness}) &')"),
        one_cell_page("ctypes", "import ctypes\nctypes.CDLL(None).emscripten_run_script(b'1')"),
        one_cell_page("after", "print('fresh')"),
    ]
    outputs, problems = runner.run(pages)
    assert [problem.format() for problem in problems] == [
        f"content/system.md:10: cell 1 stopped Python: Access to this API has been restricted (ChildProcess); {SANDBOX_NOTE}",
        f"content/detached.md:10: cell 1 stopped Python: Access to this API has been restricted (ChildProcess); {SANDBOX_NOTE}",
        f"content/ctypes.md:10: cell 1 stopped Python: a Python cell cannot run JavaScript code; {SANDBOX_NOTE}",
    ]
    assert [output.text for output in outputs.values()] == ["fresh\n"]
    assert not witness.exists()


def test_the_runners_node_may_read_only_its_own_files_and_start_nothing(tmp_path):
    """The Node layer alone: JavaScript run with the runner's flags is refused what a cell must never get."""
    folder = PROJECT_ROOT / "node_modules" / "pyodide"
    command = sandboxed_runner_command(NODE, folder, tmp_path / "snapshot.bin.gz")
    assert command[-2:] == [str(RUNNER_SCRIPT), str(folder)]
    attempts = {
        "write": f"require('node:fs').writeFileSync({json.dumps(str(tmp_path / 'written'))}, 'x')",
        "read": "require('node:fs').readFileSync('/etc/hostname')",
        "child": "require('node:child_process').execSync('true')",
        "worker": "new (require('node:worker_threads').Worker)('1', { eval: true })",
        "eval": "eval('1')",
        "function": "new Function('return 1')",
    }
    script = (
        "const out = {};"
        f"for (const [name, code] of Object.entries({json.dumps(attempts)})) {{"
        "  try { require('node:vm').runInThisContext(code); out[name] = 'allowed'; }"
        "  catch (error) { out[name] = error.code ?? error.name; } }"
        "console.log(JSON.stringify(out));"
    )
    # The same flags, with a script of the test's own in place of the runner.
    ran = subprocess.run([*command[:-2], "-e", script], capture_output=True, text=True, timeout=60)
    assert json.loads(ran.stdout) == {
        "write": "ERR_ACCESS_DENIED",
        "read": "ERR_ACCESS_DENIED",
        "child": "ERR_ACCESS_DENIED",
        "worker": "ERR_ACCESS_DENIED",
        "eval": "EvalError",
        "function": "EvalError",
    }
    assert not (tmp_path / "written").exists()


def test_the_operating_systems_sandbox_holds_without_nodes_permission_model(local_server, tmp_path):
    """The OS layer alone (bwrap, which `make test` installs): JavaScript run by the runner's Node with no permission
    flag reads no environment, reaches no network, signals no process of the build's and sees no project folder."""
    port, asked = local_server
    assert find_bwrap()[0] is not None, find_bwrap()[1]
    folder = PROJECT_ROOT / "node_modules" / "pyodide"
    command = sandboxed_runner_command(NODE, folder, None)
    unconfined = command[: command.index(permission_flag(NODE))]  # bwrap's part and Node, without Node's flags
    script = (
        "const net = require('node:net'); const fs = require('node:fs'); const out = {};"
        "out.environment = { ...process.env };"
        f"try {{ process.kill({os.getpid()}, 0); out.signal = 'sent'; }} catch (error) {{ out.signal = error.code; }}"
        f"try {{ out.listed = fs.readdirSync({json.dumps(str(PROJECT_ROOT))}); }} catch (error) {{ out.listed = error.code; }}"
        f"try {{ fs.writeFileSync({json.dumps(str(folder / 'written'))}, 'x'); out.write = 'written'; }}"
        " catch (error) { out.write = error.code; }"
        f"const socket = net.connect({port}, '127.0.0.1');"
        "socket.on('connect', () => { out.socket = 'open'; done(); });"
        "socket.on('error', (error) => { out.socket = error.code; done(); });"
        "function done() { console.log(JSON.stringify(out)); process.exit(0); }"
    )
    ran = subprocess.run([*unconfined, "-e", script], capture_output=True, text=True, timeout=60)
    # Of the project, only the folders holding a bound file: the runtime's (node_modules, client, pysrc; .venv's Node).
    targets = [Path(target) for option, target in zip(unconfined, unconfined[2:], strict=False) if option == "--ro-bind"]
    bound_at_the_root = sorted(
        {target.relative_to(PROJECT_ROOT).parts[0] for target in targets if PROJECT_ROOT in target.parents}
    )
    assert json.loads(ran.stdout) == {
        "environment": {"PWD": "/"},
        "signal": "ESRCH",
        "listed": bound_at_the_root,
        "write": "EROFS",
        "socket": "ECONNREFUSED",
    }
    assert asked == []


def test_without_bubblewrap_the_build_says_so_once_and_keeps_nodes_permission_model(tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "ldd").symlink_to(shutil.which("ldd") or "/usr/bin/ldd")
    script = (
        "from pathlib import Path\n"
        "from sitegen.check.cell_runner import sandboxed_runner_command\n"
        "for _ in range(2):\n"
        f"    command = sandboxed_runner_command({NODE!r}, Path({str(PROJECT_ROOT / 'node_modules' / 'pyodide')!r}), None)\n"
        "print(command[:2])\n"
    )
    environment = {"PATH": str(tmp_path / "bin"), "PYTHONPATH": str(PROJECT_ROOT / "pysrc")}
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment, timeout=60)
    assert (ran.stdout, ran.stderr) == (
        f"[{NODE!r}, {permission_flag(NODE)!r}]\n",
        UNCONFINED_NOTE.format(reason="not installed"),
    )


def test_the_runners_node_loads_pyodide_through_a_chain_of_links(tmp_path):
    """node_modules linked to a link to the real folder (a scratch project → a worktree → the checkout): each hop is allowed."""
    (tmp_path / "worktree").mkdir()
    (tmp_path / "worktree" / "node_modules").symlink_to(PROJECT_ROOT / "node_modules")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "node_modules").symlink_to(tmp_path / "worktree" / "node_modules")
    folder = tmp_path / "project" / "node_modules" / "pyodide"
    command = sandboxed_runner_command(NODE, folder, None)
    script = (
        f"import({json.dumps(str(folder / 'pyodide.mjs'))}).then("
        "() => { try { require('node:fs').readFileSync('/etc/hostname'); console.log('read outside'); }"
        "        catch (error) { console.log('loaded', error.code); } },"
        "  (error) => console.log('refused', error.code));"
    )
    ran = subprocess.run([*command[:-2], "-e", script], capture_output=True, text=True, timeout=60)
    assert ran.stdout == "loaded ERR_ACCESS_DENIED\n"


@pytest.mark.parametrize("bubblewrap", ["where the machine has it", "without it"])
def test_cells_run_when_node_modules_links_to_a_folder_whose_name_begins_with_its_own(tmp_path, bubblewrap):
    """Issue 60: with each link hop allowed, Node's permission model denied node_modules itself beside an allowed
    node_modules.real, and without bwrap every cell failed."""
    project = make_scratch_project(tmp_path / "project")
    (project / "node_modules").unlink()
    (project / "node_modules.real").symlink_to(PROJECT_ROOT / "node_modules")
    (project / "node_modules").symlink_to("node_modules.real")
    product = 1_000_003 * (7 if bubblewrap == "without it" else 11)  # a cell of its own: never taken from the cache
    chapter = project / "content" / "02-possibilities.md"
    chapter.write_text(f"{chapter.read_text(encoding='utf-8')}\n```{{python}}\nprint({product // 1_000_003} * 1_000_003)\n```\n")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "ldd").symlink_to(shutil.which("ldd") or "/usr/bin/ldd")
    environment = {**os.environ, "PATH": str(tmp_path / "bin")} if bubblewrap == "without it" else dict(os.environ)
    built = subprocess.run(
        [sys.executable, str(project / "build.py"), "build", "--quiet"],
        cwd=project,
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )
    note = UNCONFINED_NOTE.format(reason="not installed") if bubblewrap == "without it" else ""
    assert (built.returncode, built.stderr) == (0, note)
    assert f"{product}\n" in (project / "dist" / "02-possibilities.html").read_text(encoding="utf-8")


def test_a_build_with_the_issues_exploits_fails_at_the_cells_and_writes_nothing_outside(tmp_path):
    project = make_scratch_project(tmp_path / "project")
    witness = tmp_path / "witness"
    exploits = {
        "02-possibilities.md": f"import os\nos.system('touch {witness}')",
        "03-scoring.md": f'import js\njs.process.getBuiltinModule("child_process").execSync("touch {witness}")',
    }
    fences = {}
    for name, code in exploits.items():
        chapter = project / "content" / name
        text = chapter.read_text(encoding="utf-8")
        fences[name] = text.count("\n") + 2
        chapter.write_text(f"{text}\n```{{python}}\n{code}\n```\n", encoding="utf-8")
    for command in ("check", "build"):
        result = run_build_py(project, command)
        assert (result.returncode, result.stderr.splitlines()[:2]) == (
            1,
            [
                f"content/02-possibilities.md:{fences['02-possibilities.md']}: cell 1 stopped Python: "
                f"Access to this API has been restricted (ChildProcess); {SANDBOX_NOTE}",
                f"content/03-scoring.md:{fences['03-scoring.md'] + 2}: cell 1 raised AttributeError: process{RAISED}",
            ],
        ), result.stderr
        assert not witness.exists()
    assert not (project / "dist").exists()


def test_a_cells_environment_names_nothing_of_the_build_machine(runner):
    """Emscripten fills os.environ from the runner's own path and the reader's language unless told otherwise."""
    outputs, problems = runner.run([one_cell_page("environ", "import os\nprint(sorted(os.environ.items()))")])
    assert problems == []
    assert [output.text for output in outputs.values()] == [
        "[('HOME', '/home/pyodide'), ('LANG', 'C.UTF-8'), ('LD_LIBRARY_PATH', '/usr/lib:/lib/python3.14/site-packages'), "
        "('LOGNAME', 'web_user'), ('PATH', '/'), ('PWD', '/'), ('PYTHONHASHSEED', '0'), ('PYTHONINSPECT', '1'), "
        "('USER', 'web_user'), ('_', './this.program')]\n"
    ]


SCAN_PROBE = PROJECT_ROOT / "tests" / "site" / "check" / "probes" / "scan_for_pyodide_api.py"


def test_a_sealed_cell_finds_no_route_to_pyodides_api(runner):
    """Issue 42: nothing in sys.modules, nor anything the garbage collector tracks, exposes Pyodide's API."""
    outputs, problems = runner.run([one_cell_page("scan", SCAN_PROBE.read_text(encoding="utf-8"))])
    assert problems == []
    assert [output.text for output in outputs.values()] == ["scanned\n"]


# Issue 42's attacks, each through the route it used (Pyodide's API in sys.modules, or imported by name).
API_ATTACKS = {
    "nodesock": "import pyodide_js._api as api\napi.public_api.useNodeSockFS()",
    "held": "import sys\nsys.modules['pyodide_js._api'].public_api.useNodeSockFS()",
    "stdout": "import pyodide_js._api as api\napi.public_api.setStdout({'write': lambda data: len(data)})",
    "stderr": "import pyodide_js._api as api\napi.public_api.setStderr({'batched': print})\n"
    "import os\nos.write(2, b'\\x1b[2J' * 100_000_000)",
    "lazy": "import pyodide_js._api as api\napi._module.FS_createLazyFile('/', 'x', 'http://127.0.0.1:9/', True, False)",
    "binary": "import pyodide_js._api as api\napi.loadBinaryFile('http://127.0.0.1:9/x')",
    "module": "import pyodide_js\npyodide_js._module.FS",
}


def test_issue_42s_attacks_each_end_in_the_cells_own_error(runner):
    outputs, problems = runner.run([one_cell_page(name, code) for name, code in API_ATTACKS.items()])
    assert [problem.format() for problem in problems] == [
        f"content/nodesock.md:12: cell 1 raised AttributeError: public_api{RAISED}",
        f"content/held.md:12: cell 1 raised KeyError: 'pyodide_js._api'{RAISED}",
        f"content/stdout.md:12: cell 1 raised AttributeError: public_api{RAISED}",
        f"content/stderr.md:12: cell 1 raised AttributeError: public_api{RAISED}",
        f"content/lazy.md:12: cell 1 raised AttributeError: _module. Did you mean: '__module__'?{RAISED}",
        f"content/binary.md:12: cell 1 raised AttributeError: loadBinaryFile{RAISED}",
        f"content/module.md:12: cell 1 raised AttributeError: _module. Did you mean: '__module__'?{RAISED}",
    ]
    assert outputs == {}


def test_what_a_cell_writes_to_the_runners_own_streams_never_reaches_the_build(tmp_path):
    """A cell's writes to file descriptors 1 and 2 (a forged answer, escape sequences, a forged diagnostic) reach neither
    the protocol nor the terminal: Pyodide's streams are the kernel's or nothing, and no cell can change that."""
    project = make_scratch_project(tmp_path / "project")
    chapter = project / "content" / "02-possibilities.md"
    code = (
        'import os\nos.write(1, b\'{"id": 3, "ok": true, "result": null}\\n\')\n'
        "os.write(2, b'\\x1b[31mcontent/x.md:1: forged\\n' * 1000)\nprint('after')"
    )
    chapter.write_text(chapter.read_text(encoding="utf-8") + f"\n```{{python}}\n{code}\n```\n", encoding="utf-8")
    result = run_build_py(project, "check")
    assert (result.returncode, result.stderr) == (0, "")


# Issue 60's escape: a getter planted on an intrinsic's prototype catches what Pyodide reads through it (its API as
# `API.Comlink` whenever it makes a proxy; Emscripten's `window`, the global object), then reads the environment.
GETTER = (
    "from pyodide.ffi import to_js, create_proxy\n"
    "O = to_js({}).constructor\n"
    "caught = []\n"
    "getter = create_proxy(lambda this: caught.append(this), capture_this=True)\n"
    "O.defineProperty(TARGET, NAME, O.fromEntries(to_js([['get', getter], ['configurable', True]])))\n"
    "create_proxy(print)\n"
    "print(O.keys(caught[0].public_api._module.ENV or caught[0]))\n"
)
INTRINSIC_ESCAPES = {
    "comlink": GETTER.replace("TARGET", "O.prototype").replace("NAME", "'Comlink'"),
    "window": GETTER.replace("TARGET", "O.prototype").replace("NAME", "'window'"),
    "function": GETTER.replace("TARGET", "O.getPrototypeOf(O)").replace("NAME", "'Comlink'"),
    "array": GETTER.replace("TARGET", "O.getPrototypeOf(to_js([]))").replace("NAME", "'Comlink'"),
    "assign": "from pyodide.ffi import to_js\nto_js({}).constructor.prototype.Comlink = 1",
}


def test_a_cell_cannot_plant_a_getter_on_javascripts_intrinsics_and_python_still_runs(runner):
    pages = [one_cell_page(name, code) for name, code in INTRINSIC_ESCAPES.items()]
    outputs, problems = runner.run([*pages, one_cell_page("after", "print(sum(range(10)))")])
    frozen = "pyodide.ffi.JsException: TypeError: Cannot {} property {}, object is not extensible"
    assert [problem.format() for problem in problems] == [
        f"content/comlink.md:15: cell 1 raised {frozen.format('define', 'Comlink')}{RAISED}",
        f"content/window.md:15: cell 1 raised {frozen.format('define', 'window')}{RAISED}",
        f"content/function.md:15: cell 1 raised {frozen.format('define', 'Comlink')}{RAISED}",
        f"content/array.md:15: cell 1 raised {frozen.format('define', 'Comlink')}{RAISED}",
        f"content/assign.md:12: cell 1 raised {frozen.format('add', 'Comlink')}{RAISED}",
    ]
    assert [output.text for output in outputs.values()] == ["45\n"]
