/*
 * One conformance suite for real apps, judged from outside like the Loyalty service sees them:
 * signed deliveries over loopback HTTP to an app built and served the way its framework's users
 * do, and the app's own output for what it reported. Run against Express 4 and 5, Fastify, Koa,
 * NestJS and Hono on Node in `npm test`, and against Next.js, Bun, Deno and workerd in
 * `npm run test:apps`. Every app serves `appReceiver()` from fixtures/app-receiver.ts at
 * WEBHOOK_PATH, and at PARSED_PATH behind its framework's usual JSON body parser.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEnvelope } from 'loyalty-partner-sdk';
import type { AdapterOptions } from 'loyalty-partner-sdk/fetch';
import { signPayload } from 'loyalty-partner-sdk/signature';
import { samplePayload } from 'loyalty-partner-sdk/testing';
import type { Receiver } from 'loyalty-partner-sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  APP_MAX_BODY_BYTES,
  APP_SECRET,
  APP_TENANT,
  appAdapterOptions,
  appReceiver,
  PARSED_PATH,
  WEBHOOK_PATH,
} from '../fixtures/app-receiver.js';

/** A running app: where it listens, what it printed so far, and how to stop it. */
export interface RunningApp {
  origin: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * What the route behind a JSON parser does: verify anyway (the framework kept the raw bytes, or
 * the adapter keeps its own parser), or refuse with 500 `RAW_BODY_UNAVAILABLE` and a fix that
 * matches `fix` (the framework's own words).
 */
export type ParserInFront = (
  | { expect: 'verified' }
  | { expect: 'refused'; framework: string; fix: RegExp }
) & {
  /**
   * Set when the framework itself answers a body its parser refuses, before any code of the app
   * runs (Next.js pages/api with its parser on): why, for the test's name. The answer must still
   * be a 4xx, so the service does not retry it.
   */
  parserAnswersNonJson?: string;
};

interface Answer {
  status: number;
  contentType: string | null;
  body: Record<string, unknown>;
  text: string;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function event(eventType: 'IntegrationStatusChanged' | 'LoyaltyRuleChanged' = 'IntegrationStatusChanged') {
  return createEnvelope(eventType, samplePayload(eventType), { entityId: 'entity-1' });
}

function sign(rawBody: string, timestamp = nowSeconds()): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-signature': signPayload(rawBody, APP_SECRET, { timestamp }),
    'x-tenantid': APP_TENANT,
    'x-correlation-id': randomUUID(),
  };
}

async function send(url: string, rawBody: string, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(url, { method: 'POST', headers, body: rawBody });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text);
  } catch {
    // left empty: the expectations on contentType and body say what went wrong
  }
  return { status: response.status, contentType: response.headers.get('content-type'), body, text };
}

function expectEnvelope(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body.code }, answer.text.slice(0, 500)).toEqual({
    status,
    code,
  });
  expect(answer.contentType).toMatch(/^application\/json/);
  expect(Object.keys(answer.body).sort()).toEqual(['code', 'correlationId', 'message']);
}

/** The app `start` runs for the calling suite: started before its tests, stopped after them. */
function appPerSuite(start: () => Promise<RunningApp>): () => RunningApp {
  let app: RunningApp | undefined;
  beforeAll(async () => {
    app = await start();
  });
  afterAll(async () => {
    await app?.stop();
  });
  return () => {
    if (!app) throw new Error('the app starts in beforeAll');
    return app;
  };
}

