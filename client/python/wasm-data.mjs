// The memory image of Pyodide's WebAssembly data segments, read in the page out of the wasm it decodes anyway,
// and XORed back into the snapshot's heap by each worker: the build ships the heap with that image taken out
// (pysrc/sitegen/assets/wasm_data.py, the same rules), 3.4 MB of zstd where the heap itself is 4.5 (issue 40).

const MAGIC = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
const DATA_SECTION = 11;
const I32_CONST = 0x41;
const END = 0x0b;

/**
 * Return memory 0 as the wasm's active data segments leave it at instantiation (a Uint8Array up to the last
 * segment's end); throw on a module this cannot read.
 */
export function readDataImage(wasm) {
  if (MAGIC.some((byte, index) => wasm[index] !== byte)) {
    throw new Error("not a WebAssembly module (version 1)");
  }
  let segments = [];
  let position = MAGIC.length;
  while (position < wasm.length) {
    const section = wasm[position];
    const [size, start] = readUnsigned(wasm, position + 1);
    position = start + size;
    if (section === DATA_SECTION) {
      segments = readSegments(wasm.subarray(start, position));
    }
  }
  const image = new Uint8Array(segments.reduce((end, [address, data]) => Math.max(end, address + data.length), 0));
  for (const [address, data] of segments) {
    image.set(data, address);
  }
  return image;
}

/**
 * XOR `image` into the memory of the snapshot `heap` (Pyodide's header, whose size is its second little-endian
 * 32-bit word, then the memory from address 0), in place: puts back what the build took out.
 */
export function xorDataImage(heap, image) {
  if (heap.length < 8) {
    throw new Error("the snapshot is shorter than its header");
  }
  const start = new DataView(heap.buffer, heap.byteOffset, 8).getUint32(4, true);
  if (start + image.length > heap.length) {
    throw new Error(`the snapshot's memory (${heap.length - start} bytes) is smaller than the wasm's data (${image.length})`);
  }
  const memory = heap.subarray(start, start + image.length);
  // Word by word where both are aligned (the header's size is a multiple of 16), the rest byte by byte.
  const words = (memory.byteOffset % 4 === 0 && image.byteOffset % 4 === 0 ? image.length : 0) >>> 2;
  const memoryWords = new Uint32Array(memory.buffer, memory.byteOffset, words);
  const imageWords = new Uint32Array(image.buffer, image.byteOffset, words);
  for (let index = 0; index < words; index++) {
    memoryWords[index] ^= imageWords[index];
  }
  for (let index = words * 4; index < image.length; index++) {
    memory[index] ^= image[index];
  }
  return heap;
}

/** The data section's active segments of memory 0, as [address, bytes]; passive ones are not placed. */
function readSegments(section) {
  let [count, position] = readUnsigned(section, 0);
  const segments = [];
  for (; count > 0; count--) {
    let kind;
    [kind, position] = readUnsigned(section, position);
    if (kind === 1) {
      // Passive: copied by memory.init when the code asks, not at instantiation.
      let size;
      [size, position] = readUnsigned(section, position);
      position += size;
      continue;
    }
    if (kind === 2) {
      let memory;
      [memory, position] = readUnsigned(section, position);
      if (memory !== 0) {
        throw new Error(`a data segment for memory ${memory}`);
      }
    } else if (kind !== 0) {
      throw new Error(`a data segment of kind ${kind}`);
    }
    if (section[position] !== I32_CONST) {
      throw new Error("a data segment whose address is not a constant");
    }
    let address;
    [address, position] = readSigned(section, position + 1);
    if (section[position] !== END) {
      throw new Error("a data segment whose address is not a constant");
    }
    let size;
    [size, position] = readUnsigned(section, position + 1);
    segments.push([address >>> 0, section.subarray(position, position + size)]);
    position += size;
  }
  return segments;
}

/** A LEB128 unsigned integer (up to 32 bits) at `position`: [value, position after it]. */
function readUnsigned(bytes, position) {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = bytes[position++];
    if (byte === undefined) {
      throw new Error("the module ends inside a number");
    }
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if (byte < 0x80) {
      return [value, position];
    }
  }
}

/** A LEB128 signed integer (up to 32 bits) at `position`: [value, position after it]. */
function readSigned(bytes, position) {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = bytes[position++];
    if (byte === undefined) {
      throw new Error("the module ends inside a number");
    }
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if (byte < 0x80) {
      return [byte & 0x40 ? value - scale : value, position];
    }
  }
}
