import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEnvelope } from 'loyalty-partner-sdk';
import { fileStore, type StoredEvent } from 'loyalty-partner-sdk/outbox';
import { samplePayload } from 'loyalty-partner-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from './run.js';

let dir: string;
let outboxDir: string;
let key: Buffer;
let event: StoredEvent;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ops-file-outbox-key-'));
  outboxDir = join(dir, 'outbox');
  key = randomBytes(32);
  const store = fileStore(outboxDir, { encryptionKey: key });
  await store.open();
  const envelope = createEnvelope('InvoiceEarned', samplePayload('InvoiceEarned'));
  event = {
    eventId: envelope.eventId,
    tenantId: 'kiosk-7',
    envelope,
    seq: 1,
    enqueuedAt: Date.now(),
    state: 'dead',
    attempts: 1,
    firstAttemptAt: null,
    lastError: { code: 'STAMP_CARD_NOT_FOUND', message: 'unknown card', status: 400 },
  };
  await store.append(event);
  await store.close();
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function keyFile(content: string | Buffer, mode = 0o600): Promise<string> {
  const path = join(dir, `key-${Math.random()}`);
  await writeFile(path, content);
  await chmod(path, mode);
  return path;
}

describe('loyalty-partner outbox --file --key-file, on an encrypted file outbox', () => {
  it('lists the events with the key, as base64 text or as the 32 bytes', async () => {
    for (const content of [`${key.toString('base64')}\n`, key]) {
      const listed = await cli([
        'outbox',
        'list',
        '--file',
        outboxDir,
        '--key-file',
        await keyFile(content),
        '--json',
      ]);
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout).map((e: StoredEvent) => e.eventId)).toEqual([event.eventId]);
    }
  });

  it('refuses without the key, or with another one, saying so and printing no key', async () => {
    const without = await cli(['outbox', 'list', '--file', outboxDir]);
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/encrypted.*--key-file/s);

    const other = randomBytes(32).toString('base64');
    const wrong = await cli(['outbox', 'list', '--file', outboxDir, '--key-file', await keyFile(other)]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/key not given/);
    expect(wrong.stderr + wrong.stdout).not.toContain(other);
    expect(wrong.stderr + wrong.stdout).not.toContain(key.toString('base64'));
  });

  it('refuses a key file others can read, and one that holds no key', async () => {
    const loose = await cli([
      'outbox',
      'list',
      '--file',
      outboxDir,
      '--key-file',
      await keyFile(key.toString('base64'), 0o644),
    ]);
    expect(loose.code).toBe(2);
    expect(loose.stderr).toMatch(/chmod 600/);
    expect(loose.stderr).not.toContain(key.toString('base64'));

    const notAKey = await cli([
      'outbox',
      'list',
      '--file',
      outboxDir,
      '--key-file',
      await keyFile('hunter2'),
    ]);
    expect(notAKey.code).toBe(2);
    expect(notAKey.stderr).toMatch(/holds no key/);
    expect(notAKey.stderr).not.toContain('hunter2');
  });
});