export function describeAppConformance(
  name: string,
  start: () => Promise<RunningApp>,
  parserInFront: ParserInFront,
  paths: { webhook: string; parsed: string } = { webhook: WEBHOOK_PATH, parsed: PARSED_PATH },
): void {
  const { webhook: WEBHOOK, parsed: PARSED } = paths;
  describe(`${name}: the real-app conformance suite`, () => {
    const app = appPerSuite(start);
    const url = (path: string) => `${app().origin}${path}`;

    it('answers 200 handled to a valid delivery, then 200 duplicate to its redelivery', async () => {
      const rawBody = JSON.stringify(event('LoyaltyRuleChanged'));
      const headers = sign(rawBody);
      const first = await send(url(WEBHOOK), rawBody, headers);
      expect([first.status, first.body.outcome], first.text).toEqual([200, 'handled']);
      expect(first.body.correlationId).toBe(headers['x-correlation-id']);
      const again = await send(url(WEBHOOK), rawBody, headers);
      expect([again.status, again.body.outcome], again.text).toEqual([200, 'duplicate']);
    });

    it('verifies the exact bytes: spacing JSON.stringify would not reproduce, multi-byte UTF-8', async () => {
      const envelope = event();
      const rawBody = JSON.stringify({ ...envelope, note: 'مقهى ☕ ü' }, null, 3);
      const answer = await send(url(WEBHOOK), rawBody, sign(rawBody));
      expect(answer.status, answer.text).toBe(200);
    });

    it('answers 401 INVALID_SIGNATURE to a body changed after signing', async () => {
      const rawBody = JSON.stringify(event());
      const tampered = rawBody.replace('"Enabled"', '"Disabled"');
      expect(tampered).not.toBe(rawBody);
      expectEnvelope(await send(url(WEBHOOK), tampered, sign(rawBody)), 401, 'INVALID_SIGNATURE');
    });

    it('answers 401 SIGNATURE_EXPIRED to an authentic delivery signed ten minutes ago', async () => {
      const rawBody = JSON.stringify(event());
      const answer = await send(url(WEBHOOK), rawBody, sign(rawBody, nowSeconds() - 600));
      expectEnvelope(answer, 401, 'SIGNATURE_EXPIRED');
    });

    it('answers 400 INVALID_PAYLOAD to a signed body that is not JSON', async () => {
      const rawBody = '{"eventType": "Loyalty';
      expectEnvelope(await send(url(WEBHOOK), rawBody, sign(rawBody)), 400, 'INVALID_PAYLOAD');
    });

    it('answers 413 PAYLOAD_TOO_LARGE to a body over maxBodyBytes', async () => {
      const rawBody = JSON.stringify({ ...event(), padding: 'x'.repeat(APP_MAX_BODY_BYTES * 2) });
      expectEnvelope(await send(url(WEBHOOK), rawBody, sign(rawBody)), 413, 'PAYLOAD_TOO_LARGE');
    });

    if (parserInFront.expect === 'verified') {
      it('verifies deliveries on the route behind a JSON body parser', async () => {
        const rawBody = JSON.stringify(event(), null, 2);
        const answer = await send(url(PARSED), rawBody, sign(rawBody));
        expect([answer.status, answer.body.outcome], answer.text).toEqual([200, 'handled']);
      });
    } else {
      it(`behind a JSON body parser: 500 RAW_BODY_UNAVAILABLE naming the ${parserInFront.framework} fix, onError each time, one warning`, async () => {
        for (let attempt = 0; attempt < 2; attempt++) {
          const rawBody = JSON.stringify(event());
          const answer = await send(url(PARSED), rawBody, sign(rawBody));
          expectEnvelope(answer, 500, 'RAW_BODY_UNAVAILABLE');
          expect(answer.body.message).toMatch(parserInFront.fix);
        }
        await expect
          .poll(() => count(app().output(), '[app] onError RAW_BODY_UNAVAILABLE'), { timeout: 10_000 })
          .toBe(2);
        expect(app().output()).toContain(`[app] onError RAW_BODY_UNAVAILABLE ${parserInFront.framework}`);
        const warnings = app()
          .output()
          .split('\n')
          .filter((line) => line.includes('[app] warn '));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(parserInFront.fix);
      });
    }

    const nonJson = parserInFront.parserAnswersNonJson;
    if (nonJson) {
      it(`behind a JSON body parser, a body that is not JSON gets the framework's 4xx (${nonJson})`, async () => {
        const rawBody = '<xml>not json</xml>';
        const answer = await send(url(PARSED), rawBody, sign(rawBody));
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expect(answer.status).toBeLessThan(500);
      });
      return;
    }
    it('behind a JSON body parser, answers a body that is not JSON in the contract envelope, not HTML', async () => {
      const rawBody = '<xml>not json</xml>';
      const answer = await send(url(PARSED), rawBody, sign(rawBody));
      expect(answer.contentType, answer.text.slice(0, 300)).toMatch(/^application\/json/);
      expect(Object.keys(answer.body).sort()).toEqual(['code', 'correlationId', 'message']);
      expect(['INVALID_PAYLOAD', 'RAW_BODY_UNAVAILABLE']).toContain(answer.body.code);
    });
  });
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

/**
 * A RunningApp served by node:http in this process: `wire` mounts the app receiver with the app's
 * adapter options (their log lines are the app's output) and returns the request listener.
 */
export function inProcess(
  wire: (receiver: Receiver, options: AdapterOptions) => RequestListener,
): Promise<RunningApp> {
  const lines: string[] = [];
  const server = createServer(
    wire(
      appReceiver(),
      appAdapterOptions((line) => lines.push(line)),
    ),
  );
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        output: () => lines.join('\n'),
        stop: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * The package's own example route, served as published at `path` (its secret from the
 * environment): a signed event it handles runs its handler, a body changed after signing does not.
 */
export function describeExampleRoute(name: string, start: () => Promise<RunningApp>, path: string): void {
  describe(`${name}: the example route as published`, () => {
    const app = appPerSuite(start);

    it("handles a signed IntegrationStatusChanged: 200 handled, the handler prints the merchant's status", async () => {
      const rawBody = JSON.stringify(event('IntegrationStatusChanged'));
      const answer = await send(`${app().origin}${path}`, rawBody, sign(rawBody));
      expect([answer.status, answer.body.outcome], answer.text).toEqual([200, 'handled']);
      await expect
        .poll(() => app().output().includes(`merchant ${APP_TENANT} is now Enabled`), { timeout: 10_000 })
        .toBe(true);
    });

    it('answers 401 INVALID_SIGNATURE to a body changed after signing', async () => {
      const rawBody = JSON.stringify(event());
      const tampered = rawBody.replace('"Enabled"', '"Disabled"');
      expectEnvelope(await send(`${app().origin}${path}`, tampered, sign(rawBody)), 401, 'INVALID_SIGNATURE');
    });
  });
}
