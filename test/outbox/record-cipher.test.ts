import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEnvelope, type InboundEnvelope, LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox, fileStore, OutboxStoreError, type StoredEvent } from 'loyalty-partner-sdk/outbox';
import { createEmulator, type Emulator } from 'loyalty-partner-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crc32 } from '../../src/outbox/crc32.js';
import {
  encodeBody,
  encryptedHeader,
  frameBody,
  newJournalId,
  SEALED_CHUNK_BYTES,
} from '../../src/outbox/journal-codec.js';
import { KEY_ID_BYTES, RecordCipher } from '../../src/outbox/record-cipher.js';

/*
 * fileStore({ encryptionKey }): the kiosk's journal at rest, read back by the outbox and
 * delivered over real HTTP to the emulator.
 */

let dir: string;
let emulator: Emulator;
let url: string;
const clients: LoyaltyClient[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'outbox-cipher-'));
  emulator = createEmulator();
  ({ url } = await emulator.listen());
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

const key = () => randomBytes(32);
const CUSTOMERS = 12;
const customerOf = (i: number) => ({
  externalCustomerId: `cust-${i}`,
  phone: `+9665${String(10_000_000 + i * 7919)}`,
  firstName: `Nourah${i}x`,
  lastName: `Alqahtani${i}y`,
});
const invoiceIdOf = (i: number) => `INV-2026-${String(500_000 + i)}`;

/** What a customer's disk must never show: phones, names, invoice ids. */
function secrets(): string[] {
  return Array.from({ length: CUSTOMERS }, (_, i) => {
    const c = customerOf(i);
    return [c.phone, c.firstName, c.lastName, invoiceIdOf(i)];
  }).flat();
}

/** A branch, then per customer its CustomerSynced and an InvoiceEarned: 1 + 2 × CUSTOMERS events. */
function backlog(tenantId: string): StoredEvent[] {
  const envelopes: InboundEnvelope[] = [
    createEnvelope('BranchSynced', { externalBranchId: 'branch-1', name: 'Olaya', isActive: true }),
  ] as InboundEnvelope[];
  for (let i = 0; i < CUSTOMERS; i++) {
    envelopes.push(createEnvelope('CustomerSynced', customerOf(i)) as InboundEnvelope);
    envelopes.push(
      createEnvelope('InvoiceEarned', {
        externalInvoiceId: invoiceIdOf(i),
        externalCustomerId: `cust-${i}`,
        externalBranchId: 'branch-1',
        subtotalAfterDiscountBeforeVat: 42,
        earnType: 'Points',
        channel: 'Kiosk',
      }) as InboundEnvelope,
    );
  }
  return envelopes.map((envelope, i) => ({
    eventId: envelope.eventId,
    tenantId,
    envelope,
    seq: i + 1,
    enqueuedAt: 1_760_000_000_000 + i,
    state: 'pending',
    attempts: 0,
    firstAttemptAt: null,
    lastError: null,
  }));
}

/**
 * Writes the backlog through the store, as an outbox that could not send it would have: one
 * write per event (each sealed in a frame of its own), or `together` (sealed in chunks).
 */
async function writeBacklog(
  encryptionKey: Uint8Array | string | (Uint8Array | string)[] | undefined,
  { together = false } = {},
) {
  const merchant = emulator.createMerchant({ autoConfirmBranches: true });
  const events = backlog(merchant.tenantId);
  const store = fileStore(dir, { encryptionKey });
  await store.open();
  if (together) await Promise.all(events.map((event) => store.append(event)));
  else for (const event of events) await store.append(event);
  await store.close();
  return { merchant, events };
}

function deliver(
  merchant: { apiKey: string; signingSecret: string; tenantId: string },
  store: ReturnType<typeof fileStore>,
) {
  const client = new LoyaltyClient({
    baseUrl: url,
    apiKey: merchant.apiKey,
    signingSecret: merchant.signingSecret,
  });
  clients.push(client);
  return createOutbox({ client, store, defaultTenantId: merchant.tenantId });
}

/** Starts an outbox on the encrypted journal as found, sends what it holds, and closes it. */
async function deliverAll(merchant: Parameters<typeof deliver>[0], encryptionKey: Uint8Array) {
  const store = fileStore(dir, { encryptionKey });
  const outbox = deliver(merchant, store);
  await outbox.start();
  const stats = await outbox.flush();
  await outbox.close();
  return { store, stats };
}

