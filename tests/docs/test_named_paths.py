"""Every path a doc or a comment names exists: a file that moved or went must not live on in the text about it.

A "path" here is a word that starts in one of the project's own folders
(`pysrc/`, `sitegen/`, `rollout_lab/`, `tests/`, `docs/`, `benchmarks/`,
`site_templates/`, `.ci/`, `.github/`, or one of the build's stage folders such
as `serve/`) and ends in a file extension (`sitegen/serve/incremental.py`,
`docs/workers.md`), found in the Markdown of README.md and docs/, in the
Makefile's comments, and in the comments of the code (docstrings too, in
pysrc/). It names a file when some file the project tracks ends with it, so a
path written relative to `pysrc/` or to its own package counts. Placeholders
(`widgets/NAME.py`, `lab.HASH.js`), the generated docs/diagnostics.md (it
quotes messages about authors' files) and the dated logs under docs/log/
(history, as it was written) are not checked.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTENSIONS = "py|pyi|js|mjs|cjs|ts|md|css|html|txt|yaml|yml|json|toml|svg|sh|cfg"
# A word of path characters with a slash in it and a known extension at its end; the lookarounds keep it whole.
PATH = re.compile(rf"(?<![\w./:@~$-])((?:\.{{0,2}}/)?[\w.-]+(?:/[\w.-]+)+\.(?:{EXTENSIONS}))(?![\w/-])")
PLACEHOLDER = re.compile(r"\b(?:NAME|HASH\d*|VERSION|NN)\b")
# Where a comment starts, by file kind: '#' for Python, shell, YAML and make; '//' and '/* … */' for JavaScript.
COMMENT_MARK = {".py": "#", ".js": "//", ".mjs": "//", ".cjs": "//", ".css": "/*", ".sh": "#", ".yml": "#", ".yaml": "#"}


def list_tracked_files() -> list[str]:
    """Return every file git tracks or would track (uncommitted new files too), relative to the root."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [name for name in listed.splitlines() if (ROOT / name).exists()]


TRACKED = list_tracked_files()
SUFFIXES = {"/".join(name.split("/")[start:]) for name in TRACKED for start in range(name.count("/") + 1)}
# The folders a named path must start in to be checked: the project's own, and the packages and stage folders of
# pysrc/ (a comment says `serve/incremental.py` inside sitegen). Anything else (an author's `content/…`, a
# fixture's made-up folder, a package's `katex/dist/…`) is an example, not a claim about this tree.
ROOTS = {"pysrc", "tests", "docs", "benchmarks", "site_templates", "client", ".ci", ".github"} | {
    part for name in TRACKED if name.startswith("pysrc/") for part in name.split("/")[1:-1]
}


def read_prose(path: Path) -> list[tuple[int, str]]:
    """Return (line number, text) of the parts of a file that are prose about the code: Markdown whole; comments,
    and in Python the docstrings too, of code files."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".md" or path.name == "Makefile":
        mark = "#" if path.name == "Makefile" else None
        return [
            (number, line if mark is None else line.partition(mark)[2]) for number, line in enumerate(text.splitlines(), start=1)
        ]
    mark = COMMENT_MARK.get(path.suffix)
    if mark is None:
        return []
    # Tests' docstrings describe made-up projects (`content/a.md`); the code's describe this one.
    with_docstrings = path.relative_to(ROOT).parts[0] != "tests"
    lines = []
    in_docstring = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if path.suffix == ".py" and with_docstrings and (in_docstring or stripped.startswith(('"""', 'r"""'))):
            lines.append((number, line))
            quotes = stripped.count('"""')
            in_docstring = in_docstring != (quotes % 2 == 1)
            continue
        if mark == "/*":
            if "/*" in line or stripped.startswith("*"):
                lines.append((number, line))
            continue
        if mark in line:
            lines.append((number, line[line.index(mark) :]))
    return lines


def list_prose_files() -> list[Path]:
    """Return README, the docs (not their dated logs) and every code file of the project's own."""
    owned = ("pysrc/", "tests/", "benchmarks/", "client/", "site_templates/", "docs/", ".ci/", ".github/")
    chosen = []
    for name in TRACKED:
        if name.startswith("docs/log/") or name == "docs/diagnostics.md" or "/bad_inputs/" in name or "/golden/" in name:
            continue
        if name in {"README.md", "Makefile", "build.py"} or name.startswith(owned):
            chosen.append(ROOT / name)
    return chosen


def find_missing_paths() -> list[str]:
    """Return `file:line: 'path'` for every named path that no tracked file ends with."""
    missing = []
    for path in list_prose_files():
        for number, line in read_prose(path):
            for match in PATH.finditer(line):
                named = match.group(1).removeprefix("./")
                if named.split("/")[0] not in ROOTS or PLACEHOLDER.search(named) or named in SUFFIXES:
                    continue
                if any(suffix.endswith("/" + named) or suffix == named for suffix in SUFFIXES):
                    continue
                missing.append(f"{path.relative_to(ROOT)}:{number}: {named!r}")
    return missing


def test_every_named_path_exists():
    assert find_missing_paths() == []


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("see sitegen/serve/incremental.py for why", ["sitegen/serve/incremental.py"]),
        ("[guide](docs/workers.md#protocol)", ["docs/workers.md"]),
        ("https://example.org/a/b.html and /tmp/x/y.py", ["/tmp/x/y.py"]),
        ("no path here, only a.py", []),
    ],
)
def test_paths_are_found_in_a_line(line, found):
    assert [match.group(1) for match in PATH.finditer(line)] == found
