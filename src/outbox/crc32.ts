/**
 * CRC-32 (IEEE 802.3, the polynomial of zip and PNG), table-driven. The journal frames every
 * record with it so a record torn by a crash or a power cut is recognised and dropped instead of
 * being read back as garbage. Written here rather than taken from `node:zlib` (which has no
 * `crc32` before Node 22) so the store needs no native code and no dependency.
 */
const TABLE = buildTable();

function buildTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/**
 * The CRC-32 of `bytes[start, end)`, as an unsigned 32-bit integer.
 *
 * @example
 * ```ts
 * crc32(new TextEncoder().encode('123456789')); // 0xcbf43926
 * ```
 */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) crc = TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
