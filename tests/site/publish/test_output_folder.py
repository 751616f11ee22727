"""`--out` replaces only a folder that is missing, empty or an earlier build; everything else is refused untouched.

Each refusal runs the real `build.py` of a scratch copy of the project, with a
decoy folder of somebody's files beside it, and checks that not one byte of
either changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from site_testing import PROJECT_ROOT, SAMPLE_CONTENT, make_scratch_project, run_build_py
from sitegen.publish.output_folder import BUILD_MARKER, OutputFolderRefused, adopt_folder, remove_stale_folders, write_marker
from sitegen.publish.write import write_site

REFUSALS = [
    # (--out as typed, the message after "build.py COMMAND: ")
    (".", "will not build into '.': it is the project root"),
    ("..", "will not build into '..': it contains the project root"),
    ("content", "will not build into 'content': it is the content folder"),
    ("content/site", "will not build into 'content/site': it is inside the content folder"),
    ("pysrc", "will not build into 'pysrc': it is pysrc/, the build's source code"),
    ("pysrc/sitegen/out", "will not build into 'pysrc/sitegen/out': it is inside pysrc/, the build's source code"),
    ("site_templates", "will not build into 'site_templates': it is site_templates/, the site's templates"),
    ("client", "will not build into 'client': it is client/, the site's scripts"),
    (".git", "will not build into '.git': it is .git/, the repository"),
    (".git/objects/dist", "will not build into '.git/objects/dist': it is inside .git/, the repository"),
    (
        "../thesis",
        "will not build into '../thesis': it is not empty and not an earlier build (no .rollouts-build file); "
        "empty it or choose another folder",
    ),
    ("notes.txt", "will not build into 'notes.txt': it is a file, not a folder"),
    ("notes.txt/dist", "cannot create 'notes.txt/dist': notes.txt is a file"),
    ("/proc/dist", "cannot create '/proc/dist': /proc is not writable"),
]


@pytest.fixture
def scratch(tmp_path) -> Path:
    """A scratch copy of the project (code, templates, sample content, a .git) with a decoy folder beside it."""
    project = make_scratch_project(tmp_path / "project")
    (project / ".git" / "objects").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (project / "notes.txt").write_text("my notes\n", encoding="utf-8")
    decoy = tmp_path / "thesis"
    (decoy / "photos").mkdir(parents=True)
    (decoy / "thesis.tex").write_text("\\chapter{Introduction}\n", encoding="utf-8")
    (decoy / "photos" / "cat.jpg").write_bytes(bytes(range(256)))
    return project


def hash_tree(folder: Path) -> str:
    """Return one digest of every path, file, link and byte under folder (links are not followed).

    Python's own bytecode caches (`__pycache__`, written when the scratch build.py imports pysrc/
    unless PYTHONDONTWRITEBYTECODE is set) are left out: the interpreter writes them, not the build.
    """
    digest = hashlib.sha256()
    for directory, folders, names in os.walk(folder):
        folders[:] = sorted(name for name in folders if name != "__pycache__")
        for name in sorted(folders + names):
            path = Path(directory, name)
            digest.update(str(path.relative_to(folder)).encode() + b"\0")
            if path.is_symlink():
                digest.update(os.readlink(path).encode())
            elif path.is_file():
                digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.mark.parametrize("command", ["build", "serve"])
@pytest.mark.parametrize(("out", "message"), REFUSALS, ids=[out for out, _ in REFUSALS])
def test_a_folder_that_is_not_the_builds_own_is_refused_and_nothing_is_touched(scratch, command, out, message):
    before = hash_tree(scratch.parent)
    extra = ["--port", "0"] if command == "serve" else []
    result = run_build_py(scratch, command, "--out", out, *extra, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"build.py {command}: {message}\n")
    assert hash_tree(scratch.parent) == before


def test_a_symlink_to_the_project_is_the_project(scratch):
    (scratch.parent / "shortcut").symlink_to(scratch)
    before = hash_tree(scratch.parent)
    result = run_build_py(scratch, "build", "--out", "../shortcut")
    assert (result.returncode, result.stderr) == (
        2,
        "build.py build: will not build into '../shortcut': it is the project root\n",
    )
    assert hash_tree(scratch.parent) == before


def test_a_content_folder_given_elsewhere_is_guarded_too(scratch):
    drafts = scratch.parent / "drafts"
    shutil.copytree(SAMPLE_CONTENT, drafts)
    before = hash_tree(scratch.parent)
    result = run_build_py(scratch, "build", "--content", "../drafts", "--out", "../drafts/figures")
    assert (result.returncode, result.stderr) == (
        2,
        "build.py build: will not build into '../drafts/figures': it is inside the content folder\n",
    )
    assert hash_tree(scratch.parent) == before


def read_listed_files(folder: Path) -> list[str]:
    """Return the files the folder's marker lists, after checking it is this tool's marker of the current format and
    that it gives each file the SHA-256 of its bytes."""
    marker = json.loads((folder / BUILD_MARKER).read_text(encoding="utf-8"))
    assert (marker["tool"], marker["format"], sorted(marker)) == ("rollouts", 3, ["files", "format", "sha256", "tool"])
    assert marker["sha256"] == {name: hashlib.sha256((folder / name).read_bytes()).hexdigest() for name in marker["files"]}
    return marker["files"]


def test_an_empty_or_missing_folder_is_built_and_marked_with_the_files_it_holds(scratch):
    (scratch / "empty").mkdir()
    for out in ("empty", "../site/nested"):
        result = run_build_py(scratch, "build", "--out", out)
        assert (result.returncode, result.stderr) == (0, "")
        assert (scratch / out / "index.html").is_file()
        built = sorted(p.relative_to(scratch / out).as_posix() for p in (scratch / out).rglob("*") if p.is_file())
        assert read_listed_files(scratch / out) == [name for name in built if name != BUILD_MARKER]


def test_a_marked_build_is_replaced_and_the_files_it_listed_but_this_build_does_not_write_go(scratch):
    assert run_build_py(scratch, "build").returncode == 0
    dist = scratch / "dist"
    (dist / "stale.html").write_text("from an older build", encoding="utf-8")
    (dist / "old" / "assets").mkdir(parents=True)
    (dist / "old" / "assets" / "gone.css").write_text("from an older build", encoding="utf-8")
    # as the older build that wrote them listed them
    adopt_folder(dist)
    result = run_build_py(scratch, "build")
    assert (result.returncode, result.stderr) == (0, "")
    assert not (dist / "stale.html").exists() and not (dist / "old").exists()
    assert "stale.html" not in read_listed_files(dist)


def make_deploy_folder(parent: Path) -> Path:
    """A folder of somebody's files, as a deploy folder may hold beside the site: seven files and an empty folder."""
    www = parent / "www"
    (www / "photos").mkdir(parents=True)
    (www / "uploads").mkdir()
    (www / "CNAME").write_text("example.org\n", encoding="utf-8")
    (www / "notes.md").write_text("my notes\n", encoding="utf-8")
    for index in range(5):
        (www / "photos" / f"cat-{index}.jpg").write_bytes(bytes(range(index, 256)))
    return www


