"""The snapshot's heap shipped less what Pyodide's WebAssembly already carries (issue 40).

Instantiating `pyodide.asm.wasm` writes its data segments (3.2 MB of
strings, tables and Python's static objects) into the first megabytes of the
memory, and a snapshot's heap still holds most of those bytes where they were
put. So the pages' copy of the heap is the heap XOR that image of the data
segments: where nothing changed it is zeros, and zstd makes it 3.40 MB
instead of 4.48 (a 30 % smaller start on a phone's link). No dictionary
travels for it: the page reads the segments out of the wasm it decodes
anyway (client/python/wasm-data.mjs, by the same rules as here), and each worker
XORs them back into the heap it decoded.

The heap is Pyodide's snapshot: a header (its size is the second
little-endian 32-bit word) and then the memory from address 0, so the image
goes at that offset.
"""

from __future__ import annotations

_DATA_SECTION = 11
_I32_CONST, _END = 0x41, 0x0B
_MAGIC = b"\0asm\x01\0\0\0"


class WasmDataError(ValueError):
    """A wasm or heap this module cannot read."""


def read_data_image(wasm: bytes) -> bytes:
    """Return memory 0 as the wasm's active data segments leave it at instantiation, up to the last segment's end."""
    if not wasm.startswith(_MAGIC):
        raise WasmDataError("not a WebAssembly module (version 1)")
    segments: list[tuple[int, bytes]] = []
    position = len(_MAGIC)
    while position < len(wasm):
        section = wasm[position]
        size, start = _read_unsigned(wasm, position + 1)
        position = start + size
        if section == _DATA_SECTION:
            segments = _read_segments(wasm[start:position])
    image = bytearray(max((offset + len(data) for offset, data in segments), default=0))
    for offset, data in segments:
        image[offset : offset + len(data)] = data
    return bytes(image)


def xor_data_image(heap: bytes, image: bytes) -> bytes:
    """Return the snapshot `heap` with `image` XORed into its memory: takes the image out, and puts it back."""
    if len(heap) < 8:
        raise WasmDataError("the snapshot is shorter than its header")
    start = int.from_bytes(heap[4:8], "little")
    end = start + len(image)
    if end > len(heap):
        raise WasmDataError(f"the snapshot's memory ({len(heap) - start} bytes) is smaller than the wasm's data ({len(image)})")
    mixed = int.from_bytes(heap[start:end], "little") ^ int.from_bytes(image, "little")
    return heap[:start] + mixed.to_bytes(len(image), "little") + heap[end:]


def _read_segments(section: bytes) -> list[tuple[int, bytes]]:
    """The data section's active segments of memory 0, as (address, bytes); passive ones are not placed."""
    count, position = _read_unsigned(section, 0)
    segments = []
    for _ in range(count):
        kind, position = _read_unsigned(section, position)
        if kind == 1:  # passive: copied by memory.init when the code asks, not at instantiation
            size, position = _read_unsigned(section, position)
            position += size
            continue
        if kind == 2:
            memory, position = _read_unsigned(section, position)
            if memory != 0:
                raise WasmDataError(f"a data segment for memory {memory}")
        elif kind != 0:
            raise WasmDataError(f"a data segment of kind {kind}")
        if section[position] != _I32_CONST:
            raise WasmDataError("a data segment whose address is not a constant")
        address, position = _read_signed(section, position + 1)
        if section[position] != _END:
            raise WasmDataError("a data segment whose address is not a constant")
        size, position = _read_unsigned(section, position + 1)
        segments.append((address & 0xFFFFFFFF, section[position : position + size]))
        position += size
    return segments


def _read_unsigned(data: bytes, position: int) -> tuple[int, int]:
    """A LEB128 unsigned integer at `position`: (value, position after it)."""
    value = shift = 0
    while True:
        byte = _byte_at(data, position)
        position += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, position


def _read_signed(data: bytes, position: int) -> tuple[int, int]:
    """A LEB128 signed integer at `position`: (value, position after it)."""
    value = shift = 0
    while True:
        byte = _byte_at(data, position)
        position += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            if byte & 0x40:
                value -= 1 << shift
            return value, position


def _byte_at(data: bytes, position: int) -> int:
    if position >= len(data):
        raise WasmDataError("the module ends inside a number")
    return data[position]
