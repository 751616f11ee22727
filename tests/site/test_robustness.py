"""What a hostile or unlucky author can do to the tools, beyond the bad-input fixtures (issue 16).

Cases that need something a fixture folder cannot hold (a FIFO, a symbolic
link, a signal, a dropped connection, a resource bound) are set up here. Each
asserts the exact one-line message, the exit status and that no traceback
reaches the author; bounded work is checked by running the command in a
subprocess under a CPU-time limit and reading its peak memory, never by
timing it.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from serve_testing import ServeProcess
from site_testing import (
    PROJECT_ROOT,
    communicate_or_kill,
    copy_sample,
    make_scratch_project,
    run_build_py,
    run_cli,
    snapshot_folder,
    start_build_py,
)
from sitegen.check.formulas import KatexProcess
from sitegen.diagnostics import BuildFailed
from sitegen.files.paths import KATEX_SCRIPT
from sitegen.kinds.blocks.figure import inline_figure_svg
from sitegen.markup.anchors import RESERVED_IDS, RESERVED_PREFIXES, is_reserved_id, slugify
from sitegen.model import Source
from sitegen.publish.output_folder import adopt_folder
from sitegen.read.figures import parse_figure
from sitegen.read.site_config import parse_base_url, read_base_url

BUILD_PY = str(PROJECT_ROOT / "build.py")
CPU_SECONDS = 20  # far above a normal check (one or two seconds); the quadratic scans this guards against took 20+ s
MEMORY_BYTES = 600 * 2**20  # a normal check peaks near 100 MB, the alias bomb took 950 MB


def previous_site(folder: Path) -> dict[str, bytes]:
    """Make `folder` an earlier build's output and return its files (a failed build must leave them as they are)."""
    folder.mkdir()
    (folder / "index.html").write_text("the previous build\n", encoding="utf-8")
    adopt_folder(folder)  # marked as the build that wrote it marks it
    return snapshot_folder(folder)


def run_bounded(arguments: list[str], cwd: Path) -> tuple[int, str, int]:
    """Run build.py under a CPU-time limit; return the exit status, stderr and the peak memory (bytes) of it and its children.

    A small Python in between starts build.py and measures it. Measured from
    here, the peak would include this test process's own memory: a forked
    child's peak counts the parent's pages it starts with, and pytest grows
    to hundreds of MB over a session.
    """
    measure = (
        "import os, resource, subprocess, sys\n"
        f"resource.setrlimit(resource.RLIMIT_CPU, ({CPU_SECONDS}, {CPU_SECONDS}))\n"
        "child = subprocess.Popen([sys.executable, *sys.argv[2:]])\n"
        "_pid, status, usage = os.wait4(child.pid, 0)\n"
        "open(sys.argv[1], 'w').write(str(usage.ru_maxrss * 1024))\n"
        "sys.exit(os.waitstatus_to_exitcode(status))\n"
    )
    peak_file = cwd / "peak.txt"
    with open(cwd / "stderr.txt", "w+", encoding="utf-8") as errors:
        process = subprocess.run(
            [sys.executable, "-c", measure, str(peak_file), BUILD_PY, *arguments],
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            check=False,
        )
        errors.seek(0)
        return process.returncode, errors.read(), int(peak_file.read_text(encoding="utf-8"))


# --- files that are not regular files --------------------------------------------------


def test_a_fifo_a_dangling_link_and_a_link_loop_are_diagnostics_and_hide_no_other_problem(tmp_path, capsys):
    content = copy_sample(tmp_path)
    os.mkfifo(content / "07-fifo.md")
    os.symlink("nowhere.md", content / "08-dangling.md")
    os.symlink("09-loop.md", content / "09-loop.md")
    (content / "notes.md").write_text("a stray page\n", encoding="utf-8")
    before = previous_site(tmp_path / "dist")

    run = run_cli(["build", "--content", "content", "--out", "dist"], tmp_path, capsys)

    assert run.stderr.splitlines() == [
        "content/07-fifo.md: a named pipe (FIFO), not a regular file; only regular files are read",
        "content/08-dangling.md: a symbolic link to a file that does not exist; only regular files are read",
        "content/09-loop.md: a symbolic link loop; only regular files are read",
        "content/notes.md: unexpected Markdown file: chapters are named NN-slug.md (e.g. 03-scoring.md); "
        "the other pages are index.md, glossary.md and notation.md",
    ]
    assert run.status == 1
    assert snapshot_folder(tmp_path / "dist") == before