UNKNOWN_IN_WWW = (
    "'CNAME', 'notes.md', 'photos/cat-0.jpg', 'photos/cat-1.jpg', 'photos/cat-2.jpg' and 3 more; "
    "move them or choose another folder"
)


@pytest.mark.parametrize("command", ["build", "serve"])
def test_a_build_copied_beside_other_files_is_refused_naming_them_and_nothing_is_touched(scratch, command):
    # `cp -a dist/. www/`: an ordinary deploy; the copied marker must not let a build delete the other files.
    assert run_build_py(scratch, "build").returncode == 0
    www = make_deploy_folder(scratch.parent)
    shutil.copytree(scratch / "dist", www, symlinks=True, dirs_exist_ok=True)
    (www / "photos" / "index.html").write_text("my photo page\n", encoding="utf-8")  # a name a build writes, elsewhere
    before = hash_tree(scratch.parent)
    extra = ["--port", "0"] if command == "serve" else []
    result = run_build_py(scratch, command, "--out", "../www", *extra, timeout=60)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"build.py {command}: will not build into '../www': it holds files no earlier build wrote there: "
        "'CNAME', 'notes.md', 'photos/cat-0.jpg', 'photos/cat-1.jpg', 'photos/cat-2.jpg' and 4 more; "
        "move them or choose another folder\n"
    )
    assert hash_tree(scratch.parent) == before


