import { crc32 as zlibCrc32 } from 'node:zlib';

/**
 * CRC-32 (IEEE 802.3, the polynomial of zip and PNG) from `node:zlib`, native, present since
 * Node 20.15 (the package needs Node 20.18.1 or later). The journal frames every record with it
 * so a record torn by a crash or damaged on disk is recognised instead of read back as garbage.
 *
 * @example
 * ```ts
 * crc32(new TextEncoder().encode('123456789')); // 0xcbf43926
 * ```
 */
export function crc32(bytes: Uint8Array): number {
  return zlibCrc32(bytes) >>> 0;
}
