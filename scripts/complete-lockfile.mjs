// Completes package-lock.json with the optional platform packages npm left out.
//
// Why: the npm registry mirror this project is built against lacks some platform builds at the
// exact versions we use (e.g. @biomejs/cli-win32-x64@2.6.8, most @rollup/rollup-* of 4.68.x).
// npm then silently drops those optional packages from the lock, and `npm ci` refuses the lock
// as "not in sync". The entries added here carry only what npm needs to decide to skip them on
// another platform (version, os, cpu, libc, optional): `npm ci` never downloads them here.
// Run after any `npm install`: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = [
  'darwin',
  'linux',
  'win32',
  'freebsd',
  'openbsd',
  'netbsd',
  'android',
  'openharmony',
  'sunos',
  'aix',
];
const CPU = ['x64', 'arm64', 'arm', 'ia32', 'ppc64', 'riscv64', 's390x', 'loong64', 'mips64el'];

/** os, cpu and libc of a platform package, read from its name (`@rollup/rollup-linux-arm64-musl`). */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((part) => OS.includes(part));
  const cpu = parts.find((part) => CPU.includes(part));
  if (!os || !cpu) return undefined;
  const libc = parts.includes('musl') ? 'musl' : os === 'linux' ? 'glibc' : undefined;
  return { os, cpu, libc };
}

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const added = [];
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const platform = platformOf(name);
    if (lock.packages[key] || !platform || !/^\d+\.\d+\.\d+$/.test(range)) continue;
    lock.packages[key] = {
      version: range,
      cpu: [platform.cpu],
      ...(entry.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: [platform.libc] } : {}),
      optional: true,
      os: [platform.os],
    };
    added.push(`${name}@${range} (for ${location || 'the root'})`);
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(
  `complete-lockfile: ${added.length} optional platform packages added${added.length ? `:\n  ${added.join('\n  ')}` : ''}`,
);
