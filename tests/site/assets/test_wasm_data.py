"""The wasm's data segments taken out of the snapshot's heap (assets/wasm_data.py) and put back in the page
(client/python/wasm-data.mjs): both read the same image, or refuse the same module with the same words."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from site_testing import PROJECT_ROOT
from sitegen.assets.wasm_data import WasmDataError, read_data_image, xor_data_image
from sitegen.node import find_node

NODE = find_node() or "node"  # the Node the build runs (sitegen/node.py)
PYODIDE_WASM = PROJECT_ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm"


def leb(value: int) -> bytes:
    """LEB128 of a non-negative integer."""
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def active(address: int, data: bytes, memory: int | None = None) -> bytes:
    """An active segment at `address` (kind 0; kind 2 with an explicit `memory`)."""
    head = b"\x00" if memory is None else b"\x02" + leb(memory)
    return head + b"\x41" + leb(address) + b"\x0b" + leb(len(data)) + data


def passive(data: bytes) -> bytes:
    return b"\x01" + leb(len(data)) + data


def make_wasm(*segments: bytes) -> bytes:
    """A module with a custom section (skipped) and a data section of `segments`."""
    custom = b"\x04name" + b"xyz"
    data = leb(len(segments)) + b"".join(segments)
    return b"\0asm\x01\0\0\0" + b"\x00" + leb(len(custom)) + custom + b"\x0b" + leb(len(data)) + data


# (case, module, the image as hex, or the refusal's words)
CASES = [
    ("no data section", b"\0asm\x01\0\0\0", ""),
    ("one segment", make_wasm(active(2, b"\xaa\xbb")), "0000aabb"),
    ("segments out of order, a gap", make_wasm(active(6, b"\x01"), active(1, b"\x02\x03")), "00020300000001"),
    ("a later segment overwrites", make_wasm(active(0, b"\x01\x02\x03"), active(1, b"\x09")), "010903"),
    ("a passive segment is not placed", make_wasm(passive(b"\xff\xff"), active(1, b"\x05")), "0005"),
    ("memory 0 named", make_wasm(active(3, b"\x07", memory=0)), "00000007"),
    ("an address past 127", make_wasm(active(200, b"\x01")), "00" * 200 + "01"),
    ("not a module", b"\0asm\x02\0\0\0", "not a WebAssembly module (version 1)"),
    ("another memory", make_wasm(active(0, b"\x01", memory=1)), "a data segment for memory 1"),
    ("an unknown kind", make_wasm(b"\x03"), "a data segment of kind 3"),
    ("an address read from a global", make_wasm(b"\x00\x23\x00\x0b\x01\x01"), "a data segment whose address is not a constant"),
    (
        "an address that is an expression",
        make_wasm(b"\x00\x41\x01\x41\x01\x6a\x0b\x01\x01"),
        "a data segment whose address is not a constant",
    ),
    ("cut inside a number", b"\0asm\x01\0\0\0\x0b\x80", "the module ends inside a number"),
]


def read_in_python(module: bytes) -> str:
    try:
        return read_data_image(module).hex()
    except WasmDataError as error:
        return str(error)


def run_node(script: str, *arguments: str) -> object:
    result = subprocess.run(
        [NODE, "--input-type=module", "-e", script, *arguments],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def read_in_the_page(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every case's answer from wasm-data.mjs, in one Node process."""
    folder = tmp_path_factory.mktemp("modules")
    for index, (_case, module, _expected) in enumerate(CASES):
        (folder / f"{index}.wasm").write_bytes(module)
    script = """
import fs from "node:fs";
import { readDataImage } from "./client/python/wasm-data.mjs";
const folder = process.argv[1];
const answers = {};
for (const name of fs.readdirSync(folder)) {
  try {
    answers[name] = Buffer.from(readDataImage(new Uint8Array(fs.readFileSync(`${folder}/${name}`)))).toString("hex");
  } catch (error) {
    answers[name] = error.message;
  }
}
console.log(JSON.stringify(answers));
"""
    answers = run_node(script, str(folder))
    assert isinstance(answers, dict)
    return {CASES[int(name.removesuffix(".wasm"))][0]: answer for name, answer in answers.items()}


@pytest.mark.parametrize(("case", "module", "expected"), CASES, ids=[case for case, _module, _expected in CASES])
def test_the_build_and_the_page_read_the_same_image_or_refuse_alike(case: str, module: bytes, expected: str, read_in_the_page):
    assert read_in_python(module) == expected
    assert read_in_the_page[case] == expected