/** Every file of the store's directory, by name, with its bytes. */
async function filesOf(path: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const name of await readdir(path)) files.set(name, await readFile(join(path, name)));
  return files;
}

async function hashes(path: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, bytes] of await filesOf(path))
    out[name] = createHash('sha256').update(bytes).digest('hex');
  return out;
}

/** Offsets of each frame in an encrypted journal (header: 38 bytes). */
function frameOffsets(journal: Buffer): number[] {
  const offsets: number[] = [];
  for (let at = 38; at + 8 <= journal.length; at += 8 + journal.readUInt32LE(at)) offsets.push(at);
  return offsets;
}

/** Key id of each frame of an encrypted journal: the first 8 bytes of its body. */
function recordKeyIds(journal: Buffer): string[] {
  return frameOffsets(journal).map((at) => journal.subarray(at + 8, at + 16).toString('hex'));
}

describe('fileStore with an encryptionKey', () => {
  it('holds no phone number, name or invoice id in any of its files, and the outbox delivers every event once after a restart', async () => {
    const secret = key();
    const { merchant, events } = await writeBacklog(secret, { together: true });

    const files = await filesOf(dir);
    expect([...files.keys()]).toEqual(['outbox.journal']);
    for (const [name, bytes] of files) {
      for (const text of secrets())
        expect(bytes.includes(Buffer.from(text)), `${text} in ${name}`).toBe(false);
    }

    const outbox = deliver(merchant, fileStore(dir, { encryptionKey: secret.toString('base64') }));
    await outbox.start();
    const stats = await outbox.flush();
    await outbox.close();
    expect(stats).toMatchObject({ delivered: events.length, pending: 0, parked: 0, dead: 0 });
    for (const event of events) {
      expect(emulator.events({ eventId: event.eventId })).toEqual([
        expect.objectContaining({ outcome: 'processed', status: 200 }),
      ]);
    }
    expect(emulator.merchant(merchant.tenantId).invoices).toHaveLength(CUSTOMERS);
    // After the drain and its records (attempts, deletions), still nothing readable.
    for (const [name, bytes] of await filesOf(dir)) {
      for (const text of secrets())
        expect(bytes.includes(Buffer.from(text)), `${text} in ${name}`).toBe(false);
    }
  });

  it('shows the same customers in plain text without a key (the search above can find them)', async () => {
    await writeBacklog(undefined);
    const journal = (await filesOf(dir)).get('outbox.journal')!;
    expect(secrets().every((text) => journal.includes(Buffer.from(text)))).toBe(true);
  });

  it('refuses to start with a wrong key, or without one, and changes no file', async () => {
    const secret = key();
    const { merchant } = await writeBacklog(secret);
    const before = await hashes(dir);
    const wrong = key();

    for (const encryptionKey of [wrong, [wrong], undefined]) {
      const outbox = deliver(merchant, fileStore(dir, { encryptionKey }));
      const refusal = await outbox.start().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refusal).toBeInstanceOf(OutboxStoreError);
      expect(refusal).toMatchObject({ code: 'ENCRYPTION_KEY_MISMATCH' });
      const shown = `${(refusal as Error).message} ${(refusal as Error).stack} ${JSON.stringify(refusal)}`;
      for (const k of [secret, wrong]) {
        expect(shown).not.toContain(k.toString('base64'));
        expect(shown).not.toContain(k.toString('hex'));
      }
      await outbox.close();
      expect(await hashes(dir)).toEqual(before);
    }
    expect(emulator.events({ tenantId: merchant.tenantId })).toEqual([]);
  });

  it.each([
    ['a flipped byte', false],
    ['a flipped byte under a recomputed checksum (a tampered disk)', true],
  ])('sets aside a record with %s, reports it, and delivers every other event', async (_, fixCrc) => {
    const secret = key();
    const { merchant, events } = await writeBacklog(secret);
    const path = join(dir, 'outbox.journal');
    const journal = await readFile(path);
    // The 6th record: a CustomerSynced in the middle of the journal; flip a ciphertext byte.
    const at = frameOffsets(journal)[5]!;
    const length = journal.readUInt32LE(at);
    journal.writeUInt8(journal.readUInt8(at + 38) ^ 0x01, at + 38);
    if (fixCrc) journal.writeUInt32LE(crc32(journal.subarray(at + 8, at + 8 + length)), at + 4);
    await writeFile(path, journal);

    const damage: unknown[] = [];
    const store = fileStore(dir, { encryptionKey: secret, onDamage: (info) => damage.push(info) });
    const outbox = deliver(merchant, store);
    await outbox.start();
    const stats = await outbox.flush();
    await outbox.close();

    expect(damage).toEqual([expect.objectContaining({ lostRecords: 1 })]);
    expect(store.stats().lostRecords).toBe(1);
    const kept = (await readdir(dir)).filter((name) => name.includes('.damaged-'));
    expect(kept).toHaveLength(1);
    const lost = events[5]!;
    expect(lost.envelope.eventType).toBe('CustomerSynced');
    expect(emulator.events({ eventId: lost.eventId })).toEqual([]);
    for (const event of events.filter((e) => e !== lost)) {
      expect(emulator.events({ eventId: event.eventId })).toHaveLength(1);
    }
    // The invoice of the lost customer is answered by the service (its customer is unknown); all
    // others credited.
    expect(stats.pending).toBe(0);
    expect(stats.delivered + stats.parked + stats.dead).toBe(events.length - 1);
  });

  it('loses only the records sealed with a damaged chunk, in one stretch, and delivers every other event once', async () => {
    const secret = key();
    const { merchant, events } = await writeBacklog(secret, { together: true });
    const path = join(dir, 'outbox.journal');
    const journal = await readFile(path);
    // The first write holds the first event alone; the second the rest, in chunks of a few.
    const offsets = frameOffsets(journal);
    expect(offsets.length).toBeGreaterThan(3);
    expect(offsets.length).toBeLessThan(events.length / 2);
    const at = offsets[2]!;
    journal.writeUInt8(journal.readUInt8(at + 38) ^ 0x01, at + 38);
    await writeFile(path, journal);

    const { store } = await deliverAll(merchant, secret);
    expect(store.stats().lostRecords).toBe(1);
    const delivered = events.map((event) => emulator.events({ eventId: event.eventId }).length);
    expect(delivered.every((count) => count <= 1)).toBe(true);
    const lost = delivered.flatMap((count, i) => (count === 0 ? [i] : []));
    // A run of neighbours (one chunk): more than one, and no more than a chunk holds.
    expect(lost.length).toBeGreaterThan(1);
    expect(lost.at(-1)! - lost[0]!).toBe(lost.length - 1);
    const chunkBytes = lost.reduce(
      (sum, i) => sum + 4 + encodeBody({ op: 'put', event: events[i]! }).length,
      1,
    );
    expect(chunkBytes).toBeLessThanOrEqual(SEALED_CHUNK_BYTES);
  });

  it('opens a journal written by earlier builds, which sealed each record alone', async () => {
    const secret = key();
    const events = backlog('tenant-a').slice(0, 3);
    const cipher = new RecordCipher([secret]);
    const journalId = newJournalId();
    const frames = events.map((event, i) =>
      frameBody(cipher.seal(encodeBody({ op: 'put', event }), journalId, i + 1)),
    );
    await writeFile(
      join(dir, 'outbox.journal'),
      Buffer.concat([encryptedHeader(journalId, cipher.primaryId), ...frames]),
    );

    const store = fileStore(dir, { encryptionKey: secret });
    const { events: opened } = await store.open();
    await store.close();
    expect(store.stats().lostRecords).toBe(0);
    expect(opened).toEqual(events);
  });

  it('sets aside a record moved to another place of the journal (replayed) as damage', async () => {
    const secret = key();
    const { merchant, events } = await writeBacklog(secret);
    const path = join(dir, 'outbox.journal');
    const journal = await readFile(path);
    const offsets = frameOffsets(journal);
    // Swap the 2nd and 3rd records: both frames stay intact, their numbers now run backwards.
    const [a, b, c] = [offsets[1]!, offsets[2]!, offsets[3]!];
    const swapped = Buffer.concat([
      journal.subarray(0, a),
      journal.subarray(b, c),
      journal.subarray(a, b),
      journal.subarray(c),
    ]);
    await writeFile(path, swapped);

    const { store } = await deliverAll(merchant, secret);
    expect(store.stats().lostRecords).toBe(1);
    expect(emulator.events({ eventId: events[1]!.eventId })).toEqual([]);
    expect(emulator.events({ eventId: events[2]!.eventId })).toHaveLength(1);
  });

  it('rewrites every record under the new key at the compaction after a rotation; the old key then opens nothing', async () => {
    const [oldKey, newKey] = [key(), key()];
    const { merchant, events } = await writeBacklog(oldKey);
    const oldId = recordKeyIds(await readFile(join(dir, 'outbox.journal')))[0]!;
    expect(new Set(recordKeyIds(await readFile(join(dir, 'outbox.journal'))))).toEqual(new Set([oldId]));

    // The rotation: the new key first, the old one still given; start() compacts.
    const rotated = fileStore(dir, { encryptionKey: [newKey, oldKey.toString('base64')] });
    await rotated.open();
    expect(rotated.stats().compactions).toBeGreaterThanOrEqual(1);
    await rotated.close();
    // Compaction seals the live records in chunks: fewer frames than events, none under the old key.
    const ids = recordKeyIds(await readFile(join(dir, 'outbox.journal')));
    expect(ids.length).toBeGreaterThan(1);
    expect(ids.length).toBeLessThan(events.length);
    expect(ids).not.toContain(oldId);

    const withOldOnly = fileStore(dir, { encryptionKey: oldKey });
    await expect(withOldOnly.open()).rejects.toMatchObject({ code: 'ENCRYPTION_KEY_MISMATCH' });

    const outbox = deliver(merchant, fileStore(dir, { encryptionKey: newKey }));
    await outbox.start();
    expect(await outbox.flush()).toMatchObject({ delivered: events.length, pending: 0 });
    await outbox.close();
  });

  it('keeps every record written while the compactions it triggers run', async () => {
    const secret = key();
    const store = fileStore(dir, { encryptionKey: secret, compactAfterBytes: 1 });
    await store.open();
    const events = backlog('tenant-a');
    // Appends and removals race the compactions they trigger.
    await Promise.all(
      events.map(async (event, i) => {
        await store.append(event);
        if (i % 4 !== 0) await store.remove([event.eventId]);
      }),
    );
    await store.close();
    const { compactions } = store.stats();
    const reopened = fileStore(dir, { encryptionKey: secret });
    const snapshot = await reopened.open();
    await reopened.close();
    expect(compactions).toBeGreaterThan(1);
    expect(reopened.stats().lostRecords).toBe(0);
    expect(snapshot.events.map((event) => event.eventId)).toEqual(
      events.filter((_, i) => i % 4 === 0).map((event) => event.eventId),
    );
  });

  it('encrypts a plain journal it is given a key for, at start()', async () => {
    const { events } = await writeBacklog(undefined);
    const secret = key();
    const store = fileStore(dir, { encryptionKey: secret });
    expect((await store.open()).events).toHaveLength(events.length);
    await store.close();
    const journal = await readFile(join(dir, 'outbox.journal'));
    for (const text of secrets()) expect(journal.includes(Buffer.from(text))).toBe(false);
    await expect(fileStore(dir).open()).rejects.toMatchObject({ code: 'ENCRYPTION_KEY_MISMATCH' });
  });

  it('refuses a key that is not 32 bytes, naming the option and never the key', () => {
    const short = randomBytes(16);
    for (const encryptionKey of [short, short.toString('base64'), [key(), 'not base64!']]) {
      let refusal: unknown;
      try {
        fileStore(dir, { encryptionKey });
      } catch (err) {
        refusal = err;
      }
      expect(refusal).toMatchObject({ code: 'INVALID_OPTIONS' });
      expect(JSON.stringify((refusal as { issues?: unknown }).issues)).toMatch(/encryptionKey/);
      expect(`${(refusal as Error).message}${JSON.stringify(refusal)}`).not.toContain(
        short.toString('base64'),
      );
    }
  });
});

describe('RecordCipher', () => {
  it('seals every frame with a nonce of its own, and opens each back', () => {
    const cipher = new RecordCipher([key()]);
    const journalId = randomBytes(16);
    const body = Buffer.from('{"op":"put"}');
    const nonces = new Set<string>();
    for (let frameNo = 1; frameNo <= 1_000; frameNo++) {
      const sealed = Buffer.from(cipher.seal(body, journalId, frameNo));
      nonces.add(sealed.subarray(KEY_ID_BYTES + 4, KEY_ID_BYTES + 16).toString('hex'));
      expect(cipher.open(sealed, journalId)).toEqual({ kind: 'record', frameNo, body });
    }
    expect(nonces.size).toBe(1_000);
  });
});