@pytest.mark.parametrize(
    "marker",
    [
        b'{"tool": "rollouts", "format": 1}\n',  # as the build wrote it before markers listed files
        b'{"tool": "rollouts", "format": 2, "files": []}\n',
        b'{"tool":"rollouts","format":2,"files":["index.html"]}\n',
        # Written by hand, listing exactly the files there: a name alone vouches for nothing (issue 60: notes.md went).
        write_marker(["CNAME", "notes.md", *(f"photos/cat-{index}.jpg" for index in range(5))]),
    ],
    ids=["old-format", "lists-nothing", "lists-another-file", "lists-every-file"],
)
def test_a_forged_marker_beside_other_files_is_refused_naming_them(scratch, marker):
    www = make_deploy_folder(scratch.parent)
    (www / BUILD_MARKER).write_bytes(marker)
    before = hash_tree(scratch.parent)
    result = run_build_py(scratch, "build", "--out", "../www")
    assert (result.returncode, result.stderr) == (
        2,
        f"build.py build: will not build into '../www': it holds files no earlier build wrote there: {UNKNOWN_IN_WWW}\n",
    )
    assert hash_tree(scratch.parent) == before


MARKER_REFUSAL = "build.py build: will not build into '../www': its .rollouts-build is {}, not a build's marker; empty it or choose another folder\n"


def make_marker_a_link(www: Path, scratch: Path) -> str:
    assert run_build_py(scratch, "build").returncode == 0
    (www / BUILD_MARKER).symlink_to(scratch / "dist" / BUILD_MARKER)  # a real build's marker, elsewhere
    return "a symbolic link"


def make_marker_a_link_to_dev_zero(www: Path, scratch: Path) -> str:
    (www / BUILD_MARKER).symlink_to("/dev/zero")
    return "a symbolic link"


def make_marker_a_fifo(www: Path, scratch: Path) -> str:
    os.mkfifo(www / BUILD_MARKER)  # reading it would wait for a writer forever
    return "a named pipe (FIFO)"


def make_marker_huge(www: Path, scratch: Path) -> str:
    with open(www / BUILD_MARKER, "wb") as marker:
        marker.write(write_marker(["CNAME", "notes.md"]))
        marker.truncate(17 * 2**20)  # sparse: 17 MiB on paper
    return "larger than a marker can be (16 MiB)"


def make_marker_a_folder(www: Path, scratch: Path) -> str:
    (www / BUILD_MARKER).mkdir()
    return "a folder"


def make_marker_not_json(www: Path, scratch: Path) -> str:
    (www / BUILD_MARKER).write_bytes(b"\xff\xfe rollouts")
    return "not a marker this tool wrote"


def make_marker_another_tools(www: Path, scratch: Path) -> str:
    (www / BUILD_MARKER).write_bytes(b'{"tool": "another-tool", "format": 2, "files": ["CNAME"]}')
    return "not a marker this tool wrote"


@pytest.mark.parametrize(
    "make_marker",
    [
        make_marker_a_link,
        make_marker_a_link_to_dev_zero,
        make_marker_a_fifo,
        make_marker_huge,
        make_marker_a_folder,
        make_marker_not_json,
        make_marker_another_tools,
    ],
)
def test_a_marker_that_is_not_a_plain_marker_file_is_refused_and_never_read(scratch, make_marker):
    www = make_deploy_folder(scratch.parent)
    kind = make_marker(www, scratch)
    before = hash_tree(scratch.parent)
    result = run_build_py(scratch, "build", "--out", "../www", timeout=60)
    assert (result.returncode, result.stderr) == (2, MARKER_REFUSAL.format(kind))
    assert hash_tree(scratch.parent) == before


