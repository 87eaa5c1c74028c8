/**
 * The cost of observability on `client.send`: CPU time per event (lower is better) of the SDK
 * itself (envelope, validation, JSON, signing, retry loop, telemetry), with telemetry off (no
 * provider given or registered, no logger: the default) and with tracing and metrics on
 * through the OpenTelemetry SDK (every span batched to an exporter that drops it, every metric
 * aggregated). The transport is a `fetch` that answers 200 at once, in process: telemetry does
 * not touch the transport, and a loopback server's noise (5-15% between two identical clients
 * on a busy machine) would hide a 2% difference. Contenders alternate order every round.
 *
 * `BASELINE=<path of another build's dist/index.node.js>` measures "off" against that build's
 * client instead of "on": how "off" was compared with the SDK before telemetry existed
 * (README, Observability). `node bench/run.mjs telemetry`, or `node bench/telemetry.mjs`.
 */
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { samplePayload } from 'loyalty-partner-sdk/testing';
import { SECRET } from './fixtures.mjs';
import { median, spread } from './harness.mjs';

const ROUNDS = 41;
const WARMUP_ROUNDS = 5;
const SENDS_PER_ROUND = 2_000;

class DroppingReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}
const droppingExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined };
const headers = { 'content-type': 'application/json', 'x-correlation-id': 'bench' };
const fetch = async () => new Response('{"status":"accepted"}', { status: 200, headers });

function contender(name, extra, Client = LoyaltyClient) {
  const payload = samplePayload('InvoiceEarned');
  const client = new Client({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'bench-api-key',
    signingSecret: SECRET,
    fetch,
    ...extra,
  });
  return {
    name,
    client,
    samples: [],
    async round() {
      const before = process.cpuUsage();
      for (let i = 0; i < SENDS_PER_ROUND; i++) await client.send('InvoiceEarned', payload);
      const used = process.cpuUsage(before);
      return (used.user + used.system) / SENDS_PER_ROUND;
    },
  };
}

export async function run() {
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new BatchSpanProcessor(droppingExporter, { maxQueueSize: 65_536 })],
  });
  const meterProvider = new MeterProvider({ readers: [new DroppingReader()] });
  const off = contender('client.send, telemetry off (default)', {});
  // Off against the baseline build alone: the spans' garbage, collected during whichever
  // contender runs next, would otherwise land on both.
  const other = process.env.BASELINE
    ? contender('client.send, the build in BASELINE', {}, (await import(process.env.BASELINE)).LoyaltyClient)
    : contender('client.send, tracing and metrics on (OpenTelemetry SDK)', { tracerProvider, meterProvider });
  const list = [off, other];
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of round % 2 ? list : [...list].reverse()) {
      const micros = await c.round();
      if (round >= WARMUP_ROUNDS) c.samples.push(micros);
    }
  }
  await Promise.all(list.map((c) => c.client.close()));
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  const rows = list.map((c) => ({ name: c.name, value: median(c.samples), spread: spread(c.samples) }));
  const [offRow, otherRow] = rows;
  return {
    sections: [{ title: 'SDK CPU per client.send, in-process fetch (lower is better)', unit: 'µs', rows }],
    goals: [],
    ratios: process.env.BASELINE
      ? { offMicros: offRow.value, beforeMicros: otherRow.value, offVsBefore: offRow.value / otherRow.value }
      : {
          offMicros: offRow.value,
          onMicros: otherRow.value,
          tracingCostMicros: otherRow.value - offRow.value,
        },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify((await run()).ratios));
