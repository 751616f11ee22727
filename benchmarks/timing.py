"""What the build benchmarks share: timing a command in a new process, clearing the build's caches, the load average, MkDocs."""

from __future__ import annotations

import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MKDOCS_VENV = ROOT / ".cache" / "mkdocs-venv"
MKDOCS_PACKAGES = ("mkdocs", "mkdocs-material", "pymdown-extensions")
MKDOCS_CONFIG = """\
site_name: Rollouts
theme:
  name: material
markdown_extensions:
  - pymdownx.arithmatex:
      generic: true
  - def_list
  - attr_list
  - tables
  - footnotes
  - toc:
      permalink: true
"""


def as_users_run_it() -> dict[str, str]:
    """Return this environment without PYTHONDONTWRITEBYTECODE.

    This machine sets it, so pysrc/ would be compiled from source on every run
    while the installed packages (ours and MkDocs') have bytecode: an author's
    machine writes and reuses bytecode for both.
    """
    return {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def time_command(command: list[str], cwd: Path | None = None) -> tuple[float, float]:
    """Run a command in a new process; return its wall-clock and CPU seconds (children included, e.g. node).

    CPU time is reported too because wall-clock time on a busy machine mostly
    measures the other processes. The command runs as users run it, writing and
    reusing bytecode (see as_users_run_it).
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=as_users_run_it())
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cpu_seconds_of_tree(pid: int) -> float:
    """Return the CPU seconds of process `pid` and its live descendants, with the children each has reaped.

    A closed browser context's renderers have exited: their time is in the browser
    process's cutime/cstime once it reaped them, so it is still counted.
    """
    ticks = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = sum(int(value) for value in fields[11:15]) / ticks  # utime stime cutime cstime

    def descends(process: int) -> bool:
        while process > 1:
            if process == pid:
                return True
            process = parents.get(process, 0)
        return False

    return sum(seconds for process, seconds in times.items() if descends(process))


# The book's cache files under .cache/ (sitegen/files/paths.py): KaTeX's results, the computed values' texts, the up-to-date record.
BOOK_CACHE_FILES = ("math.json", "computed-values.json", "build-manifest.json")


def clear_build_caches() -> None:
    """Remove every cache of the book (KaTeX results, computed values, the up-to-date record; before issue 41 also
    templates and scripts).

    What is left in .cache/ is not the build's (the Pyodide test wheels, MkDocs' venv). The tool's own cache
    (node_modules/.cache/rollouts/, sitegen/files/tool_cache.py) is kept: it belongs to the installed tool, as an
    installed MkDocs theme's prebuilt assets do.
    """
    for folder in ("jinja", "scripts"):
        shutil.rmtree(ROOT / ".cache" / folder, ignore_errors=True)
    for name in BOOK_CACHE_FILES:
        (ROOT / ".cache" / name).unlink(missing_ok=True)


def load_average() -> str:
    """Return the 1, 5 and 15 minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def describe_machine() -> str:
    """Name the machine a figure was measured on: CPU model, core count, Python, OS."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        names = [line.partition(":")[2].strip() for line in cpuinfo.read_text().splitlines() if line.startswith("model name")]
        model = names[0] if names else model
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.release()}"


def run_timed(command: list[str], cwd: Path | None = None) -> tuple[int, float, float]:
    """Run a command with its output shown; return its exit status, wall-clock seconds and CPU seconds (children included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    status = subprocess.run(command, cwd=cwd, stdout=sys.stdout, stderr=sys.stderr).returncode
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return status, elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def install_mkdocs() -> Path:
    """Create .cache/mkdocs-venv with MkDocs, Material and pymdown-extensions (once); return its mkdocs command."""
    mkdocs = MKDOCS_VENV / "bin" / "mkdocs"
    if not mkdocs.exists():
        print("Installing MkDocs, Material and pymdown-extensions into .cache/mkdocs-venv (once) ...", flush=True)
        venv.create(MKDOCS_VENV, with_pip=True, clear=True)
        subprocess.run([str(MKDOCS_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", *MKDOCS_PACKAGES], check=True)
    return mkdocs


def prepare_mkdocs(content: Path, scratch: Path, name: str = "mkdocs") -> tuple[list[str], Path, str]:
    """Set up an MkDocs project (scratch/NAME) over a copy of the content's Markdown; return its build command, folder and versions."""
    mkdocs = install_mkdocs()
    project = scratch / name
    docs = project / "docs"
    docs.mkdir(parents=True)
    for markdown in content.glob("*.md"):
        shutil.copy(markdown, docs / markdown.name)
    if (content / "figures").is_dir():
        shutil.copytree(content / "figures", docs / "figures")
    (project / "mkdocs.yml").write_text(MKDOCS_CONFIG, encoding="utf-8")
    command = [str(mkdocs), "build", "--quiet", "--clean", "--site-dir", str(project / "site")]
    versions = subprocess.run(
        [str(MKDOCS_VENV / "bin" / "python"), "-m", "pip", "list", "--format=json"], capture_output=True, text=True, check=True
    ).stdout
    wanted = {p["name"].lower(): p["version"] for p in json.loads(versions)}
    return command, project, ", ".join(f"{name} {wanted.get(name, '?')}" for name in MKDOCS_PACKAGES)


def time_mkdocs_build(command: list[str], project: Path) -> tuple[float, float]:
    """Time one MkDocs build into an empty site folder."""
    shutil.rmtree(project / "site", ignore_errors=True)
    return time_command(command, cwd=project)