def heap_with(header_size: int, memory: bytes) -> bytes:
    """A snapshot-like heap: Pyodide's header (magic, its size, ...) padded to `header_size`, then the memory."""
    header = b"\0snp" + header_size.to_bytes(4, "little")
    return header + bytes(header_size - len(header)) + memory


def test_the_image_is_xored_into_the_memory_after_the_header_and_back():
    heap = heap_with(16, bytes(range(1, 11)))
    taken_out = xor_data_image(heap, b"\x01\x02\x03")

    assert taken_out == heap[:16] + b"\x00\x00\x00" + bytes(range(4, 11))
    assert xor_data_image(taken_out, b"\x01\x02\x03") == heap


def test_an_image_larger_than_the_memory_is_refused():
    with pytest.raises(WasmDataError, match=r"^the snapshot's memory \(2 bytes\) is smaller than the wasm's data \(3\)$"):
        xor_data_image(heap_with(16, b"\x01\x02"), b"\x01\x02\x03")
    with pytest.raises(WasmDataError, match=r"^the snapshot is shorter than its header$"):
        xor_data_image(b"\0snp", b"")


def test_pyodides_own_wasm_gives_the_same_image_in_the_build_and_the_page(tmp_path: Path):
    """The real module (14,000-odd segments) and a heap the size of its memory: the page puts back what the build took out."""
    image = read_data_image(PYODIDE_WASM.read_bytes())
    memory = hashlib.shake_256(b"heap").digest(len(image) + 4099)  # an odd length: the page's last bytes one by one
    heap = heap_with(144, memory)
    (tmp_path / "taken-out.bin").write_bytes(xor_data_image(heap, image))
    script = """
import fs from "node:fs";
import crypto from "node:crypto";
import { readDataImage, xorDataImage } from "./client/python/wasm-data.mjs";
const [wasm, takenOut] = process.argv.slice(1).map((path) => new Uint8Array(fs.readFileSync(path)));
const image = readDataImage(wasm);
const heap = xorDataImage(takenOut, image);
const sha = (bytes) => crypto.createHash("sha256").update(bytes).digest("hex");
console.log(JSON.stringify({ image: sha(image), heap: sha(heap) }));
"""
    answer = run_node(script, str(PYODIDE_WASM), str(tmp_path / "taken-out.bin"))

    assert len(image) > 3_000_000  # Python's static objects, strings and tables
    assert answer == {"image": hashlib.sha256(image).hexdigest(), "heap": hashlib.sha256(heap).hexdigest()}


def test_a_worker_decodes_the_shipped_copy_and_puts_the_data_back_or_refuses_without_it(tmp_path: Path):
    """client/python/pyodide-start.mjs's fetchSnapshot, under Node, on the build's copy of a heap."""
    from sitegen.assets.python_snapshot import compress_python_snapshot, name_python_snapshot

    memory = hashlib.shake_256(b"memory").digest(8192)
    heap = heap_with(144, memory)
    wasm = tmp_path / "pyodide.asm.wasm"
    wasm.write_bytes(make_wasm(active(1024, memory[1024:5000]), active(6000, b"\x01\x02\x03")))
    copy = compress_python_snapshot(gzip.compress(heap, mtime=0), wasm, None)
    shipped = tmp_path / Path(name_python_snapshot(copy)).name
    shipped.write_bytes(copy)
    script = """
import fs from "node:fs";
import crypto from "node:crypto";
import { fetchSnapshot } from "./client/python/pyodide-start.mjs";
import { readDataImage } from "./client/python/wasm-data.mjs";
const [wasmPath, copyPath] = process.argv.slice(1);
const image = readDataImage(new Uint8Array(fs.readFileSync(wasmPath)));
const fetchFile = async () => new Response(fs.readFileSync(copyPath));
const heap = await fetchSnapshot(`file://${copyPath}`, Promise.resolve(image), fetchFile);
let refused = "";
await fetchSnapshot(`file://${copyPath}`, Promise.resolve(null), fetchFile).catch((error) => { refused = error.message; });
console.log(JSON.stringify({ heap: crypto.createHash("sha256").update(heap).digest("hex"), refused }));
"""
    answer = run_node(script, str(wasm), str(shipped))

    assert answer == {"heap": hashlib.sha256(heap).hexdigest(), "refused": "the WebAssembly's data was not read in the page"}
