/** CRC-32 (IEEE, as zip and PNG; unsigned), native in `node:zlib`: a torn or damaged record fails it. */
export { crc32 } from 'node:zlib';
