import { createHmac, timingSafeEqual } from 'node:crypto';
import { verifySignature, signPayload } from 'loyalty-partner-sdk/signature';
import * as x from '../.tmp/sigx.mjs';
import { BODY, SECRET } from './fixtures.mjs';
import { compare } from './harness.mjs';
const t = Math.floor(Date.now()/1000);
const header = signPayload(BODY, SECRET, { timestamp: t });
const hex = header.slice(header.indexOf('v1=') + 3);
const loop = (f) => (n) => { for (let i = 0; i < n; i++) f(); };
const r = await compare([
  { name: 'floor', run: loop(() => timingSafeEqual(createHmac('sha256', SECRET).update(`${t}.`).update(BODY).digest(), Buffer.from(hex, 'hex'))) },
  { name: 'sdk', run: loop(() => verifySignature(BODY, header, SECRET)) },
  { name: 'x', run: loop(() => x.verifySignature(BODY, header, SECRET)) },
], { clock: 'cpu', rounds: 21 });
for (const y of r) console.log(y.name, Math.round(y.opsPerSec), (1e6/y.opsPerSec).toFixed(3)+'us', (y.spread*100).toFixed(1), (y.opsPerSec/r[0].opsPerSec).toFixed(3));
