import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { exitCodeLines } from '../../src/cli/run-cli.js';
import { runBin } from './bin.js';
import { cli } from './run.js';

const NAMES = [
  'demo',
  'emulate',
  'merchant',
  'branch',
  'rule',
  'ship',
  'faults',
  'latency',
  'send',
  'backfill',
  'outbox',
  'inbox',
  'dashboard',
  'doctor',
  'sign',
  'verify',
  'check-receiver',
  'trigger',
];
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('loyalty-partner --help (the built bin)', () => {
  it('lists every command with its summary, the exit codes and NO_COLOR', async () => {
    expect(COMMANDS.map((c) => c.name)).toEqual(NAMES);
    const { code, stdout } = await runBin(['--help']);
    expect(code).toBe(0);
    for (const command of COMMANDS)
      expect(stdout).toMatch(new RegExp(`\\n {2}${command.name} +${escapeRegExp(command.summary)}\\n`));
    expect(stdout).toContain(`Exit codes:\n${exitCodeLines()}\n`);
    expect(exitCodeLines()).toMatch(
      /^ {2}0 {3}done\n {2}1 {3}the operation failed[\s\S]*\n {2}2 {3}usage error[\s\S]*\n {2}3 {3}the service[\s\S]*unreachable[\s\S]*\n {2}70 {2}internal error/,
    );
    expect(stdout).toContain('NO_COLOR=1 turns colours off.');
  });

  it.each(NAMES)('prints the help of %s, with its exit codes, and exits 0', async (name) => {
    for (const flag of ['--help', '-h']) {
      // In-process: the built binary's help is shown by `help <name>` below, one process per command.
      const { code, stdout, stderr } = await cli([name, flag]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toMatch(new RegExp(`^Usage: loyalty-partner ${name}`));
      expect(stdout).toMatch(/Exit codes: 0 /);
    }
  });

  it.each(NAMES)('prints the help of %s for `help %s`, the same text as --help', async (name) => {
    const { code, stdout, stderr } = await runBin(['help', name]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe(`${COMMANDS.find((c) => c.name === name)!.help}\n`);
  });

  it.each(NAMES)('names in the help of %s every flag it takes, and no other', (name) => {
    const command = COMMANDS.find((c) => c.name === name)!;
    const inHelp = new Set([...command.help.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1]));
    const declared = new Set([...Object.keys(command.flags), 'help']);
    expect([...inHelp].filter((flag) => !declared.has(flag!))).toEqual([]);
    expect([...declared].filter((flag) => !inHelp.has(flag))).toEqual([]);
  });

  it.each(['--version', '-v'])('prints the package version for %s and exits 0', async (flag) => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(await runBin([flag])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('answers an unknown flag in one line with the closest valid one, exit 2', async () => {
    const { code, stdout, stderr } = await runBin(['send', 'BranchSynced', '--payload-file', 'x.json']);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toBe(
      'error: send: unknown flag --payload-file; did you mean --payload? (see loyalty-partner send --help)\n',
    );
  });

  it('answers an unknown command with the closest one, exit 2', async () => {
    const { code, stderr } = await runBin(['sned']);
    expect(code).toBe(2);
    expect(stderr).toBe('error: unknown command "sned"; did you mean send? (see loyalty-partner --help)\n');
    expect((await runBin(['help', 'verfy'])).stderr).toContain('did you mean verify?');
  });

  it('names nothing when no flag is close, and says a flag without its value needs one', async () => {
    expect((await runBin(['sign', '--zzzzzz'])).stderr).toBe(
      'error: sign: unknown flag --zzzzzz (see loyalty-partner sign --help)\n',
    );
    const missing = await runBin(['verify', '--header']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^error: verify: --header needs a value .*\(see loyalty-partner verify --help\)\n$/,
    );
  });
});
