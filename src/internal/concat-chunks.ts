/**
 * Joins body chunks into one byte array (the chunk itself when there is one). On `Uint8Array`, not
 * `Buffer.concat`, so the adapters and transports sharing it run on edge runtimes too.
 */
export function concatChunks(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
