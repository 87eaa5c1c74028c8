import { crc32 as zlibCrc32 } from 'node:zlib';

/** CRC-32 (IEEE, as zip and PNG), native in `node:zlib`: a torn or damaged journal record fails it. */
export function crc32(bytes: Uint8Array): number {
  return zlibCrc32(bytes) >>> 0;
}
