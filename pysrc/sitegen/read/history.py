"""When each content file last changed, from git: the "Last updated" line under every page.

One `git log` over the content folder gives every file's last commit date
(committer date, so a rebase shows when the text landed). The date is the
commit's, never the file's modification time, so two builds of the same commit
print the same page wherever they run.

When git cannot tell — no git, not a repository, a file never committed, or a
shallow clone (whose oldest commit would claim every file it holds) — the
fallback is reproducible too: the date in `SOURCE_DATE_EPOCH` when it is set
(the reproducible-builds convention), otherwise no date at all.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

DATE_EPOCH_VARIABLE = "SOURCE_DATE_EPOCH"
# How long git may take to answer one question before the dates fall back.
GIT_SECONDS = 20


def read_last_updated(content_path: Path, commit_dates: CommitDates) -> tuple[tuple[str, str], ...]:
    """Return ((content file name, "YYYY-MM-DD"), ...) for every file under content_path that git or the fallback dates.

    `commit_dates`: git asked about content_path (its answers are waited for here).
    """
    dates = commit_dates.read()
    fallback = read_fallback_date()
    if fallback:
        for path in sorted(content_path.rglob("*")):
            if path.is_file():
                dates.setdefault(path.relative_to(content_path).as_posix(), fallback)
    return tuple(sorted(dates.items()))


def read_fallback_date() -> str:
    """Return SOURCE_DATE_EPOCH as a UTC date, or "" when it is unset or not a whole number."""
    value = os.environ.get(DATE_EPOCH_VARIABLE, "").strip()
    if not value.isdigit():
        return ""
    return datetime.fromtimestamp(int(value), UTC).date().isoformat()


def read_content_commit(content_path: Path) -> str:
    """Return what the dates depend on besides the files: the commit at HEAD and whether the clone is shallow.

    "" when git cannot tell (the dates then come from SOURCE_DATE_EPOCH, or none).
    """
    git = shutil.which("git")
    if git is None:
        return ""
    try:
        completed = subprocess.run(
            [git, "-C", str(content_path), "rev-parse", "HEAD", "--is-shallow-repository"],
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return completed.stdout if completed.returncode == 0 else ""


class CommitDates:
    """git asked when each content file last changed: its three questions at once, its answers read by `read`.

    The build starts it before it imports the pipeline, so git (≈ 60–110 ms,
    most of it `git log`) works on another core meanwhile instead of holding
    up the build. Use it as a context manager: leaving stops whatever git has
    not answered.
    """

    def __init__(self, content_path: Path) -> None:
        git = shutil.which("git")
        questions = (
            ("rev-parse", "--is-shallow-repository"),
            ("rev-parse", "--show-toplevel"),
            ("log", "--format=%x00%cs", "--name-only", "--no-renames", "--relative", "--", "."),
        )
        self._processes: list[subprocess.Popen[str] | None] = []
        if git is not None:
            for question in questions:
                try:
                    process: subprocess.Popen[str] | None = subprocess.Popen(
                        [git, "-C", str(content_path), *question],
                        stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL,
                        text=True,
                        encoding="utf-8",
                    )
                except OSError:
                    process = None
                self._processes.append(process)

    def read(self) -> dict[str, str]:
        """Return {content file name: date of its last commit}; {} when git cannot answer truthfully."""
        if not self._processes:
            return {}
        shallow, top, log = (self._answer(process) for process in self._processes)
        if shallow is None or top is None or shallow.strip() != "false" or log is None:
            return {}
        dates: dict[str, str] = {}
        date = ""
        for line in log.splitlines():
            if line.startswith("\0"):
                date = line[1:]
            elif line and date:
                dates.setdefault(line, date)  # newest commit first: keep the first date seen
        return dates

    @staticmethod
    def _answer(process: subprocess.Popen[str] | None) -> str | None:
        if process is None:
            return None
        try:
            stdout, _ = process.communicate(timeout=GIT_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            return None
        return stdout if process.returncode == 0 else None

    def __enter__(self) -> CommitDates:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for process in self._processes:
            if process is not None and process.returncode is None:  # not read: stopped, its pipes closed
                process.kill()
                process.communicate()
