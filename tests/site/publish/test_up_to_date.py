"""`build.py build` skips a build when its inputs and its output are exactly as the last successful build left them."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from site_testing import (
    PROJECT_ROOT,
    copy_sample,
    give_own_node_modules,
    make_scratch_project,
    run_build_py,
    run_cli,
    share_tool_cache,
    snapshot_folder,
)
from sitegen.publish.up_to_date import fingerprint_inputs, read_manifest

WARNING = "content/glossary.md:30: warning: glossary term 'zebra' is not used in any chapter\n"
BUILD = ["build", "--content", "content", "--out", "dist"]


def prepare(tmp_path: Path) -> Path:
    """Copy the sample content with one unused glossary term (so every build prints a warning)."""
    content = copy_sample(tmp_path)
    glossary = content / "glossary.md"
    glossary.write_text(glossary.read_text(encoding="utf-8") + "\nZebra\n: Not a term the chapters use.\n", encoding="utf-8")
    return content


def modification_times(folder: Path) -> dict[str, int]:
    return {p.relative_to(folder).as_posix(): p.stat().st_mtime_ns for p in sorted(folder.rglob("*")) if p.is_file()}


def test_an_unchanged_build_is_skipped_and_repeats_its_warnings(tmp_path, capsys):
    prepare(tmp_path)
    first = run_cli(BUILD, tmp_path, capsys)
    assert (first.status, first.stderr) == (0, WARNING)
    record = read_manifest(PROJECT_ROOT)[str((tmp_path / "dist").resolve())]
    assert record["warnings"] == [WARNING.rstrip("\n")]
    assert record["fingerprint"] == fingerprint_inputs(
        PROJECT_ROOT, (tmp_path / "content").resolve(), (tmp_path / "dist").resolve(), ("content", False)
    )
    times = modification_times(tmp_path / "dist")
    # Each file's hash is taken from what the build wrote, in memory: it must be the file's on disk.
    written = {
        p.relative_to(tmp_path / "dist").as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((tmp_path / "dist").rglob("*"))
        if p.is_file()
    }
    assert {entry[0]: entry[4] for entry in record["output"]} == written

    again = run_cli(BUILD, tmp_path, capsys)

    assert (again.status, again.stderr) == (0, WARNING)
    assert modification_times(tmp_path / "dist") == times


def test_a_changed_source_a_touched_output_or_other_options_build_again(tmp_path, capsys):
    content = prepare(tmp_path)
    dist = tmp_path / "dist"
    run_cli(BUILD, tmp_path, capsys)
    built = snapshot_folder(dist)

    chapter = content / "01-rollout.md"
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    assert run_cli(BUILD, tmp_path, capsys).status == 0
    assert b"One more sentence." in (dist / "01-rollout.html").read_bytes()
    rebuilt = snapshot_folder(dist)

    (dist / "01-rollout.html").write_text("edited by hand\n", encoding="utf-8")
    (dist / "glossary.html").unlink()
    assert run_cli(BUILD, tmp_path, capsys).status == 0
    assert snapshot_folder(dist) == rebuilt != built

    strict = run_cli([*BUILD, "--strict"], tmp_path, capsys)
    assert (strict.status, strict.stderr) == (1, WARNING)
    # The content folder as typed names the files in the messages, so it is part of the fingerprint.
    relabelled = run_cli(["build", "--content", "./content/", "--out", "dist"], tmp_path, capsys)
    assert (relabelled.status, relabelled.stderr) == (0, WARNING.replace("content/", "./content/", 1))


def link_node_modules_but(project: Path, package: str) -> Path:
    """Give a scratch project a node_modules of links to the real packages, with a copy of one; return the copy."""
    (project / "node_modules").unlink()
    modules = project / "node_modules"
    modules.mkdir()
    for entry in (PROJECT_ROOT / "node_modules").iterdir():
        if entry.name != package:
            (modules / entry.name).symlink_to(entry)
    shutil.copytree(PROJECT_ROOT / "node_modules" / package, modules / package)
    shutil.copy(PROJECT_ROOT / "package-lock.json", project)
    return modules / package


def test_an_output_edited_to_the_same_size_with_its_modification_time_put_back_is_built_again(tmp_path, capsys):
    """Issue 60: the record compared sizes and modification times only, so this edit was kept as the build's."""
    prepare(tmp_path)
    page = tmp_path / "dist" / "01-rollout.html"
    assert run_cli(BUILD, tmp_path, capsys).status == 0
    built, status = page.read_bytes(), page.stat()
    page.write_bytes(built.replace(b"<title>", b"<title>X", 1).replace(b"</title>", b"</title", 1)[: len(built)])
    os.utime(page, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert (page.stat().st_size, page.stat().st_mtime_ns, page.read_bytes() == built) == (len(built), status.st_mtime_ns, False)
    assert run_cli(BUILD, tmp_path, capsys).status == 0
    assert page.read_bytes() == built


def test_what_any_build_keeps_in_the_tools_cache_is_no_change_of_the_inputs(tmp_path):
    # No package-lock.json in a scratch project: every folder of node_modules counts, but not the tool's cache,
    # which another build sharing node_modules (another worktree's, with other templates) may write at any time.
    project = make_scratch_project(tmp_path / "project")
    tool_cache = give_own_node_modules(project)
    share_tool_cache(tool_cache, leaving_out="jinja")  # what any earlier build kept, not made again here
    assert run_build_py(project, "build").returncode == 0
    (tool_cache / "jinja" / "__jinja2_another_worktrees_template.cache").write_bytes(b"kept by another build")
    result = run_build_py(project, "build")
    assert result.stdout.startswith("Nothing changed since the last build: dist/ is up to date"), result.stdout


def test_a_changed_npm_package_the_build_copies_is_built_again(tmp_path):
    project = make_scratch_project(tmp_path / "project")
    minisearch = link_node_modules_but(project, "minisearch") / "dist" / "es" / "index.js"
    assert run_build_py(project, "build").returncode == 0
    (shipped,) = (project / "dist" / "assets").glob("minisearch.*.js")
    assert b"changedByTheTest" not in shipped.read_bytes()

    minisearch.write_text(minisearch.read_text(encoding="utf-8") + "\nexport const changedByTheTest = 42;\n", encoding="utf-8")
    result = run_build_py(project, "build")

    assert (result.returncode, result.stderr) == (0, "")
    (shipped,) = (project / "dist" / "assets").glob("minisearch.*.js")
    assert b"changedByTheTest" in shipped.read_bytes()


def test_a_huge_file_a_fifo_and_a_device_at_the_project_root_are_never_read(tmp_path):
    project = make_scratch_project(tmp_path / "project")
    with open(project / "dataset.bin", "wb") as huge:
        huge.truncate(4 * 2**30)  # sparse: 4 GiB on paper, read whole it would not fit in memory
    os.mkfifo(project / "pipe")
    (project / "zero").symlink_to("/dev/zero")

    first = run_build_py(project, "build")
    built = snapshot_folder(project / "dist")
    again = run_build_py(project, "build")

    assert (first.returncode, first.stderr, again.returncode, again.stderr) == (0, "", 0, "")
    assert snapshot_folder(project / "dist") == built
    recorded = read_manifest(project)[str((project / "dist").resolve())]
    assert recorded["fingerprint"] == fingerprint_inputs(
        project, project / "content", (project / "dist").resolve(), (None, False)
    )


def commit_all(folder: Path, date: str) -> None:
    """Commit everything in folder (a repository) with this committer date, amending the last commit if there is one."""
    environment = {**os.environ, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    identity = ["-c", "user.name=Test", "-c", "user.email=test@example.org", "-c", "commit.gpgsign=false"]
    amend = ["--amend"] if (folder / ".git" / "refs" / "heads").is_dir() and any((folder / ".git/refs/heads").iterdir()) else []
    subprocess.run(["git", "-C", str(folder), "add", "-A"], check=True, env=environment)
    subprocess.run(["git", "-C", str(folder), *identity, "commit", "-q", *amend, "-m", "content"], check=True, env=environment)


def read_last_updated_date(page: Path) -> str:
    match = re.search(r'<p class="last-updated">Last updated <time datetime="([^"]+)"', page.read_text(encoding="utf-8"))
    return match.group(1) if match else ""


def test_a_commit_or_another_source_date_builds_again_with_the_new_last_updated_date(tmp_path, capsys, monkeypatch):
    prepare(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    commit_all(tmp_path, "2024-03-01T12:00:00+00:00")
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    page = tmp_path / "dist" / "01-rollout.html"
    assert run_cli(BUILD, tmp_path, capsys).status == 0
    assert read_last_updated_date(page) == "2024-03-01"

    commit_all(tmp_path, "2025-06-02T12:00:00+00:00")  # the same files, another commit
    assert run_cli(BUILD, tmp_path, capsys).status == 0
    assert read_last_updated_date(page) == "2025-06-02"

    shutil.rmtree(tmp_path / ".git")  # no git: the date comes from SOURCE_DATE_EPOCH
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert run_cli(BUILD, tmp_path, capsys).status == 0
    assert read_last_updated_date(page) == "2023-11-14"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1600000000")
    assert run_cli(BUILD, tmp_path, capsys).status == 0
    assert read_last_updated_date(page) == "2020-09-13"
