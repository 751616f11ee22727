"""The standard library's parts and directory (sitegen/assets/stdlib_parts.py): every file once, where the directory says."""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import subprocess
import zipfile
import zlib
from pathlib import Path

from site_testing import PROJECT_ROOT
from sitegen.assets.lab_stdlib import read_lab_stdlib_list
from sitegen.assets.site_assets import hash_name
from sitegen.assets.stdlib_parts import START_STDLIB_LIST, _cut_cached, cut_stdlib, read_stdlib_parts
from sitegen.node import find_node

NODE = find_node() or "node"  # the Node the build runs (sitegen/node.py)

FULL_STDLIB = PROJECT_ROOT / "node_modules" / "pyodide" / "python_stdlib.zip"


def read_directory() -> tuple[dict, dict[str, bytes]]:
    stdlib = read_stdlib_parts(FULL_STDLIB)
    return json.loads(stdlib.directory), dict(stdlib.parts)


def test_every_file_of_the_zip_is_in_exactly_one_part_at_the_offset_the_directory_gives():
    directory, parts = read_directory()
    seen: list[str] = []
    with zipfile.ZipFile(FULL_STDLIB) as full:
        for part in directory["parts"]:
            data = parts[part["name"]]
            assert part["size"] == len(data)
            assert part["sha256"] == hashlib.sha256(data).hexdigest()
            assert part["name"] == hash_name(part["name"].split(".")[0] + ".zip", data)
            for name, offset, compressed, size, method in part["files"]:
                raw = data[offset : offset + compressed]
                content = zlib.decompress(raw, -15) if method == zipfile.ZIP_DEFLATED else raw
                assert len(content) == size
                assert content == full.read(name), name
                seen.append(name)
            with zipfile.ZipFile(io.BytesIO(data)) as archive:  # each part is a zip of its own, too
                assert archive.testzip() is None
        assert sorted(seen) == sorted(info.filename for info in full.infolist() if not info.is_dir())
    assert len(seen) == len(set(seen))


def test_the_boot_part_is_the_start_list_which_holds_all_the_lab_imports_so_there_is_no_core_part():
    directory, _parts = read_directory()
    boot, *rest = directory["parts"]
    start = read_lab_stdlib_list(START_STDLIB_LIST)
    assert boot["name"].startswith("python_stdlib-00-boot.")
    assert [file[0] for file in boot["files"]] == sorted(start)
    # Every start imports the core before the cells' kernel (SNAPSHOT_IMPORTS): the lab imports nothing beyond it.
    assert set(read_lab_stdlib_list()) <= set(start)
    assert not [part["name"] for part in rest if "-core." in part["name"]]
    # The rest by top-level name, in order: a package is never split between two parts.
    tops = [[file[0].split("/")[0] for file in part["files"]] for part in rest]
    assert [top for part in tops for top in part] == sorted(top for part in tops for top in part)
    assert all(a[-1] != b[0] for a, b in itertools.pairwise(tops))
    assert 30 <= len(directory["parts"]) <= 40


def test_what_the_lab_imports_beyond_a_start_gets_a_core_part_second():
    start = read_lab_stdlib_list(START_STDLIB_LIST)
    cut = cut_stdlib(FULL_STDLIB, start, (*read_lab_stdlib_list(), "statistics.py"))
    boot, core, *rest = json.loads(cut.directory)["parts"]
    assert (boot["name"].split(".")[0], core["name"].split(".")[0]) == ("python_stdlib-00-boot", "python_stdlib-01-core")
    assert [file[0] for file in core["files"]] == ["statistics.py"]
    assert "statistics.py" not in [file[0] for part in rest for file in part["files"]]


def test_the_cut_is_deterministic_byte_for_byte():
    start = read_lab_stdlib_list(START_STDLIB_LIST)
    first = cut_stdlib(FULL_STDLIB, start, read_lab_stdlib_list())
    second = cut_stdlib(FULL_STDLIB, start, read_lab_stdlib_list())
    assert (first.directory_name, first.directory, dict(first.parts)) == (
        second.directory_name,
        second.directory,
        dict(second.parts),
    )


def test_the_page_side_inflate_reads_every_part_as_zlib_does(tmp_path: Path):
    """client/python/inflate.mjs, the synchronous inflate the pages' parts go through."""
    directory, parts = read_directory()
    for name, data in parts.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "directory.json").write_text(json.dumps(directory), encoding="utf-8")
    script = """
import fs from "node:fs";
import zlib from "node:zlib";
import { inflateRaw } from "./client/python/inflate.mjs";
const folder = process.argv[1];
const { parts } = JSON.parse(fs.readFileSync(`${folder}/directory.json`, "utf8"));
let files = 0;
for (const part of parts) {
  const data = new Uint8Array(fs.readFileSync(`${folder}/${part.name}`));
  for (const [name, offset, compressed, size, method] of part.files) {
    if (method !== 8) continue;
    const raw = data.subarray(offset, offset + compressed);
    if (!Buffer.from(inflateRaw(raw, size)).equals(zlib.inflateRawSync(raw))) throw new Error(name);
    files++;
  }
}
let damaged = "";
try { inflateRaw(new Uint8Array([0xff, 0xff]), 10); } catch (error) { damaged = error.message; }
console.log(JSON.stringify({ files, damaged }));
"""
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", script, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout)
    assert report["files"] > 500
    assert report["damaged"].startswith("damaged deflate data: ")


def _read_through_cache(full_zip: Path, cache_dir: Path) -> tuple[str, bytes, dict[str, bytes]]:
    _cut_cached.cache_clear()  # as a new build process would: only the tool's cache on disk remembers
    stdlib = read_stdlib_parts(full_zip, cache_dir)
    return stdlib.directory_name, stdlib.directory, dict(stdlib.parts)


def test_the_tools_cache_gives_the_same_parts_and_never_a_damaged_or_stale_entry(tmp_path: Path):
    fresh = _read_through_cache(FULL_STDLIB, tmp_path / "none")  # cut now, and stored
    [entry] = (tmp_path / "none").iterdir()
    assert _read_through_cache(FULL_STDLIB, tmp_path / "none") == fresh  # read back from the entry

    damaged = bytearray(entry.read_bytes())
    damaged[len(damaged) // 2] ^= 1
    entry.write_bytes(bytes(damaged))
    assert _read_through_cache(FULL_STDLIB, tmp_path / "none") == fresh  # cut again, not the flipped byte
    assert entry.read_bytes() != bytes(damaged)  # and the entry repaired

    # Another zip (one member more): another entry, its own parts.
    changed = tmp_path / "python_stdlib.zip"
    changed.write_bytes(FULL_STDLIB.read_bytes())
    with zipfile.ZipFile(changed, "a") as archive:
        archive.writestr("zz_added.py", "ADDED = 1\n")
    other = _read_through_cache(changed, tmp_path / "none")
    assert other[0] != fresh[0] and len(list((tmp_path / "none").iterdir())) == 2
    assert any("zz_added.py" in zipfile.ZipFile(io.BytesIO(part)).namelist() for part in other[2].values())
