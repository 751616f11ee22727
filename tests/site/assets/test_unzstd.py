"""The pages' zstd decoder for the wasm (client/python/unzstd.mjs), bundled by esbuild as the pages' scripts are, run
under Node: it decodes a copy that arrives in one piece (a fast link) in slices, giving the thread back between them,
and errors the stream on a copy cut short."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
from pathlib import Path

import pytest
import zstandard

from site_testing import PROJECT_ROOT
from sitegen.node import find_node

NODE = find_node() or "node"  # the Node the build runs (sitegen/node.py)
ESBUILD = PROJECT_ROOT / "node_modules" / ".bin" / "esbuild"
SLICE = 64 * 1024  # unzstd.mjs's SLICE

# Decodes the zstd file argv[1], handed over as ONE chunk, while a loop of setImmediate counts the turns the event loop
# got meanwhile; prints the output's SHA-256, the input's size and that count.
DECODE = """
import fs from "node:fs";
import crypto from "node:crypto";
import { unzstd } from "./unzstd.mjs";
const input = new Uint8Array(fs.readFileSync(process.argv[2]));
let turns = 0;
let decoding = true;
const turn = () => { if (decoding) { turns += 1; setImmediate(turn); } };
setImmediate(turn);
const whole = new ReadableStream({ start(controller) { controller.enqueue(input); controller.close(); } });
const output = new Uint8Array(await new Response(unzstd(whole)).arrayBuffer());
decoding = false;
console.log(JSON.stringify({ sha256: crypto.createHash("sha256").update(output).digest("hex"), turns }));
"""


@pytest.fixture(scope="module")
def decoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """unzstd.mjs and its npm decoder bundled into one ES module for Node, as esbuild bundles the pages' scripts."""
    folder = tmp_path_factory.mktemp("unzstd")
    (folder / "decode.mjs").write_text(DECODE, encoding="utf-8")
    entry = PROJECT_ROOT / "client" / "python" / "unzstd.mjs"
    subprocess.run(
        [
            str(ESBUILD),
            str(entry),
            "--bundle",
            "--format=esm",
            "--platform=browser",
            f"--outfile={folder / 'unzstd.mjs'}",
            "--log-level=error",
        ],
        check=True,
        cwd=PROJECT_ROOT,
        timeout=60,
    )
    return folder


def compress(data: bytes) -> bytes:
    """One frame with a 4 MiB window and a checksum, as compressed_copy.ZSTD_STREAMED writes the wasm's."""
    parameters = zstandard.ZstdCompressionParameters.from_level(19, window_log=22, write_content_size=True, write_checksum=True)
    return zstandard.ZstdCompressor(compression_params=parameters).compress(data)


def decode(decoder: Path, compressed: bytes) -> subprocess.CompletedProcess[str]:
    source = decoder / "copy.zst"
    source.write_bytes(compressed)
    return subprocess.run(
        [NODE, "decode.mjs", str(source)], capture_output=True, text=True, cwd=decoder, timeout=120, check=False
    )


def test_a_copy_that_arrives_whole_is_decoded_in_slices_with_the_thread_given_back_between(decoder: Path):
    data = random.Random(40).randbytes(1 << 20) * 2  # 2 MiB that zstd keeps at about 1 MiB: about 16 slices
    compressed = compress(data)
    result = decode(decoder, compressed)
    assert result.returncode == 0, result.stderr[-3000:]
    answer = json.loads(result.stdout)

    assert answer["sha256"] == hashlib.sha256(data).hexdigest()
    slices = -(-len(compressed) // SLICE)
    # Decoded in one task the loop would get no turn; Node may deliver two of the decoder's message-port tasks in one.
    assert answer["turns"] >= slices // 2, f"{answer['turns']} turns of the event loop for {slices} slices"


def test_a_copy_cut_short_errors_the_stream(decoder: Path):
    compressed = compress(random.Random(59).randbytes(300_000))
    result = decode(decoder, compressed[: len(compressed) // 2])
    assert result.returncode != 0
    assert "sha256" not in result.stdout
