import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEnvelope } from 'loyalty-partner-sdk';
import { fileStore, type StoredEvent } from 'loyalty-partner-sdk/outbox';
import { samplePayload } from 'loyalty-partner-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from './run.js';

let dir: string;
let events: StoredEvent[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ops-file-outbox-'));
  const store = fileStore(dir);
  await store.open();
  events = ['dead', 'parked', 'pending'].map((state, i) => {
    const envelope = createEnvelope('InvoiceEarned', {
      ...samplePayload('InvoiceEarned'),
      externalInvoiceId: `inv-${i}`,
    });
    return {
      eventId: envelope.eventId,
      tenantId: 'cafe-file',
      envelope,
      seq: i + 1,
      enqueuedAt: Date.now(),
      state: state as StoredEvent['state'],
      attempts: state === 'pending' ? 0 : 1,
      firstAttemptAt: null,
      lastError:
        state === 'pending' ? null : { code: 'STAMP_CARD_NOT_FOUND', message: 'unknown card', status: 400 },
    };
  });
  for (const event of events) await store.append(event);
  await store.close();
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('loyalty-partner outbox --file, on a file outbox no process holds', () => {
  it('lists, counts and redelivers like the Postgres one, and audits to audit.jsonl', async () => {
    const [dead, parked, pending] = events as [StoredEvent, StoredEvent, StoredEvent];
    const list = await cli(['outbox', 'list', '--file', dir, '--json']);
    expect(JSON.parse(list.stdout).map((e: StoredEvent) => e.eventId)).toEqual([dead.eventId]);
    const stats = JSON.parse((await cli(['outbox', 'stats', '--file', dir, '--json'])).stdout);
    expect(stats).toMatchObject({ pending: 1, parked: 1, dead: 1, tenants: [{ tenantId: 'cafe-file' }] });

    const act = await cli([
      'outbox',
      'redeliver',
      dead.eventId,
      parked.eventId,
      pending.eventId,
      '--file',
      dir,
      '--actor',
      'omar',
    ]);
    expect(act.code).toBe(1);
    expect(act.stdout).toMatch(
      new RegExp(`${pending.eventId}\\s+refused\\s+Cannot redeliver event \\S+: it is pending`),
    );

    const reopened = fileStore(dir);
    const snapshot = await reopened.open();
    await reopened.close();
    expect(snapshot.events.map((e) => e.state)).toEqual(['pending', 'pending', 'pending']);
    const audit = (await readFile(join(dir, 'audit.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(audit).toEqual([
      expect.objectContaining({ actor: 'omar', action: 'outbox.redeliver', target: dead.eventId }),
      expect.objectContaining({ actor: 'omar', action: 'outbox.redeliver', target: parked.eventId }),
    ]);
  });

  it('is refused, exit 3, while a process holds the outbox, naming that process', async () => {
    const running = fileStore(dir);
    await running.open();
    try {
      const { code, stderr } = await cli(['outbox', 'list', '--file', dir]);
      expect(code).toBe(3);
      expect(stderr).toContain(`is in use by process ${process.pid}`);
    } finally {
      await running.close();
    }
  });
});
