"""The pages' xz decoder (client/python/unxz.mjs), bundled by esbuild as the pages' scripts are, run under Node:
it decodes a copy that arrives in one piece (a fast link) in slices, giving the thread back between them."""

from __future__ import annotations

import hashlib
import json
import lzma
import random
import subprocess
from pathlib import Path

import pytest

from site_testing import PROJECT_ROOT
from sitegen.node import find_node

NODE = find_node() or "node"  # the Node the build runs (sitegen/node.py)
ESBUILD = PROJECT_ROOT / "node_modules" / ".bin" / "esbuild"
SLICE = 64 * 1024  # unxz.mjs's SLICE

# Decodes the xz file argv[1], handed over as ONE chunk, while a loop of setImmediate counts the turns the event loop
# got meanwhile; prints the output's SHA-256, the input's size and that count.
DECODE = """
import fs from "node:fs";
import crypto from "node:crypto";
import { unxz } from "./unxz.mjs";
const input = new Uint8Array(fs.readFileSync(process.argv[2]));
let turns = 0;
let decoding = true;
const turn = () => { if (decoding) { turns += 1; setImmediate(turn); } };
setImmediate(turn);
const whole = new ReadableStream({ start(controller) { controller.enqueue(input); controller.close(); } });
const output = new Uint8Array(await new Response(unxz(whole)).arrayBuffer());
decoding = false;
console.log(JSON.stringify({ sha256: crypto.createHash("sha256").update(output).digest("hex"), turns }));
"""


@pytest.fixture(scope="module")
def decoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """unxz.mjs and its npm decoder bundled into one ES module for Node, as esbuild bundles the pages' scripts."""
    folder = tmp_path_factory.mktemp("unxz")
    (folder / "decode.mjs").write_text(DECODE, encoding="utf-8")
    entry = PROJECT_ROOT / "client" / "python" / "unxz.mjs"
    subprocess.run(
        [
            str(ESBUILD),
            str(entry),
            "--bundle",
            "--format=esm",
            "--platform=browser",
            f"--outfile={folder / 'unxz.mjs'}",
            "--log-level=error",
        ],
        check=True,
        cwd=PROJECT_ROOT,
        timeout=60,
    )
    return folder


def test_a_copy_that_arrives_whole_is_decoded_in_slices_with_the_thread_given_back_between(decoder: Path):
    data = random.Random(40).randbytes(1 << 20) * 2  # 2 MiB that xz keeps at about 1 MiB: about 16 slices
    compressed = lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32)
    source = decoder / "copy.xz"
    source.write_bytes(compressed)
    result = subprocess.run(
        [NODE, "decode.mjs", str(source)], capture_output=True, text=True, cwd=decoder, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    answer = json.loads(result.stdout)

    assert answer["sha256"] == hashlib.sha256(data).hexdigest()
    slices = -(-len(compressed) // SLICE)
    assert answer["turns"] >= slices - 1, f"{answer['turns']} turns of the event loop for {slices} slices"
