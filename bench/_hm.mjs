import { createHmac, createHash, timingSafeEqual, createSecretKey } from 'node:crypto';
import { BODY, SECRET } from './fixtures.mjs';
const t = '1763630000';
const key = Buffer.from(SECRET);
const ipad = Buffer.alloc(64, 0x36), opad = Buffer.alloc(64, 0x5c);
for (let i = 0; i < key.length; i++) { ipad[i] ^= key[i]; opad[i] ^= key[i]; }
const inner = createHash('sha256').update(ipad), outer = createHash('sha256').update(opad);
const ko = createSecretKey(key);
const A = () => createHmac('sha256', SECRET).update(`${t}.`).update(BODY).digest();
const B = () => outer.copy().update(inner.copy().update(`${t}.`).update(BODY).digest()).digest();
const C = () => createHmac('sha256', ko).update(`${t}.`).update(BODY).digest();
console.log(A().equals(B()), A().equals(C()));
const N = 100000;
for (let r = 0; r < 6; r++) {
  const res = [];
  for (const f of [A, B, C]) { const s = performance.now(); for (let i = 0; i < N; i++) f(); res.push(((performance.now()-s)*1000/N).toFixed(3)); }
  console.log(res.join(' '));
}
const cache = new Map();
const keyOf = (s) => { let k = cache.get(s); if (!k) { k = createSecretKey(Buffer.from(s)); cache.set(s, k); } return k; };
const D = () => createHmac('sha256', keyOf(SECRET)).update(`${t}.`).update(BODY).digest();
for (let r = 0; r < 6; r++) {
  const res = [];
  for (const f of [A, D]) { const s = performance.now(); for (let i = 0; i < N; i++) f(); res.push(((performance.now()-s)*1000/N).toFixed(3)); }
  console.log('A D', res.join(' '));
}
