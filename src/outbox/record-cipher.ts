import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { LoyaltyValidationError } from '../contract/errors.js';

/** AES-256 takes a 32-byte key. */
const KEY_BYTES = 32;
/** GCM's standard nonce: 96 bits, fresh and random for every frame sealed. */
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** A key's id: the first bytes of an HMAC of a fixed label under the key (never the key itself). */
export const KEY_ID_BYTES = 8;
const KEY_ID_LABEL = 'loyalty-partner-sdk outbox journal key id v1';
/** Key id, frame number (u32 LE), nonce before the ciphertext; the tag after it. */
const SEALED_HEADER = KEY_ID_BYTES + 4 + NONCE_BYTES;
/** Bytes an encrypted body adds to the plain one. */
export const SEALED_OVERHEAD = SEALED_HEADER + TAG_BYTES;

/**
 * What `fileStore`'s `encryptionKey` accepts: 32 bytes, as bytes or as their base64; a list for
 * rotation (the first encrypts, any decrypts).
 */
export type EncryptionKeyInput = Uint8Array | string | readonly (Uint8Array | string)[];

export type Opened =
  | { readonly kind: 'record'; readonly frameNo: number; readonly body: Uint8Array }
  /** Sealed under a key that was not given. */
  | { readonly kind: 'unknown-key' }
  /** Failed authentication: tampered, damaged, or from another journal. */
  | { readonly kind: 'rejected' };

/**
 * AES-256-GCM over journal frames (a chunk of records written together). Each sealed body names
 * its key by id and carries its number in the journal and a random nonce; the journal id, key id
 * and number are authenticated with it, so a frame moved from elsewhere fails to open. Keys stay
 * in memory and are never printed.
 */
export class RecordCipher {
  private readonly keys: readonly { readonly id: Buffer; readonly key: Buffer }[];

  constructor(keys: readonly Uint8Array[]) {
    this.keys = keys.map((key) => ({ id: keyId(key), key: Buffer.from(key) }));
  }

  /** The id of the key that encrypts. */
  get primaryId(): Buffer {
    return this.keys[0]!.id;
  }

  knows(id: Uint8Array): boolean {
    return this.keys.some((entry) => entry.id.equals(id));
  }

  /** Could a sealed body start at `at`? (Its first bytes are the id of a key given.) */
  startsWithKnownId(bytes: Uint8Array, at: number): boolean {
    return this.keys.some((entry) => entry.id.every((byte, i) => bytes[at + i] === byte));
  }

  seal(plain: Uint8Array, journalId: Uint8Array, frameNo: number): Uint8Array {
    const { id, key } = this.keys[0]!;
    const sealed = Buffer.allocUnsafe(SEALED_HEADER + plain.length + TAG_BYTES);
    id.copy(sealed, 0);
    sealed.writeUInt32LE(frameNo, KEY_ID_BYTES);
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    nonce.copy(sealed, KEY_ID_BYTES + 4);
    cipher.setAAD(additionalData(journalId, sealed));
    const written = cipher.update(plain).copy(sealed, SEALED_HEADER);
    cipher.final().copy(sealed, SEALED_HEADER + written);
    cipher.getAuthTag().copy(sealed, SEALED_HEADER + plain.length);
    return sealed;
  }

  open(sealed: Uint8Array, journalId: Uint8Array): Opened {
    if (sealed.length < SEALED_OVERHEAD) return { kind: 'rejected' };
    const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    const id = bytes.subarray(0, KEY_ID_BYTES);
    const entry = this.keys.find((candidate) => candidate.id.equals(id));
    if (!entry) return { kind: 'unknown-key' };
    const nonce = bytes.subarray(KEY_ID_BYTES + 4, SEALED_HEADER);
    const tagAt = bytes.length - TAG_BYTES;
    try {
      const decipher = createDecipheriv('aes-256-gcm', entry.key, nonce);
      decipher.setAAD(additionalData(journalId, bytes));
      decipher.setAuthTag(bytes.subarray(tagAt));
      const body = Buffer.concat([decipher.update(bytes.subarray(SEALED_HEADER, tagAt)), decipher.final()]);
      return { kind: 'record', frameNo: bytes.readUInt32LE(KEY_ID_BYTES), body };
    } catch {
      return { kind: 'rejected' };
    }
  }
}

/** The journal's id, then the sealed body's key id and frame number. */
function additionalData(journalId: Uint8Array, sealed: Buffer): Buffer {
  return Buffer.concat([journalId, sealed.subarray(0, KEY_ID_BYTES + 4)]);
}

/** A key's id: it tells which key sealed a record, and reveals nothing of the key. */
export function keyId(key: Uint8Array): Buffer {
  return createHmac('sha256', key).update(KEY_ID_LABEL).digest().subarray(0, KEY_ID_BYTES);
}

/**
 * The keys of `encryptionKey`, checked: each must be 32 bytes, or the base64 of 32 bytes. The
 * error names the position of a bad key and what is wrong with it, never any of its bytes.
 */
export function normalizeEncryptionKeys(input: EncryptionKeyInput): Uint8Array[] {
  const single = typeof input === 'string' || input instanceof Uint8Array;
  const list: readonly unknown[] = single ? [input] : input;
  const keys = Array.isArray(list) ? list.map(decodeKey) : [];
  const issues = keys.flatMap((key, i) =>
    typeof key === 'string' ? [{ path: single ? 'encryptionKey' : `encryptionKey.${i}`, message: key }] : [],
  );
  if (keys.length === 0)
    issues.push({
      path: 'encryptionKey',
      message: 'give at least one key (32 bytes, or base64 of 32 bytes)',
    });
  if (issues.length > 0) throw new LoyaltyValidationError('INVALID_OPTIONS', 'Invalid store options', issues);
  return keys as Uint8Array[];
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The key's bytes, or what is wrong with it (never its content). */
function decodeKey(value: unknown): Uint8Array | string {
  if (value instanceof Uint8Array) {
    return value.length === KEY_BYTES
      ? new Uint8Array(value)
      : `must be ${KEY_BYTES} bytes for AES-256 (got ${value.length})`;
  }
  if (typeof value === 'string') {
    const text = value.trim();
    const bytes = BASE64.test(text) && text.length % 4 === 0 ? Buffer.from(text, 'base64') : undefined;
    if (bytes?.length === KEY_BYTES) return new Uint8Array(bytes);
    return `must be the base64 of ${KEY_BYTES} bytes (e.g. from \`openssl rand -base64 32\`)`;
  }
  return `must be a Uint8Array of ${KEY_BYTES} bytes or its base64 (got ${value === null ? 'null' : typeof value})`;
}
