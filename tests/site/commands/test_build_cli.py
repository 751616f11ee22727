"""`build.py` as a reader's shell runs it: exit status, one line per problem, no traceback."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import zstandard

from site_testing import PROJECT_ROOT, SAMPLE_CONTENT, copy_sample, run_cli
from sitegen.assets.compressed_copy import GZIP
from sitegen.model import StaticFile
from sitegen.pipeline import check_project, make_site
from sitegen.read.load import load_project


def run_build_py(*arguments: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(PROJECT_ROOT / "build.py"), *arguments], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_a_good_build_exits_0_and_prints_its_summary_only(tmp_path):
    result = run_build_py("build", "--content", str(SAMPLE_CONTENT), "--out", str(tmp_path / "dist"), cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert re.fullmatch(r"Built 8 pages in [0-9]+\.[0-9]{2} s → .*/dist/\n", result.stdout), result.stdout
    assert (tmp_path / "dist" / "index.html").is_file()


def test_bad_content_exits_1_with_one_line_per_problem_and_no_traceback(tmp_path):
    content = copy_sample(tmp_path)
    chapter = content / "03-scoring.md"
    chapter.write_text(
        chapter.read_text(encoding="utf-8").replace("[reward](term:)", "[reward](term:advantge)").replace("$$", "$"),
        encoding="utf-8",
    )
    result = run_build_py("build", "--content", "content", "--out", "dist", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        "content/03-scoring.md:6: unknown glossary term 'advantge'\n"
        "content/glossary.md:11: warning: glossary term 'reward' is not used in any chapter\n"
    )
    assert not (tmp_path / "dist").exists()


def test_a_missing_content_folder_is_one_line(tmp_path, capsys):
    run = run_cli(["build", "--content", "drafts", "--out", "dist"], tmp_path, capsys)
    assert (run.status, run.stderr) == (1, "drafts: content folder not found\n")


def test_warnings_are_printed_but_do_not_fail_the_build(tmp_path, capsys):
    content = copy_sample(tmp_path)
    glossary = content / "glossary.md"
    glossary.write_text(glossary.read_text(encoding="utf-8") + "\nZebra\n: Not a term the chapters use.\n", encoding="utf-8")
    run = run_cli(["build", "--content", "content", "--out", "dist"], tmp_path, capsys)
    assert (run.status, run.stderr) == (0, "content/glossary.md:30: warning: glossary term 'zebra' is not used in any chapter\n")


def test_lab_pages_link_the_lab_script_and_runtime_only_when_the_lab_script_exists():
    project = load_project(PROJECT_ROOT, SAMPLE_CONTENT)
    others = tuple(f for f in project.static_files if not f.name.startswith("js/"))
    # Already as esbuild minifies them, so the shipped bytes (and their hashes) are these.
    lab_script, worker_script = b"self.lab=1;\n", b"self.worker=1;\n"
    with_lab = replace(
        project, static_files=others + (StaticFile("js/lab.js", lab_script), StaticFile("js/lab-worker.js", worker_script))
    )
    files = make_site(check_project(with_lab))
    core = next(name for name in files if name.startswith("lab/rollout_lab."))
    stdlib = next(name for name in files if re.fullmatch(r"pyodide/[^/]+/python_stdlib\.[0-9a-f]{8}\.json", name))
    assert stdlib.endswith(f"/python_stdlib.{hashlib.sha256(files[stdlib]).hexdigest()[:8]}.json")
    lock = next(name for name in files if re.fullmatch(r"pyodide/[^/]+/pyodide-lock\.[0-9a-f]{8}\.json", name))
    assert json.loads(files[lock])["packages"] == {}
    pyodide = next(name for name in files if name.endswith("/pyodide.mjs")).removesuffix("pyodide.mjs")
    # The memory snapshot the workers restore Python from, named by its bytes, beside the core.
    snapshot = next(name for name in files if name.startswith("lab/python-snapshot."))
    assert snapshot == f"lab/python-snapshot.{hashlib.sha256(files[snapshot]).hexdigest()[:8]}.bin"
    chapter_2 = files["02-possibilities.html"].decode()
    # Pyodide's WebAssembly, gzip-compressed (deterministically: compressed_copy.py) and named by its bytes, its one
    # compressed form; the snapshot zstd-compressed too.
    (wasm,) = [name for name in files if re.fullmatch(r"pyodide/[^/]+/pyodide\.asm\.wasm\..+\.bin", name)]
    assert re.fullmatch(r"pyodide/[^/]+/pyodide\.asm\.wasm\.gz\.[0-9a-f]{8}\.bin", wasm)
    assert wasm.endswith(f".gz.{hashlib.sha256(files[wasm]).hexdigest()[:8]}.bin")
    plain = next(name for name in files if name.endswith("/pyodide.asm.wasm"))
    assert gzip.decompress(files[wasm]) == Path(files[plain]).read_bytes()
    assert files[wasm] == GZIP.compress(Path(files[plain]).read_bytes())
    assert len(zstandard.ZstdDecompressor().decompress(files[snapshot])) > 30 * 1024 * 1024  # the heap, and a header
    # What a start fetches and counts (python-worker.mjs, pyodide-start.mjs): the compressed wasm, the lock file,
    # the stdlib's directory, the core, the snapshot and its zstd decoder's WebAssembly.
    decoder = f"{pyodide}zstd-decoder.wasm.gz.bin"
    start_bytes = sum(len(files[name]) for name in (wasm, lock, stdlib, core, snapshot, decoder))
    # And with the runtime's scripts the start imports: what the Save-Data button says it downloads.
    scripts = [
        name for name in files if name.startswith(pyodide) and name.rpartition("/")[2] in ("pyodide.mjs", "pyodide.asm.mjs")
    ]
    download_bytes = start_bytes + sum(Path(files[name]).stat().st_size for name in scripts)
    assert len(scripts) == 2
    worker_hash = hashlib.sha256(worker_script).hexdigest()[:8]
    script_hash = hashlib.sha256(lab_script).hexdigest()[:8]
    assert (
        f'<script type="application/json" id="rollouts-lab" data-start-bytes="{start_bytes}" data-download-bytes="{download_bytes}">{{"core": "{core}", "lock": "{lock}", "pyodide": "{pyodide}", '
        f'"snapshot": "{snapshot}", "stdlib": "{stdlib}", "wasm": "{wasm}", "worker": "assets/lab-worker.{worker_hash}.js"}}</script>\n'
        f'<script type="module" src="assets/lab.{script_hash}.js"></script>'
    ) in chapter_2
    assert "rollouts-lab" not in files["01-rollout.html"].decode()

    without_lab = replace(project, static_files=others)
    files = make_site(check_project(without_lab))
    assert "rollouts-lab" not in files["02-possibilities.html"].decode()
    assert '<script type="module"' not in files["02-possibilities.html"].decode()


def test_strict_builds_fail_on_warnings_and_write_nothing(tmp_path):
    from sitegen.diagnostics import BuildFailed
    from sitegen.pipeline import build_site

    content = copy_sample(tmp_path)
    glossary = content / "glossary.md"
    glossary.write_text(glossary.read_text(encoding="utf-8") + "\nZebra\n: Not a term the chapters use.\n", encoding="utf-8")
    project = load_project(PROJECT_ROOT, content)
    try:
        build_site(project, tmp_path / "dist", strict=True)
    except BuildFailed as failure:
        lines = [d.format() for d in failure.diagnostics]
    else:
        raise AssertionError("a strict build with a warning must fail")
    assert lines == [f"{content}/glossary.md:30: warning: glossary term 'zebra' is not used in any chapter"]
    assert not (tmp_path / "dist").exists()


def test_math_comes_from_the_cache_without_starting_node_once_rendered(tmp_path):
    from sitegen.check.formulas import KatexProcess

    project = load_project(PROJECT_ROOT, SAMPLE_CONTENT)
    cache = tmp_path / "math.json"
    formulas = [("x^2", False), (r"\frac{1}{K}", True), (r"\frc", False)]
    with KatexProcess(project.katex_script, cache) as katex:
        rendered = katex.render(formulas)
        assert katex.is_running
    with KatexProcess(project.katex_script, cache, start_now=False) as katex:
        assert katex.render(formulas) == rendered
        assert not katex.is_running
        assert katex.render([("y", False)])[("y", False)].html.startswith('<span class="katex">')
        assert katex.is_running
    assert rendered[(r"\frc", False)].error == r"Undefined control sequence: \frc at position 1"


def test_an_unwritable_output_folder_is_one_line_not_a_traceback(tmp_path, capsys):
    (tmp_path / "file").write_text("not a folder", encoding="utf-8")
    run = run_cli(["build", "--content", str(SAMPLE_CONTENT), "--out", "file/dist"], tmp_path, capsys)
    assert (run.status, run.stderr) == (2, "build.py build: cannot create 'file/dist': file is a file\n")


LONG_NAME = "a" * 280
TOO_LONG = "a name in it is longer than the file system allows (280 bytes; the limit is 255)"
LOOP = "it goes through a loop of symbolic links"
LONG_SHOWN = "'" + "a" * 38 + "…"
# (command, option, value, what follows "build.py COMMAND: --OPTION VALUE: ")
PATH_VALUES = [
    (command, option, value, shown, problem)
    for command, options in (
        ("build", ("--out", "--content")),
        ("check", ("--content",)),
        ("serve", ("--out", "--content")),
        ("preview", ("--out",)),
    )
    for option in options
    for value, shown, problem in (("loop/site", "'loop/site'", LOOP), (LONG_NAME, LONG_SHOWN, TOO_LONG))
]


@pytest.mark.parametrize(
    ("command", "option", "value", "shown", "problem"),
    PATH_VALUES,
    ids=[f"{command}{option}-{'loop' if value.startswith('loop') else 'long'}" for command, option, value, _, _ in PATH_VALUES],
)
def test_a_folder_through_a_link_loop_or_with_too_long_a_name_is_one_line_and_exit_2(
    tmp_path, capsys, command, option, value, shown, problem
):
    (tmp_path / "loop").symlink_to("loop")
    run = run_cli([command, option, value, *(["--port", "0"] if command in ("serve", "preview") else [])], tmp_path, capsys)
    assert (run.status, run.stdout, run.stderr) == (2, "", f"build.py {command}: {option} {shown}: {problem}\n")


EXIT_AT_ONCE = """
import sys
sys.path.insert(0, {pysrc!r})
from sitegen.commands.cli import exit_at_once
print("buffered, not yet written", end="")
print("and on stderr", end="", file=sys.stderr)
{before_exit}
exit_at_once(3)
"""


def run_exit_at_once(before_exit: str) -> subprocess.CompletedProcess:
    script = EXIT_AT_ONCE.format(pysrc=str(PROJECT_ROOT / "pysrc"), before_exit=before_exit)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)


def test_build_py_exits_at_once_with_its_status_after_flushing_what_it_printed():
    result = run_exit_at_once("")
    assert (result.returncode, result.stdout, result.stderr) == (3, "buffered, not yet written", "and on stderr")


def test_build_py_exits_with_120_when_stdout_cannot_be_flushed_as_python_does():
    result = run_exit_at_once("sys.stdout.flush = lambda: (_ for _ in ()).throw(BrokenPipeError(32, 'Broken pipe'))")
    assert (result.returncode, result.stderr) == (120, "and on stderr")
