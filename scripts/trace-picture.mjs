// `npm run build && node scripts/trace-picture.mjs`: the trace of one retried delivery, as text.
// A real run: an outbox on the built package enqueues one InvoiceEarned (its `create` span) and
// its client posts it to a node:http server on loopback that answers 503 twice, then 200. The
// spans are caught by the OpenTelemetry SDK's InMemorySpanExporter and drawn as a tree, with
// a timeline bar per span, the link from `send` to `create`, and each span's attributes.
// The README's Observability section shows its output.
import { createServer } from 'node:http';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox, memoryStore } from 'loyalty-partner-sdk/outbox';
import { samplePayload } from 'loyalty-partner-sdk/testing';

const KINDS = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
const WIDTH = 32;

let requests = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    requests += 1;
    const failing = requests <= 2;
    res.writeHead(failing ? 503 : 200, {
      'content-type': 'application/json',
      'x-correlation-id': `c-${requests}`,
    });
    res.end(failing ? '{"code":"SERVICE_UNAVAILABLE","message":"try later"}' : '{"accepted":true}');
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}`;

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const client = new LoyaltyClient({
  baseUrl,
  apiKey: 'pk_demo_key',
  signingSecret: 'whsec_demo_secret',
  retry: { baseDelayMs: 20, maxDelayMs: 40 },
  tracerProvider,
});
const outbox = createOutbox({ client, store: memoryStore(), tracerProvider, defaultTenantId: 'merchant-1' });
await outbox.start();
await outbox.enqueue('InvoiceEarned', samplePayload('InvoiceEarned'), {
  correlationId: '6f1d2c3b-4a59-4e68-9d7c-8b0a1f2e3d4c',
});
await outbox.flush();
await outbox.close();
await client.close();
server.close();

const spans = exporter.getFinishedSpans();
const ms = ([s, ns]) => s * 1e3 + ns / 1e6;
const start = Math.min(...spans.map((span) => ms(span.startTime)));
const end = Math.max(...spans.map((span) => ms(span.endTime)));
const bar = (span) => {
  const scale = WIDTH / Math.max(end - start, 1);
  const from = Math.floor((ms(span.startTime) - start) * scale);
  const to = Math.max(from + 1, Math.round((ms(span.endTime) - start) * scale));
  return `${' '.repeat(from)}${'█'.repeat(to - from)}${' '.repeat(Math.max(0, WIDTH - to))}`;
};
const label = (span) => `${span.name} [${KINDS[span.kind]}]`;
const idOf = (span) => span.spanContext().spanId;
const short = (id) => id.slice(0, 8);
const children = (parent) => spans.filter((span) => span.parentSpanContext?.spanId === parent);
const roots = spans
  .filter((span) => !span.parentSpanContext)
  .sort((a, b) => ms(a.startTime) - ms(b.startTime));

const lines = [];
const draw = (span, prefix, last, depth) => {
  const branch = depth === 0 ? '' : last ? '└─ ' : '├─ ';
  const duration = `${span.duration[0] * 1e3 + span.duration[1] / 1e6 >= 10 ? Math.round(ms(span.duration)) : ms(span.duration).toFixed(1)} ms`;
  lines.push(
    `${`${prefix}${branch}${label(span)}`.padEnd(40)} |${bar(span)}| ${duration.padStart(7)}  span ${short(idOf(span))}`,
  );
  const inner = depth === 0 ? '   ' : `${prefix}${last ? '   ' : '│  '}`;
  for (const link of span.links) lines.push(`${inner}  ↳ links to span ${short(link.context.spanId)}`);
  for (const [key, value] of Object.entries(span.attributes)) lines.push(`${inner}  ${key} = ${value}`);
  const kids = children(idOf(span)).sort((a, b) => ms(a.startTime) - ms(b.startTime));
  for (const [i, kid] of kids.entries())
    draw(kid, depth === 0 ? '' : inner, i === kids.length - 1, depth + 1);
};
for (const root of roots) draw(root, '', true, 0);
console.log(lines.join('\n'));
