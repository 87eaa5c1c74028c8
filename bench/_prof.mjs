import { verifySignature, signPayload } from 'loyalty-partner-sdk/signature';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { BODY, SECRET } from './fixtures.mjs';
const t = Math.floor(Date.now()/1000);
const header = signPayload(BODY, SECRET, { timestamp: t });
const hex = header.slice(header.indexOf('v1=') + 3);
const N = 300000;
function floor() { const mac = createHmac('sha256', SECRET).update(`${t}.`).update(BODY).digest(); return timingSafeEqual(mac, Buffer.from(hex, 'hex')); }
for (let r = 0; r < 5; r++) {
  let s = performance.now(); for (let i = 0; i < N; i++) verifySignature(BODY, header, SECRET); const a = performance.now() - s;
  s = performance.now(); for (let i = 0; i < N; i++) floor(); const b = performance.now() - s;
  console.log('sdk', (a*1000/N).toFixed(3), 'floor', (b*1000/N).toFixed(3), 'ratio', (b/a).toFixed(3));
}
