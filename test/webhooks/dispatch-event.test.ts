import {
  createReceiver,
  type InboxKey,
  type InboxStore,
  memoryInbox,
  type ReceiverFailure,
} from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { bodyOf, outboundEvent, SECRET, signedDelivery } from './support/deliveries.js';

/**
 * The two kinds of store the receiver must treat alike: one answering with promises (a
 * database), one answering at once (memory), whose failures are throws rather than rejections.
 */
const KINDS = [
  ['an async', 'async'],
  ['a synchronous', 'sync'],
] as const;
type Kind = (typeof KINDS)[number][1];

/** A memory inbox whose calls are recorded and whose methods can be made to fail. */
function recordingInbox(kind: Kind, fail: Partial<Record<keyof InboxStore, Error>> = {}) {
  const inner = memoryInbox();
  const calls: string[] = [];
  const step =
    <K extends 'begin' | 'complete' | 'release'>(name: K) =>
    (key: InboxKey) => {
      calls.push(`${name} ${key.tenantId} ${key.eventType}`);
      const answer = () => {
        if (fail[name]) throw fail[name];
        return inner[name](key);
      };
      return kind === 'async' ? Promise.resolve().then(answer) : answer();
    };
  const inbox = { begin: step('begin'), complete: step('complete'), release: step('release') } as InboxStore;
  return { inbox, calls };
}

/** A handler's two ways to fail, as a synchronous throw or as a rejected promise. */
const failing = (kind: Kind, error: Error) =>
  kind === 'async'
    ? () => Promise.reject(error)
    : () => {
        throw error;
      };

function receiverWith(inbox: InboxStore, handler: () => unknown = () => {}) {
  const failures: ReceiverFailure[] = [];
  let runs = 0;
  const receiver = createReceiver({
    secrets: SECRET,
    inbox,
    handlers: {
      IntegrationStatusChanged: () => {
        runs++;
        return handler();
      },
    },
    onError: (err) => void failures.push(err),
  });
  return { receiver, failures, runs: () => runs };
}

describe.each(KINDS)('dispatching through %s inbox and handler', (_kind, kind) => {
  it('claims, runs, then completes, keyed by tenant and eventId', async () => {
    const { inbox, calls } = recordingInbox(kind);
    const { receiver } = receiverWith(inbox);
    await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));
    expect(calls).toEqual([
      'begin merchant-1 IntegrationStatusChanged',
      'complete merchant-1 IntegrationStatusChanged',
    ]);
  });

  it('releases the claim when the handler throws', async () => {
    const { inbox, calls } = recordingInbox(kind);
    const { receiver } = receiverWith(inbox, failing(kind, new Error('nope')));
    await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));
    expect(calls.map((call) => call.split(' ')[0])).toEqual(['begin', 'release']);
  });

  it('answers 503 INBOX_UNAVAILABLE without running the handler when the claim fails', async () => {
    const { inbox } = recordingInbox(kind, { begin: new Error('connection refused') });
    const { receiver, failures, runs } = receiverWith(inbox);
    const answer = await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));
    expect([answer.status, bodyOf(answer).code]).toEqual([503, 'INBOX_UNAVAILABLE']);
    expect(runs()).toBe(0);
    expect(failures[0]).toMatchObject({ code: 'INBOX_UNAVAILABLE', cause: new Error('connection refused') });
  });

  it('answers 503 INBOX_UNAVAILABLE when begin returns something that is not a claim', async () => {
    const maybe = kind === 'async' ? Promise.resolve('maybe') : 'maybe';
    const inbox: InboxStore = { begin: () => maybe as never, complete() {}, release() {} };
    const { receiver, runs } = receiverWith(inbox);
    const answer = await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));
    expect(bodyOf(answer).code).toBe('INBOX_UNAVAILABLE');
    expect(runs()).toBe(0);
  });

  it('still answers 200 when the handled event cannot be recorded, since running it again would be worse', async () => {
    const { inbox } = recordingInbox(kind, { complete: new Error('disk full') });
    const { receiver, failures } = receiverWith(inbox);
    const answer = await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));
    expect(answer.status).toBe(200);
    expect(failures.map((err) => err.code)).toEqual(['INBOX_UNAVAILABLE']);
  });

  it('answers 500 HANDLER_FAILED and tells onError twice when the claim of a failed handler cannot be released', async () => {
    const { inbox } = recordingInbox(kind, { release: new Error('disk full') });
    const { receiver, failures } = receiverWith(inbox, failing(kind, new Error('nope')));
    const answer = await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));
    expect(bodyOf(answer).code).toBe('HANDLER_FAILED');
    expect(failures.map((err) => err.code)).toEqual(['INBOX_UNAVAILABLE', 'HANDLER_FAILED']);
  });
});
