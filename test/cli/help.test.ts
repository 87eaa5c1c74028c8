import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { runBin } from './bin.js';

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
    expect(stdout).toMatch(
      /Exit codes:\n {2}0 {3}done\n {2}1 {3}the operation failed[\s\S]*\n {2}2 {3}usage error[\s\S]*\n {2}3 {3}the service is unreachable[\s\S]*\n {2}70 {2}internal error/,
    );
    expect(stdout).toContain('NO_COLOR=1 turns colours off.');
  });

  it.each(NAMES)('prints the help of %s, with its exit codes, and exits 0', async (name) => {
    for (const flag of ['--help', '-h']) {
      const { code, stdout, stderr } = await runBin([name, flag]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toMatch(new RegExp(`^Usage: loyalty-partner ${name}`));
      expect(stdout).toMatch(/Exit codes: 0 /);
    }
  });

  it('says in one line which flag is unknown, with exit 2', async () => {
    const { code, stdout, stderr } = await runBin(['send', 'BranchSynced', '--payload-file', 'x.json']);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toMatch(
      /^error: send: Unknown option '--payload-file'.* \(see loyalty-partner send --help\)\n$/,
    );
  });
});
