"""`build.py build` skips a build when its inputs and its output are exactly as the last successful build left them."""

from __future__ import annotations

from pathlib import Path

from site_testing import PROJECT_ROOT, copy_sample, run_cli, snapshot_folder
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