def test_content_files_that_are_symbolic_links_are_refused_as_fifos_are_and_nothing_outside_is_read(tmp_path, capsys):
    # A link's target may be anywhere (~/.ssh/id_rsa): read, its text would be published with the page.
    content = copy_sample(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("---\ntitle: Secret\nchapter: 7\n---\n\nA private note.\n", encoding="utf-8")
    os.symlink(outside / "secret.md", content / "07-secret.md")
    os.symlink("../outside/secret.md", content / "08-relative.md")
    before = previous_site(tmp_path / "dist")

    run = run_cli(["build", "--content", "content", "--out", "dist"], tmp_path, capsys)

    assert run.stderr.splitlines() == [
        "content/07-secret.md: a symbolic link, not a regular file; only regular files are read",
        "content/08-relative.md: a symbolic link, not a regular file; only regular files are read",
    ]
    assert run.status == 1
    assert snapshot_folder(tmp_path / "dist") == before


# --- bounded work ---------------------------------------------------------------------------


def test_an_alias_bomb_is_refused_within_a_cpu_and_memory_bound(tmp_path):
    content = copy_sample(tmp_path)
    bomb = "x0: &x0 [lol]\n" + "".join(f"x{i}: &x{i} [" + ", ".join([f"*x{i - 1}"] * 9) + "]\n" for i in range(1, 10))
    page = content / "01-rollout.md"
    page.write_text(page.read_text(encoding="utf-8").replace("chapter: 1\n", "chapter: 1\n" + bomb, 1), encoding="utf-8")

    status, stderr, peak = run_bounded(["check", "--content", "content"], tmp_path)

    assert stderr.splitlines() == [
        "content/01-rollout.md:5: front matter is not valid YAML: anchors and aliases (&name, *name) are not allowed; "
        "write the value out"
    ]
    assert status == 1
    assert peak < MEMORY_BYTES


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{{" * 9_000, "content/01-rollout.md:29: unclosed computed value: '{{' without '}}' on the same line"),
        ("{{" * 100_000, "content/01-rollout.md:29: this block is 200000 characters long (the limit is 20000); split it"),
        ("[" * 100_000, "content/01-rollout.md:29: this block is 100000 characters long (the limit is 20000); split it"),
    ],
)
def test_a_long_line_of_markup_is_parsed_within_a_cpu_and_memory_bound(tmp_path, line, message):
    content = copy_sample(tmp_path)
    page = content / "01-rollout.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n" + line + "\n", encoding="utf-8")

    status, stderr, peak = run_bounded(["check", "--content", "content"], tmp_path)

    assert re.findall(r"^content/01-rollout\.md:.*$", stderr, re.MULTILINE) == [message]
    assert status == 1
    assert peak < MEMORY_BYTES


def make_sparse_file(path: Path, size: int) -> None:
    """Make a file of `size` bytes on paper (sparse: it takes no room), replacing any file there."""
    with open(path, "wb") as file:
        file.truncate(size)


def test_files_over_the_size_limit_are_diagnostics_and_are_never_read(tmp_path):
    content = copy_sample(tmp_path)
    make_sparse_file(content / "04-huge.md", 4 * 2**30)  # read whole, it would not fit in memory
    make_sparse_file(content / "figures" / "huge.svg", 2**20 + 1)
    make_sparse_file(content / "references.yaml", 2 * 2**20)
    before = previous_site(tmp_path / "dist")

    status, stderr, peak = run_bounded(["build", "--content", "content", "--out", "dist"], tmp_path)

    assert stderr.splitlines() == [
        "content/04-huge.md: too large to read: 4,294,967,296 bytes (the limit is 1 MiB, 1,048,576 bytes); split it",
        "content/figures/huge.svg: too large to read: 1,048,577 bytes (the limit is 1 MiB, 1,048,576 bytes); split it",
        "content/references.yaml: missing references: add references.yaml, a list of entries with key, short, authors, year, title, url",
        "content/references.yaml: too large to read: 2,097,152 bytes (the limit is 1 MiB, 1,048,576 bytes); split it",
    ]
    assert status == 1
    assert peak < MEMORY_BYTES
    assert snapshot_folder(tmp_path / "dist") == before


