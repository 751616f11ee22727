"""The lab's trimmed standard library: the committed list is what the lab imports, and the zip is built from it.

find_lab_stdlib.mjs starts Pyodide as lab-worker.js does and lists the stdlib
files behind every module imported; the parity grid (test_parity.py) then runs
on the trimmed zip. `pytest --update-golden` rewrites the list.
"""

import io
import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from sitegen.assets.lab_stdlib import LAB_STDLIB_LIST, read_lab_stdlib_list, trim_lock_file, trim_stdlib
from sitegen.assets.site_assets import archive_core
from sitegen.assets.stdlib_parts import START_STDLIB_LIST
from sitegen.node import find_node

NODE = find_node() or "node"  # the Node the build runs (sitegen/node.py)

HERE = Path(__file__).parent
REPOSITORY = HERE.parents[1]
FULL_STDLIB = REPOSITORY / "node_modules" / "pyodide" / "python_stdlib.zip"


@pytest.fixture(scope="module")
def core_zip(tmp_path_factory) -> Path:
    folder = REPOSITORY / "pysrc" / "rollout_lab"
    core = tuple(
        (f"rollout_lab/{p.relative_to(folder).as_posix()}", p.read_text(encoding="utf-8")) for p in sorted(folder.rglob("*.py"))
    )
    path = tmp_path_factory.mktemp("core") / "rollout_lab.zip"
    path.write_bytes(archive_core(core))
    return path


def find_needed_files(core_zip: Path, trimmed: tuple[Path, Path] | None = None) -> list[str]:
    command = [NODE, str(HERE / "find_lab_stdlib.mjs"), str(core_zip)] + [str(p) for p in trimmed or ()]
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPOSITORY, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.mark.pyodide
def test_the_list_is_what_the_lab_imports(core_zip: Path, update_golden: bool):
    found = find_needed_files(core_zip)
    if update_golden and found != list(read_lab_stdlib_list()):
        LAB_STDLIB_LIST.write_text("".join(f"{name}\n" for name in found), encoding="utf-8")
    assert list(read_lab_stdlib_list()) == found


@pytest.mark.pyodide
def test_the_start_list_is_what_a_start_imports_the_core_and_the_cells_kernel_among_it(core_zip: Path, update_golden: bool):
    """The boot part of the pages' standard library (stdlib_parts.py): all a restored Python never fetches."""
    command = [NODE, str(HERE / "find_lab_stdlib.mjs"), "--start", str(core_zip)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPOSITORY, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    found = json.loads(result.stdout)
    if update_golden and found != list(read_lab_stdlib_list(START_STDLIB_LIST)):
        START_STDLIB_LIST.write_text("".join(f"{name}\n" for name in found), encoding="utf-8")
    assert list(read_lab_stdlib_list(START_STDLIB_LIST)) == found
    assert set(found) <= set(read_lab_stdlib_list())


@pytest.mark.pyodide
def test_the_lab_runs_from_the_trimmed_zip_and_lock_file_alone(core_zip: Path, tmp_path: Path):
    """Started on them, the worker's path imports nothing the zip lacks (an ImportError would fail the run)."""
    trimmed = tmp_path / "python_stdlib.zip"
    trimmed.write_bytes(trim_stdlib(FULL_STDLIB, read_lab_stdlib_list()))
    lock = tmp_path / "pyodide-lock.json"
    lock.write_bytes(trim_lock_file(FULL_STDLIB.with_name("pyodide-lock.json")))
    assert find_needed_files(core_zip, (trimmed, lock)) == list(read_lab_stdlib_list())


def test_the_trimmed_zip_holds_exactly_the_list_byte_for_byte_and_is_deterministic():
    trimmed = trim_stdlib(FULL_STDLIB, read_lab_stdlib_list())
    assert trimmed == trim_stdlib(FULL_STDLIB, read_lab_stdlib_list())
    with zipfile.ZipFile(io.BytesIO(trimmed)) as small, zipfile.ZipFile(FULL_STDLIB) as full:
        assert small.testzip() is None
        assert small.namelist() == sorted(read_lab_stdlib_list())
        for name in small.namelist():
            assert small.read(name) == full.read(name)
    assert len(trimmed) < FULL_STDLIB.stat().st_size / 2
