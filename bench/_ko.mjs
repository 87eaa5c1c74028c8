import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { verifySignature, signPayload } from 'loyalty-partner-sdk/signature';
import { BODY, SECRET } from './fixtures.mjs';
import { compare } from './harness.mjs';
const t = Math.floor(Date.now()/1000);
const header = signPayload(BODY, SECRET, { timestamp: t });
const hex = header.slice(header.indexOf('v1=') + 3);
const cache = new Map();
const keyOf = (s) => { let k = cache.get(s); if (!k) { k = createSecretKey(Buffer.from(s)); cache.set(s, k); } return k; };
const loop = (f) => (n) => { for (let i = 0; i < n; i++) f(); };
const r = await compare([
  { name: 'floor', run: loop(() => timingSafeEqual(createHmac('sha256', SECRET).update(`${t}.`).update(BODY).digest(), Buffer.from(hex, 'hex'))) },
  { name: 'floorKO', run: loop(() => timingSafeEqual(createHmac('sha256', keyOf(SECRET)).update(`${t}.`).update(BODY).digest(), Buffer.from(hex, 'hex'))) },
  { name: 'sdk', run: loop(() => verifySignature(BODY, header, SECRET)) },
], { clock: 'cpu', rounds: 25 });
for (const x of r) console.log(x.name, Math.round(x.opsPerSec), (x.spread*100).toFixed(1), (x.opsPerSec / r[0].opsPerSec).toFixed(3));
