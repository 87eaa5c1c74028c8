// Runs npm scripts side by side and fails if any fails: `npm test`'s checks that do not depend on
// one another (the type check, the linter, the import-cycle check and the build) take half the
// time together that they take one after the other on a 2-core machine. Each script's output is
// printed whole when it ends, under its name, so that the logs of two steps never interleave.
//
//   node scripts/steps.mjs typecheck lint check:circles build
import { spawn } from 'node:child_process';

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  console.error('usage: node scripts/steps.mjs <npm script> [<npm script> ...]');
  process.exit(2);
}

// npm sets npm_execpath to its own CLI when it runs this script; a plain `node` call falls back
// to `npm` on the PATH.
const npm = process.env.npm_execpath;
const command = npm ? process.execPath : process.platform === 'win32' ? 'npm.cmd' : 'npm';
const prefix = npm ? [npm] : [];

/** Runs one npm script, its output kept; resolves with its exit code. */
function run(script) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, [...prefix, 'run', '-s', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: !npm && process.platform === 'win32',
    });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (err) => output.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const status = code === 0 ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`;
      process.stdout.write(`\n> ${script}: ${status} in ${seconds} s\n${Buffer.concat(output).toString()}`);
      resolve(code ?? 1);
    });
  });
}

const codes = await Promise.all(scripts.map(run));
const failed = scripts.filter((_, i) => codes[i] !== 0);
if (failed.length > 0) {
  console.error(`\n${failed.join(', ')} failed`);
  process.exit(1);
}
