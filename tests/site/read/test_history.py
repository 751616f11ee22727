"""git asked for the content's last-updated dates at once, early (sitegen/read/history.py): answers, or none, never a leak."""

from __future__ import annotations

import subprocess
from pathlib import Path

from sitegen.read.history import CommitDates


def commit(folder: Path, name: str, date: str) -> None:
    (folder / name).write_text(f"{name} as of {date}\n", encoding="utf-8")
    environment = {"GIT_COMMITTER_DATE": f"{date}T12:00:00Z", "GIT_AUTHOR_DATE": f"{date}T12:00:00Z", "PATH": "/usr/bin:/bin"}
    for command in (["add", name], ["-c", "user.name=A", "-c", "user.email=a@example.org", "commit", "-qm", name]):
        subprocess.run(["git", "-C", str(folder), *command], check=True, env=environment)


def test_each_file_gets_the_date_of_its_last_commit(tmp_path: Path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    commit(tmp_path, "01-rollouts.md", "2025-01-02")
    commit(tmp_path, "glossary.md", "2025-03-04")
    commit(tmp_path, "01-rollouts.md", "2025-05-06")
    with CommitDates(tmp_path) as dates:
        assert dates.read() == {"01-rollouts.md": "2025-05-06", "glossary.md": "2025-03-04"}


def test_a_folder_outside_any_repository_has_no_dates(tmp_path: Path):
    with CommitDates(tmp_path) as dates:
        assert dates.read() == {}


def test_leaving_without_reading_stops_git_and_closes_its_pipes(tmp_path: Path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    commit(tmp_path, "01-rollouts.md", "2025-01-02")
    with CommitDates(tmp_path) as dates:
        processes = list(dates._processes)
    assert len(processes) == 3
    assert all(p is not None and p.returncode is not None and p.stdout is not None and p.stdout.closed for p in processes)
