import { type InboundEnvelope, LoyaltyNetworkError } from 'loyalty-partner-sdk';
import { createOutbox, memoryStore } from 'loyalty-partner-sdk/outbox';
import { afterEach, describe, expect, it, vi } from 'vitest';

/*
 * The reconnect window, step by step on a fake clock: a scripted link that gives no answer while
 * it is down, and `Math.random` pinned, so every time below is exact and no run can differ.
 * (`reconnect-fleet.test.ts` shows the same on loopback with real outboxes and the emulator.)
 */

const WINDOW_MS = 10_000;
const RETRY_DELAY_MS = 1_000;
/** How long each scripted attempt takes. */
const CALL_MS = 100;
const EVENTS = 12;

interface Call {
  readonly eventId: string;
  readonly startedAt: number;
  /** Attempts of the tenant already under way when this one started. */
  readonly alongside: number;
  endedAt: number;
  answered: boolean;
}

/** A link that answers only while `up`; every attempt is noted. */
function scriptedLink() {
  const link = { up: false, calls: [] as Call[], sendEnvelope };
  let under = 0;
  async function sendEnvelope(envelope: InboundEnvelope) {
    const call: Call = {
      eventId: envelope.eventId,
      startedAt: performance.now(),
      alongside: under,
      endedAt: 0,
      answered: false,
    };
    link.calls.push(call);
    under += 1;
    await new Promise((resolve) => setTimeout(resolve, CALL_MS));
    under -= 1;
    call.endedAt = performance.now();
    if (!link.up) {
      throw new LoyaltyNetworkError(
        { code: 'NETWORK_ERROR', attempts: 1, eventId: envelope.eventId },
        'reset',
      );
    }
    call.answered = true;
    return { status: 202, attempts: 1 };
  }
  return link;
}

async function outageThenReturn(reconnectWindowMs: number, outageMs: number) {
  const link = scriptedLink();
  const outbox = createOutbox({
    client: link,
    store: memoryStore(),
    reconnectWindowMs,
    retryDelayMs: RETRY_DELAY_MS,
  });
  await outbox.start();
  for (let i = 0; i < EVENTS; i++) {
    await outbox.enqueue('BranchSynced', {
      externalBranchId: `branch-${i}`,
      name: `Shop ${i}`,
      isActive: true,
    });
  }
  await vi.advanceTimersByTimeAsync(outageMs);
  const upAt = performance.now();
  link.up = true;
  // Long enough for the slowest retry without a window (maxRetryDelayMs: 5 minutes).
  await vi.advanceTimersByTimeAsync(6 * 60_000);
  const { pending, delivered } = outbox.stats();
  await outbox.close();
  const firstNoAnswer = Math.min(...link.calls.filter((call) => !call.answered).map((call) => call.endedAt));
  const probe = link.calls.find((call) => call.answered)!;
  return { calls: link.calls, upAt, firstNoAnswer, probe, pending, delivered };
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function fakeClockAndRandom(random: number): void {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  });
  vi.spyOn(Math, 'random').mockReturnValue(random);
}

describe('reconnectWindowMs after an outage longer than the window', () => {
  it.each([0.1, 0.45, 0.9])(
    'sends one attempt at a time while offline, once per window at its own point of it (random %s), and drains everything once when its probe is answered',
    async (random) => {
      fakeClockAndRandom(random);
      const { calls, upAt, firstNoAnswer, probe, pending, delivered } = await outageThenReturn(
        WINDOW_MS,
        10 * 60_000,
      );

      // Once an attempt went unanswered, the tenant's attempts never overlap, up to the drain.
      const single = calls.filter(
        (call) => call.startedAt >= firstNoAnswer && call.startedAt <= probe.startedAt,
      );
      expect(single.length).toBeGreaterThan(10);
      expect(single.every((call) => call.alongside === 0)).toBe(true);
      // Its first probe after retryDelayMs plus its point of the window; then one per window, on
      // that point, however long the outage: the return finds each tenant anywhere in its window.
      expect(single[0]!.startedAt).toBe(firstNoAnswer + RETRY_DELAY_MS + Math.floor(random * WINDOW_MS));
      for (let i = 1; i < single.length; i++) {
        expect(single[i]!.startedAt - single[i - 1]!.startedAt).toBe(WINDOW_MS);
      }
      // The probe is the first attempt after the return, and alone.
      expect(probe.startedAt).toBeGreaterThanOrEqual(upAt - CALL_MS);
      expect(probe.startedAt - upAt).toBeLessThan(WINDOW_MS);
      // Then the rest of the queue goes at once, together, each event delivered once.
      const after = calls.filter((call) => call.startedAt > probe.startedAt);
      expect(after).toHaveLength(EVENTS - 1);
      expect(after.every((call) => call.answered && call.startedAt === probe.endedAt)).toBe(true);
      expect(new Set([probe, ...after].map((call) => call.eventId)).size).toBe(EVENTS);
      expect({ pending, delivered }).toEqual({ pending: 0, delivered: EVENTS });
    },
  );

  it('with reconnectWindowMs: 0 keeps every lane retrying offline and drains as soon as one is answered', async () => {
    fakeClockAndRandom(0.5);
    const { calls, firstNoAnswer, probe, pending, delivered } = await outageThenReturn(0, 10 * 60_000);

    expect(calls.some((call) => call.startedAt > firstNoAnswer && call.alongside > 0)).toBe(true);
    const after = calls.filter((call) => call.answered && call !== probe);
    // No hold: the rest goes as soon as its retry is cut short by the first answer.
    expect(Math.min(...after.map((call) => call.startedAt))).toBeLessThanOrEqual(probe.endedAt);
    expect({ pending, delivered }).toEqual({ pending: 0, delivered: EVENTS });
  });

  it('after an outage shorter than the window, the queue drains as soon as its probe is answered', async () => {
    fakeClockAndRandom(0.9);
    // The first round's attempts end unanswered at CALL_MS; the link is back before the window.
    const { calls, probe, pending, delivered } = await outageThenReturn(WINDOW_MS, WINDOW_MS / 2);

    const after = calls.filter((call) => call.startedAt > probe.startedAt);
    expect(after[0]!.startedAt).toBe(probe.endedAt);
    expect({ pending, delivered }).toEqual({ pending: 0, delivered: EVENTS });
  });
});
