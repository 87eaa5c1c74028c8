import { describe, expect, it } from 'vitest';
import { cli } from '../run.js';
import { emulatedService } from './emulated-service.js';

const { emulator, merchantEnv, file } = emulatedService('send-rows-');

function branchesCsv(name: string, count: number): string {
  const rows = Array.from({ length: count }, (_, i) => `b-${i + 1},Branch ${i + 1},true`);
  return file(name, ['externalBranchId,name,isActive', ...rows, ''].join('\n'));
}

describe('backfill sending (in process, against an emulator)', () => {
  it('finds the row the service refused by sending the rows one by one, and sends the others', async () => {
    const { tenantId, env } = merchantEnv('refusing');
    // The batch event and its clock-corrected retry, then the first row and its retry, are judged
    // by a clock 10 minutes ahead: 401 SIGNATURE_EXPIRED, which is about that event only.
    emulator.injectFaults({ kinds: ['clock-skew'], times: 4, endpoints: ['events'] });
    try {
      const result = await cli(['backfill', 'branches', branchesCsv('three.csv', 3)], { env });
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        /: 3 rows read, 2 sent, 1 failed\nfailed rows:\n {2}line 2: the service refused/,
      );
      expect(result.stdout).toContain('SIGNATURE_EXPIRED (HTTP 401) after 2 attempts. check-clock: ');
    } finally {
      emulator.clearFaults();
    }
    expect(
      emulator
        .merchant(tenantId)
        .branches.map((b) => b.externalBranchId)
        .sort(),
    ).toEqual(['b-2', 'b-3']);
  });

  it('stops at a refusal every row would share (the integration disabled) and reports each row not sent', async () => {
    const { tenantId, env } = merchantEnv('disabled');
    emulator.setStatus(tenantId, 'Disabled');
    const before = emulator.events().length;
    const result = await cli(['backfill', 'branches', branchesCsv('two.csv', 2)], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      ': 2 rows read, 0 sent, 2 failed\n  stopped: the service refused the event: ',
    );
    expect(result.stdout).toContain(
      'line 2: not sent: the service refused the event: INTEGRATION_NOT_CONNECTED',
    );
    expect(result.stdout).toContain('line 3: not sent: ');
    expect(emulator.events()).toHaveLength(before + 1);
  });

  it('exits 3 when the service is unavailable, naming what to do', async () => {
    const { tenantId, env } = merchantEnv('paused');
    emulator.pause(tenantId);
    const result = await cli(['backfill', 'branches', branchesCsv('paused.csv', 2), '--no-retry'], { env });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain(
      '  stopped: the service stayed unavailable: INTEGRATION_PAUSED (HTTP 503)',
    );
  });

  it('ends with rows sent, rows/s and the time left, as a line without a terminal and a bar on one', async () => {
    emulator.shipHandler('BranchesSyncedBatch');
    const plain = await cli(['backfill', 'branches', branchesCsv('many.csv', 1200)], {
      env: merchantEnv('many').env,
    });
    expect(plain.code).toBe(0);
    // A fast backfill ends before the first five seconds: one line, the last.
    expect(plain.stderr).toMatch(/^backfill: 1,200 rows sent, 100%, [\d,]+ rows\/s, ETA 0:00\n$/);
    const terminal = await cli(['backfill', 'branches', branchesCsv('tty.csv', 1200)], {
      env: { ...merchantEnv('tty').env, NO_COLOR: '1' },
      tty: true,
    });
    // Each redraw ends with ESC [K, which clears what a longer line before left behind.
    expect(terminal.stderr.endsWith('\u001b[K\n')).toBe(true);
    expect(terminal.stderr).toMatch(/\r#{24} 1,200 rows sent, 100%, [\d,]+ rows\/s, ETA 0:00.\[K\n$/);
  });

  it('reads standard input when given -, with --format', async () => {
    const result = await cli(['backfill', 'customers', '-', '--format', 'jsonl', '--dry-run'], {
      stdin: '{"externalCustomerId":"c-1","phone":"+966500000001"}\n',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'PASS backfill customers from -: 1 row read, 0 sent, 0 failed\n  dry run: 1 valid row, nothing sent\n',
    );
  });
});
