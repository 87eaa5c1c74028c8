import { ERROR_CODES, type ErrorCode } from 'loyalty-partner-sdk';
import { memoryStore } from 'loyalty-partner-sdk/outbox';
import { describe, expect, it } from 'vitest';
import { guideWithSection } from '../docs/generated-sections.js';
import { fastOutbox, invoice, recordingHooks } from './fixtures/outbox-harness.js';
import { apiError, ok, scriptedSender } from './fixtures/scripted-sender.js';

const README = new URL('../../docs/outbox.md', import.meta.url);
const BEGIN = '<!-- outbox-table: generated from ERROR_CODES by test/outbox/readme-table.test.ts -->';
const END = '<!-- /outbox-table -->';

const OUTCOMES = {
  delivered: 'delivered (`alreadyCredited: true`): the invoice is credited already',
  retried: 'retried: the event stays at the head of its tenant’s queue',
  paused: 'pauses the tenant; its head event probes every `probeIntervalMs`',
  stopped: 'stops the tenant until `resumeTenant`',
  parked: '`parked` until `redeliver(eventId)`; the tenant’s later events go on',
  dead: '`dead` until `discard(eventId)`',
} as const;

/** What the outbox actually does when the service answers `code` once, observed, not predicted. */
async function observe(code: ErrorCode): Promise<keyof typeof OUTCOMES> {
  const recorder = recordingHooks();
  const { sender } = scriptedSender((_envelope, call) => (call === 1 ? apiError(code) : ok()));
  const outbox = fastOutbox({
    client: sender,
    store: memoryStore(),
    hooks: recorder.hooks,
    probeIntervalMs: 60_000,
  });
  await outbox.start();
  await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
  const stats = await outbox.flush();
  await outbox.close({ deadlineMs: 0 });
  if (recorder.named('onTenantPaused').length > 0) return 'paused';
  if (recorder.named('onTenantStopped').length > 0) return 'stopped';
  if (recorder.named('onRetry').length > 0) return 'retried';
  if (stats.parked === 1) return 'parked';
  if (stats.dead === 1) return 'dead';
  if (recorder.named('onDelivered').length === 1) return 'delivered';
  throw new Error(`no outcome observed for ${code}`);
}

async function renderOutboxTable(): Promise<string> {
  const rows: string[] = [];
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
    const { status, action } = ERROR_CODES[code];
    rows.push(`| \`${code}\` | ${status} | \`${action}\` | ${OUTCOMES[await observe(code)]} |`);
  }
  return [
    BEGIN,
    '| code | status | catalogue action | what the outbox does |',
    '|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
}

describe('the outbox table of docs/outbox.md', () => {
  it('is exactly what the outbox does with each code of ERROR_CODES (UPDATE_README=1 rewrites it)', async () => {
    const table = await renderOutboxTable();
    expect(guideWithSection(README, table, BEGIN, END, 'UPDATE_README')).toContain(table);
  });
});