def test_a_huge_site_yaml_a_template_or_a_static_file_is_one_line_and_never_read(tmp_path):
    project = make_scratch_project(tmp_path / "project")
    make_sparse_file(project / "site.yaml", 4 * 2**30)
    result = run_build_py(project, "build")
    assert (result.returncode, result.stderr) == (
        1,
        "site.yaml: too large to read: 4,294,967,296 bytes (the limit is 1 MiB, 1,048,576 bytes); split it\n",
    )
    (project / "site.yaml").unlink()
    make_sparse_file(project / "site_templates" / "static" / "data.bin", 4 * 2**30)
    result = run_build_py(project, "build")
    assert (result.returncode, result.stderr) == (
        1,
        "site_templates/static/data.bin: too large to read: 4,294,967,296 bytes (the limit for a file of the project is 8 MiB)\n",
    )
    (project / "site_templates" / "static" / "data.bin").unlink()
    os.mkfifo(project / "site_templates" / "partials" / "pipe.html")
    result = run_build_py(project, "build")
    assert (result.returncode, result.stderr) == (
        1,
        "site_templates/partials/pipe.html: a named pipe (FIFO), not a regular file; only regular files are read\n",
    )
    assert not (project / "dist").exists()


@pytest.mark.slow
def test_forty_thousand_headings_are_checked_within_a_cpu_and_memory_bound(tmp_path):
    # Each heading's anchor was counted in a list of all of them, and each repeat renumbered from 1: 88 s for 40 000.
    content = copy_sample(tmp_path)
    page = content / "01-rollout.md"
    headings = "".join(f"## Step {number}\n\n" for number in range(20_000)) + "## Again\n\n" * 20_000
    page.write_text(page.read_text(encoding="utf-8") + "\n" + headings, encoding="utf-8")

    status, stderr, peak = run_bounded(["check", "--content", "content"], tmp_path)

    assert (status, stderr) == (0, "")
    assert peak < MEMORY_BYTES


# --- no traceback: signals, ports, connections ------------------------------------------------


