import { createHmac, timingSafeEqual } from 'node:crypto';
import { verifySignature, signPayload, parseSignatureHeader } from 'loyalty-partner-sdk/signature';
import { BODY, SECRET } from './fixtures.mjs';
import { compare } from './harness.mjs';
const t = Math.floor(Date.now()/1000);
const header = signPayload(BODY, SECRET, { timestamp: t });
const hex = header.slice(header.indexOf('v1=') + 3);
const loop = (f) => (n) => { for (let i = 0; i < n; i++) f(); };
let sink;
const r = await compare([
  { name: 'floor', run: loop(() => timingSafeEqual(createHmac('sha256', SECRET).update(`${t}.`).update(BODY).digest(), Buffer.from(hex, 'hex'))) },
  { name: 'sdk', run: loop(() => verifySignature(BODY, header, SECRET)) },
  { name: 'parse', run: loop(() => { sink = parseSignatureHeader(header); }) },
  { name: 'now', run: loop(() => { sink = Math.floor(Date.now() / 1000); }) },
], { clock: 'cpu', rounds: 15 });
for (const x of r) console.log(x.name, Math.round(x.opsPerSec), (1e6/x.opsPerSec).toFixed(3)+'us', (x.spread*100).toFixed(1));
