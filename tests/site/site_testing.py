"""Helpers shared by the pipeline's tests (fixtures live in conftest.py)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from sitegen.cli import main
from sitegen.paths import find_project_root

SITE_TESTS = Path(__file__).parent
SAMPLE_CONTENT = SITE_TESTS / "sample_content"
PROJECT_ROOT = find_project_root()


@dataclass(frozen=True)
class CliRun:
    """The exit status and the output of one in-process `build.py` run."""

    status: int
    stdout: str
    stderr: str


def run_cli(arguments: list[str], cwd: Path, capsys) -> CliRun:
    """Run `build.py ARGUMENTS` in-process from `cwd`, the way a shell in that folder would."""
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        capsys.readouterr()
        status = main(arguments)
        captured = capsys.readouterr()
    finally:
        os.chdir(previous)
    return CliRun(status, captured.out, captured.err)


def snapshot_folder(folder: Path) -> dict[str, bytes]:
    """Return every file under a folder with its bytes, keyed by relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def copy_sample(destination: Path) -> Path:
    """Copy the sample content folder to destination/content and return it."""
    content = destination / "content"
    shutil.copytree(SAMPLE_CONTENT, content)
    return content