def test_a_build_made_before_the_marker_is_adopted_once_from_the_manifest(scratch):
    assert run_build_py(scratch, "build").returncode == 0
    dist = scratch / "dist"
    (dist / BUILD_MARKER).unlink()  # as a build before the marker left it
    manifest = json.loads((scratch / ".cache/build-manifest.json").read_text(encoding="utf-8"))
    record = manifest[str(dist)]
    record["output"] = [entry for entry in record["output"] if entry[0] != BUILD_MARKER]
    record["fingerprint"] = "from an older version of the tool"
    (scratch / ".cache/build-manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    result = run_build_py(scratch, "build")
    assert (result.returncode, result.stderr) == (0, "")
    assert "index.html" in read_listed_files(dist)


def test_a_build_whose_marker_lists_no_files_is_adopted_once_from_the_manifest(scratch):
    assert run_build_py(scratch, "build").returncode == 0
    dist = scratch / "dist"
    (dist / BUILD_MARKER).write_bytes(b'{"tool": "rollouts", "format": 1}\n')  # as builds before the list wrote it
    manifest = json.loads((scratch / ".cache/build-manifest.json").read_text(encoding="utf-8"))
    manifest[str(dist)]["fingerprint"] = "from an older version of the tool"
    (scratch / ".cache/build-manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    result = run_build_py(scratch, "build")
    assert (result.returncode, result.stderr) == (0, "")
    assert "index.html" in read_listed_files(dist)


def test_a_marker_less_folder_with_a_file_the_manifest_does_not_list_is_refused(scratch):
    assert run_build_py(scratch, "build").returncode == 0
    dist = scratch / "dist"
    (dist / BUILD_MARKER).unlink()
    (dist / "my-notes.md").write_text("not the build's", encoding="utf-8")
    before = hash_tree(scratch.parent)
    result = run_build_py(scratch, "build")
    assert result.returncode == 2
    assert result.stderr == (
        "build.py build: will not build into 'dist': it is not empty and not an earlier build "
        "(no .rollouts-build file); empty it or choose another folder\n"
    )
    assert hash_tree(scratch.parent) == before


def make_stale_folder(parent: Path, name: str, marker: bytes | None) -> Path:
    folder = parent / name
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_text("half a site", encoding="utf-8")
    if marker is not None:
        (folder / BUILD_MARKER).write_bytes(marker)
    return folder


def finished_process_id() -> int:
    """Return the id of a process that has ended."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_only_marked_leftovers_of_ended_builds_are_removed(tmp_path):
    dead = finished_process_id()
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead_staging = make_stale_folder(tmp_path, f".dist-new-{dead}-abc", write_marker(pid=dead))
        # killed after its marker lost the id: the id in the name decides
        dead_finished = make_stale_folder(tmp_path, f".dist-new-{dead}-def", write_marker())
        dead_retired = make_stale_folder(tmp_path, f".dist-old-{dead}-ghi", write_marker())
        running = make_stale_folder(tmp_path, f".dist-new-{alive.pid}-jkl", write_marker(pid=alive.pid))
        unmarked = make_stale_folder(tmp_path, f".dist-new-{dead}-mno", None)
        foreign = make_stale_folder(tmp_path, f".dist-new-{dead}-pqr", b'{"tool": "another-tool", "pid": 1}')
        other_output = make_stale_folder(tmp_path, f".site-new-{dead}-stu", write_marker(pid=dead))

        removed = remove_stale_folders(tmp_path / "dist")

        assert sorted(removed) == sorted([dead_staging, dead_finished, dead_retired])
        assert all(not folder.exists() for folder in removed)
        assert all(folder.is_dir() for folder in (running, unmarked, foreign, other_output))
    finally:
        alive.kill()
        alive.wait()


def test_a_build_clears_a_killed_builds_staging_folder_but_not_a_running_ones(scratch):
    dead = finished_process_id()
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        killed = make_stale_folder(scratch, f".dist-new-{dead}-abcdef", write_marker(pid=dead))
        running = make_stale_folder(scratch, f".dist-new-{alive.pid}-ghijkl", write_marker(pid=alive.pid))
        result = run_build_py(scratch, "build")
        assert (result.returncode, result.stderr) == (0, "")
        assert not killed.exists()
        assert (running / "index.html").read_text(encoding="utf-8") == "half a site"
    finally:
        alive.kill()
        alive.wait()


def test_staging_folders_are_ignored_by_git():
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", ".dist-new-123-abcdef/index.html", ".dist-old-9-x/a"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    assert ignored.stdout.split() == [".dist-new-123-abcdef/index.html", ".dist-old-9-x/a"]


def test_a_folder_remade_by_hand_where_a_build_was_is_refused_and_nothing_is_touched(scratch):
    # build --out pub; rm -rf pub; mkdir pub; echo … > pub/index.html; build --out pub: the manifest vouches
    # for the name index.html, not for these bytes.
    assert run_build_py(scratch, "build", "--out", "../pub").returncode == 0
    pub = scratch.parent / "pub"
    shutil.rmtree(pub)
    pub.mkdir()
    (pub / "index.html").write_text("<p>my own page</p>\n", encoding="utf-8")
    before = hash_tree(scratch.parent)
    result = run_build_py(scratch, "build", "--out", "../pub")
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        "build.py build: will not build into '../pub': it holds files that differ from what the last build wrote "
        "there: 'index.html'; move them or choose another folder\n",
    )
    assert hash_tree(scratch.parent) == before


def test_the_output_shares_no_file_with_the_runtime_it_was_built_from(scratch):
    # A hard link would make an edit of dist/pyodide/... an edit of node_modules/pyodide/..., the build's own runtime.
    assert run_build_py(scratch, "build").returncode == 0
    runtime = PROJECT_ROOT / "node_modules" / "pyodide"
    runtime_files = {(status.st_dev, status.st_ino) for status in (path.stat() for path in runtime.iterdir())}
    output = [path for path in (scratch / "dist").rglob("*") if path.is_file()]
    assert any(path.name == "pyodide.asm.wasm" for path in output)
    assert [path for path in output if (path.stat().st_dev, path.stat().st_ino) in runtime_files] == []


def can_mount_in_a_user_namespace() -> bool:
    """Say whether `unshare -rm` lets this user mount a tmpfs (a mount point made without root)."""
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "mount", "-t", "tmpfs", "tmpfs", "/tmp"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not can_mount_in_a_user_namespace(), reason="needs `unshare -rm` (user namespaces) to mount a tmpfs")
def test_building_into_a_mount_point_is_refused_in_one_line(scratch):
    # An empty mount point passes every other check; renaming it (the swap) fails with EBUSY.
    (scratch.parent / "usb").mkdir()
    script = 'mount -t tmpfs tmpfs ../usb && exec "$0" build.py build --out ../usb'
    result = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, sys.executable], cwd=scratch, capture_output=True, text=True, timeout=120
    )
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        "build.py build: will not build into '../usb': it is a mount point, which a build cannot replace; "
        "build into a folder inside it\n",
    )


def test_files_written_into_the_output_while_the_build_writes_are_kept_and_the_build_stops(tmp_path):
    out = tmp_path / "pub"
    write_site({"index.html": b"the previous build\n"}, out)
    seen = threading.Event()

    def write_a_note_once_the_build_writes() -> None:
        # Waits for the staging folder: from then on the build writes its files beside the output, then swaps.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(tmp_path.glob(".pub-new-*")):
            time.sleep(0.0005)
        (out / "notes.txt").write_text("written during the build\n", encoding="utf-8")
        seen.set()

    writer = threading.Thread(target=write_a_note_once_the_build_writes)
    writer.start()
    # 48 MiB to write: the note lands long before the last of it.
    files: dict[str, bytes | Path] = {f"large-{index}.bin": bytes(4 * 2**20) for index in range(12)}
    with pytest.raises(OutputFolderRefused) as refusal:
        write_site({"index.html": b"this build\n", **files}, out)
    writer.join()
    assert seen.is_set()
    assert str(refusal.value) == (
        f"will not replace '{out}': 'notes.txt' changed in it while the build ran; it was left as it was, build again"
    )
    assert sorted(path.name for path in out.iterdir()) == [BUILD_MARKER, "index.html", "notes.txt"]
    assert (out / "index.html").read_bytes() == b"the previous build\n"
    assert [path.name for path in tmp_path.iterdir()] == ["pub"]  # no staging folder left