@pytest.mark.parametrize("extra_delay", [0.0, 0.3, 0.6])
def test_ctrl_c_during_a_build_exits_130_quietly_and_leaves_the_output_old_or_new(tmp_path, extra_delay):
    copy_sample(tmp_path)
    before = previous_site(tmp_path / "dist")
    # Once build.py is importing sitegen (the event, not a guess of Python's start-up time), then later still.
    process = start_build_py(
        tmp_path, "build", "--content", "content", "--out", "dist", stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    time.sleep(extra_delay)
    interrupted = process.poll() is None
    if interrupted:
        process.send_signal(signal.SIGINT)
    stdout, stderr = communicate_or_kill(process)

    after = snapshot_folder(tmp_path / "dist")
    if interrupted and process.returncode != 0:
        # 130, or killed by the signal itself when it came before Python set up its handler
        # (a loaded machine): both are what a shell reports as 130, and both say nothing.
        assert process.returncode in (130, -signal.SIGINT), (stdout, stderr)
        assert stderr == "", stdout
        # Silent, unless the build had finished and said so as the signal came (a build of 0.25 s, a quiet machine).
        assert stdout == "" or (stdout.startswith("Built ") and "index.html" in after and after != before)
    else:  # it finished before the signal
        assert process.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert after == before or ("index.html" in after and after["index.html"] != before["index.html"])


@pytest.mark.parametrize("command", ["serve", "preview"])
@pytest.mark.parametrize("port", ["-1", "99999", "eighty", "８０００"])
def test_a_bad_port_is_one_line_and_exit_status_2(command, port, tmp_path):
    run = subprocess.run(
        [sys.executable, BUILD_PY, command, "--port", port], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    assert run.stderr == f"build.py {command}: --port must be a whole number from 0 to 65535, got '{port}'\n"
    assert run.returncode == 2
    assert run.stdout == ""


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.1, 0.15, 0.3])
def test_ctrl_c_in_the_first_moments_of_serve_exits_quietly(tmp_path, delay):
    copy_sample(tmp_path)
    # Before build.py runs, a Ctrl-C is Python's to report ("init_import_site: Failed to import the site module"):
    # the signal comes `delay` after build.py began importing sitegen, whatever the machine's load.
    process = start_build_py(
        tmp_path,
        *("serve", "--port", "0", "--content", "content", "--out", "dist"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a group of its own, which the signal reaches whole, as a terminal's Ctrl-C does
    )
    time.sleep(delay)
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = communicate_or_kill(process)
    # Both streams in the message: a status alone (it once was 1: a Ctrl-C while the server's threads started) says
    # nothing of where the signal came.
    assert process.returncode in (0, 130, -signal.SIGINT), (stdout, stderr)
    assert stderr == "", stdout


# A sitecustomize module that holds the dev server inside the start of its first thread ("http") once that thread
# runs, and says so on a pipe: on a busy machine a new thread may wait that long for a core, and a Ctrl-C came there.
HOLD_THREAD_START = """
import os, threading, time

_start = threading.Thread.start


def _start_and_hold(self):
    _start(self)
    if self.name == "http":
        os.write(int(os.environ["ROLLOUTS_TEST_HTTP_STARTED"]), b"1")
        time.sleep(60)


threading.Thread.start = _start_and_hold
"""


def test_ctrl_c_while_serve_starts_its_threads_exits_quietly(tmp_path):
    # It exited 1 with a traceback: the tidy-up joined the watcher's thread, which had not been started.
    copy_sample(tmp_path)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOLD_THREAD_START, encoding="utf-8")
    started, started_to_write = os.pipe()
    try:
        process = subprocess.Popen(
            [sys.executable, BUILD_PY, "serve", "--port", "0", "--content", "content", "--out", "dist"],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(hook), "ROLLOUTS_TEST_HTTP_STARTED": str(started_to_write)},
            pass_fds=(started_to_write,),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        os.close(started_to_write)
    try:
        assert os.read(started, 1) == b"1", "the server ended before starting its threads"
    finally:
        os.close(started)
    process.send_signal(signal.SIGINT)
    stdout, stderr = communicate_or_kill(process)
    assert (process.returncode, stdout, stderr) == (130, "", "")


