// A synchronous inflate (raw deflate, RFC 1951), after zlib's puff.c: the
// standard library's parts are fetched while Python imports (a synchronous
// read of the file system, stdlib.mjs's assembleStdlib), where the
// browser's own DecompressionStream, which is asynchronous, cannot be awaited.
// Small and plain rather than fast: only the files of a part a reader's code
// first imports go through it.

const MAX_BITS = 15;
const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DISTANCE_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385,
  24577,
];
const DISTANCE_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
// The order in which a dynamic block lists its code-length code's lengths.
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/** A canonical Huffman code from its code lengths: how many codes of each length, and the symbols in code order. */
function huffman(lengths) {
  const count = new Uint16Array(MAX_BITS + 1);
  for (const length of lengths) count[length]++;
  count[0] = 0;
  const offsets = new Uint16Array(MAX_BITS + 2);
  for (let length = 1; length <= MAX_BITS; length++) offsets[length + 1] = offsets[length] + count[length];
  const symbols = new Uint16Array(lengths.length);
  lengths.forEach((length, symbol) => {
    if (length !== 0) symbols[offsets[length]++] = symbol;
  });
  return { count, symbols };
}

const FIXED_LENGTHS = huffman(Array.from({ length: 288 }, (_, symbol) => (symbol < 144 ? 8 : symbol < 256 ? 9 : symbol < 280 ? 7 : 8)));
const FIXED_DISTANCES = huffman(new Array(30).fill(5));

/** Return the `size` bytes that the raw deflate stream `input` (a Uint8Array) holds; throw if it is damaged. */
export function inflateRaw(input, size) {
  const output = new Uint8Array(size);
  let written = 0;
  let position = 0;
  let buffer = 0; // bits read but not used, the next one lowest
  let buffered = 0;

  const damaged = (what) => new Error(`damaged deflate data: ${what}`);
  const bits = (needed) => {
    while (buffered < needed) {
      if (position >= input.length) throw damaged("it ends early");
      buffer |= input[position++] << buffered;
      buffered += 8;
    }
    const value = buffer & ((1 << needed) - 1);
    buffer >>>= needed;
    buffered -= needed;
    return value;
  };
  const decode = ({ count, symbols }) => {
    let code = 0;
    let first = 0;
    let index = 0;
    for (let length = 1; length <= MAX_BITS; length++) {
      // bits(1), inlined: most of the time goes here.
      if (buffered === 0) {
        if (position >= input.length) throw damaged("it ends early");
        buffer = input[position++];
        buffered = 8;
      }
      code |= buffer & 1;
      buffer >>>= 1;
      buffered--;
      const here = count[length];
      if (code - here < first) return symbols[index + (code - first)];
      index += here;
      first = (first + here) << 1;
      code <<= 1;
    }
    throw damaged("a code that is not in its table");
  };
  const put = (byte) => {
    if (written >= size) throw damaged("it holds more than its size");
    output[written++] = byte;
  };
  const inflateCodes = (lengthCode, distanceCode) => {
    for (;;) {
      const symbol = decode(lengthCode);
      if (symbol < 256) {
        put(symbol);
      } else if (symbol === 256) {
        return;
      } else {
        const index = symbol - 257;
        if (index >= LENGTH_BASE.length) throw damaged("a length out of range");
        const length = LENGTH_BASE[index] + bits(LENGTH_EXTRA[index]);
        const code = decode(distanceCode);
        if (code >= DISTANCE_BASE.length) throw damaged("a distance out of range");
        const distance = DISTANCE_BASE[code] + bits(DISTANCE_EXTRA[code]);
        if (distance > written) throw damaged("a distance past the start");
        for (let i = 0; i < length; i++) put(output[written - distance]);
      }
    }
  };
  const dynamicCodes = () => {
    const lengthCount = bits(5) + 257;
    const distanceCount = bits(5) + 1;
    const codeLengthCount = bits(4) + 4;
    const codeLengths = new Array(19).fill(0);
    for (let i = 0; i < codeLengthCount; i++) codeLengths[CODE_LENGTH_ORDER[i]] = bits(3);
    const codeLengthCode = huffman(codeLengths);
    const lengths = [];
    while (lengths.length < lengthCount + distanceCount) {
      const symbol = decode(codeLengthCode);
      if (symbol < 16) {
        lengths.push(symbol);
      } else {
        if (symbol === 16 && lengths.length === 0) throw damaged("a repeat with nothing before it");
        const [value, repeat] =
          symbol === 16 ? [lengths[lengths.length - 1], 3 + bits(2)] : symbol === 17 ? [0, 3 + bits(3)] : [0, 11 + bits(7)];
        for (let i = 0; i < repeat; i++) lengths.push(value);
      }
    }
    if (lengths.length > lengthCount + distanceCount) throw damaged("too many code lengths");
    return [huffman(lengths.slice(0, lengthCount)), huffman(lengths.slice(lengthCount))];
  };

  let last = 0;
  while (!last) {
    last = bits(1);
    const type = bits(2);
    if (type === 0) {
      // Stored: the rest of the current byte is padding.
      buffer = 0;
      buffered = 0;
      if (position + 4 > input.length) throw damaged("it ends early");
      const length = input[position] | (input[position + 1] << 8);
      const complement = input[position + 2] | (input[position + 3] << 8);
      if (length !== (~complement & 0xffff)) throw damaged("a stored block's length");
      position += 4;
      if (position + length > input.length || written + length > size) throw damaged("a stored block past the end");
      output.set(input.subarray(position, position + length), written);
      position += length;
      written += length;
    } else if (type === 1) {
      inflateCodes(FIXED_LENGTHS, FIXED_DISTANCES);
    } else if (type === 2) {
      inflateCodes(...dynamicCodes());
    } else {
      throw damaged("a block of an unknown type");
    }
  }
  if (written !== size) throw damaged(`${written} bytes, not ${size}`);
  return output;
}
