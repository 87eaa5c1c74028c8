import { run } from './signature.mjs';
const r = await run();
for (const s of r.sections) { console.log(s.title); for (const row of s.rows) console.log(' ', row.name.padEnd(50), Math.round(row.opsPerSec), (row.spread*100).toFixed(1)+'%'); }
console.log(r.goals, r.ratios);