def test_serve_says_nothing_when_browsers_drop_connections_mid_file(tmp_path):
    content = copy_sample(tmp_path)
    server = ServeProcess(content, tmp_path / "dist")
    try:
        wasm = next((tmp_path / "dist").rglob("*.wasm")).relative_to(tmp_path / "dist").as_posix()
        for _ in range(40):
            connection = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            connection.sendall(f"GET /{wasm} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            connection.recv(1024)
            # Close with a reset, as a browser tab closed mid-download does.
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            connection.close()
        status, _headers, _body = server.get("/index.html")
        assert status == 200
    finally:
        status, _stdout, stderr = server.stop(signal.SIGINT)
    assert status == 0
    assert "Traceback" not in stderr and "Error" not in stderr, stderr


def test_without_node_modules_every_missing_front_end_file_is_listed(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pysrc", "site_templates", "client"):
        shutil.copytree(PROJECT_ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(BUILD_PY, project)
    copy_sample(project)
    run = subprocess.run(
        [sys.executable, "build.py", "build"], cwd=project, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.stderr.splitlines() == [
        f"node_modules/{name}: missing; run `npm ci` (see the Makefile)"
        for name in (
            "esbuild/bin/esbuild",
            "esbuild/package.json",
            "katex/dist/katex.js",
            "katex/dist/katex.min.css",
            "minisearch/dist/es/index.js",
            "pyodide/pyodide-lock.json",
            "pyodide/pyodide.asm.mjs",
            "pyodide/pyodide.asm.wasm",
            "pyodide/pyodide.mjs",
            "pyodide/python_stdlib.zip",
        )
    ]
    assert run.returncode == 1
    assert not (project / "dist").exists()


def test_node_is_needed_only_when_a_formula_must_be_rendered(tmp_path, monkeypatch):
    # An install without the venv's pinned Node and none on PATH: what sitegen.node.find_node then answers.
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("sitegen.check.formulas.find_node", lambda: None)
    with KatexProcess(PROJECT_ROOT / KATEX_SCRIPT, tmp_path / "math.json", start_now=True) as katex:
        assert katex.render([]) == {}
        with pytest.raises(BuildFailed) as failure:
            katex.render([("x^2", False)])
    assert [d.format() for d in failure.value.diagnostics] == [
        "build.py: node is not installed; KaTeX needs it to render the math in the content"
    ]


# --- site.yaml ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "base_url: https://user:secret@example.org/rollouts/\n",
            "site.yaml:1: base_url must not contain a user name or password (user:password@); it is published in every page",
        ),
        (
            "base_url: http://[::1/rollouts/\n",
            "site.yaml:1: base_url must be an absolute http(s) address like https://example.org/rollouts/, got 'http://[::1/rollouts/'",
        ),
        (
            "base_url: https://example.org:99999/\n",
            "site.yaml:1: base_url must be an absolute http(s) address like https://example.org/rollouts/, "
            "got 'https://example.org:99999/'",
        ),
        (
            'base_url: "https://example.org/\\"><script>/"\n',
            "site.yaml:1: base_url must be an absolute http(s) address like https://example.org/rollouts/, "
            "got 'https://example.org/\"><script>/'",
        ),
        (
            "base_url: &a https://example.org/\n",
            "site.yaml:1: not valid YAML: anchors and aliases (&name, *name) are not allowed; write the value out",
        ),
        (
            "base_url: https://a.org/\nbase_url: https://b.org/\n",
            "site.yaml:2: not valid YAML: key 'base_url' is given twice (first 1 line above)",
        ),
    ],
)
def test_a_hostile_base_url_is_one_line(text, message):
    with pytest.raises(BuildFailed) as failure:
        parse_base_url(text, "site.yaml")
    assert [d.format() for d in failure.value.diagnostics] == [message]


def test_a_site_yaml_that_is_not_utf8_names_line_and_column(tmp_path):
    (tmp_path / "site.yaml").write_bytes(b"# settings\nbase_url: https://example.org/\xe9/\n")
    with pytest.raises(BuildFailed) as failure:
        read_base_url(tmp_path)
    assert [d.format() for d in failure.value.diagnostics] == [
        "site.yaml:2: not valid UTF-8: byte 0xe9 at column 31; save the file as UTF-8"
    ]


# --- what reaches the reader ---------------------------------------------------------------


def test_every_literal_id_in_the_templates_is_reserved_from_heading_slugs():
    literal_ids = {
        match
        for path in (PROJECT_ROOT / "site_templates").rglob("*.html")
        for match in re.findall(r'\bid="([^"{]+)"', path.read_text(encoding="utf-8"))
    }
    assert literal_ids <= RESERVED_IDS, "add the template's new ids to markdown.RESERVED_IDS"
    assert slugify("Main") == "main-section"
    assert slugify("Site search input") == "site-search-input-section"
    assert slugify("Main idea") == "main-idea"


def test_every_id_a_page_script_gives_is_reserved_from_heading_slugs():
    """Issue 60: the reader's preview and the search's message took ids a heading could take too."""
    scripts = [path.read_text(encoding="utf-8") for path in (PROJECT_ROOT / "client").rglob("*.*js")]
    literal = {match for script in scripts for match in re.findall(r'\.id = "([^"]+)"', script)}
    # An id made of a start and a number (`site-search-result-${index}`); one made from an element's own id is in
    # that element's namespace (a lab's `lab-2-…`, parse.py's find_derived_owner).
    numbered = {match for script in scripts for match in re.findall(r"\.id = `([a-z-]+)\$\{", script)}
    assert literal and numbered
    assert literal <= RESERVED_IDS, "add the script's new ids to anchors.RESERVED_IDS"
    assert numbered <= set(RESERVED_PREFIXES), "add the script's numbered ids to anchors.RESERVED_PREFIXES"
    assert is_reserved_id("site-search-result-3") and not is_reserved_id("site-search-results-3")
    assert slugify("Reader preview") == "reader-preview-section"
    assert slugify("Site search result 3") == "section-site-search-result-3"


def test_an_svg_figure_is_reserialised_not_copied():
    svg = (
        '<?xml version="1.0"?>\n<!-- a comment with <script> in it -->\n'
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><title>T &amp; U</title><desc>D</desc>'
        '<defs><marker id="head"><path d="M0 0"/></marker></defs>'
        '<line x1="0" y1="0" x2="1" y2="1" marker-end="url(#head)"/><text x="1" y="2">a &lt; b</text></svg>'
    )
    figure, problems = parse_figure(Source("content/figures/arrow.svg", "figures/arrow.svg", svg))
    assert problems == []
    assert inline_figure_svg(figure, "figure-arrow") == (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" role="img" aria-labelledby="figure-arrow-title" '
        'aria-describedby="figure-arrow-desc"><title id="figure-arrow-title">T &amp; U</title><desc id="figure-arrow-desc">D</desc>'
        '<defs><marker id="figure-arrow--head"><path d="M0 0"/></marker></defs>'
        '<line x1="0" y1="0" x2="1" y2="1" marker-end="url(#figure-arrow--head)"/><text x="1" y="2">a &lt; b</text></svg>'
    )


def test_an_unclosed_dollar_is_a_warning_a_price_is_not(tmp_path, capsys):
    content = copy_sample(tmp_path)
    page = content / "01-rollout.md"
    text = page.read_text(encoding="utf-8") + "\nIt costs $5 and $6, and \\$x is escaped.\n\nThe state $s_t is never closed.\n"
    page.write_text(text, encoding="utf-8")
    # The line the unclosed formula is on, counted here, so the sample may grow without this test changing.
    unclosed_line = text.splitlines().index("The state $s_t is never closed.") + 1
    run = run_cli(["check", "--content", "content"], tmp_path, capsys)
    assert [line for line in run.stderr.splitlines() if "unclosed" in line] == [
        f"content/01-rollout.md:{unclosed_line}: warning: unclosed '$': the formula has no closing '$' and shows as plain text "
        "(write '\\$' for a dollar sign)"
    ]


def test_a_huge_rule_in_a_formula_is_capped_not_refused(tmp_path, capsys):
    content = copy_sample(tmp_path)
    page = content / "01-rollout.md"
    page.write_text(
        page.read_text(encoding="utf-8").replace("At step $t$", "At step $\\rule{100000em}{1em}$", 1), encoding="utf-8"
    )
    run = run_cli(["build", "--content", "content", "--out", "dist"], tmp_path, capsys)
    assert run.status == 0, run.stderr
    stylesheets = "".join(path.read_text(encoding="utf-8") for path in (tmp_path / "dist" / "assets").glob("math.*.css"))
    assert "border-right-width:50em" in stylesheets  # KaTeX's maxSize, not the formula's 100000em
    assert "100000em" not in stylesheets


def test_serve_keeps_watching_when_the_content_folder_is_deleted_and_made_again(tmp_path):
    content = copy_sample(tmp_path)
    server = ServeProcess(content, tmp_path / "dist")
    try:
        shutil.rmtree(content)
        server.read_stderr_until("content: content folder not found")
        copy_sample(tmp_path)
        server.read_stdout_until("Rebuilt in ")
        page = content / "01-rollout.md"
        page.write_text(
            page.read_text(encoding="utf-8").replace("## The context grows", "## The context keeps growing"), encoding="utf-8"
        )
        server.read_stdout_until("Rebuilt in ")
        status, _headers, body = server.get("/01-rollout.html")
        assert status == 200 and b"The context keeps growing" in body
    finally:
        status, _stdout, stderr = server.stop(signal.SIGINT)
    assert status == 0
    assert "Traceback" not in stderr
