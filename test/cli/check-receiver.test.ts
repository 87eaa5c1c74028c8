import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type CheckReceiverReport, receiverCases } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { startPythonReceiver } from './fixtures/receivers/python-receiver.js';
import { cli } from './run.js';
import { secretDir } from './secret-dir.js';

const SECRET = 'whsec_python_receiver_0123456789';
const TENANT = 'merchant-1';
const files = secretDir('check-receiver-', SECRET);

/** Runs `check-receiver` against receiver.py doing `mistake`: its output, and the receiver's URL. */
async function runPython(mistake: string, extra: string[] = []) {
  const receiver = await startPythonReceiver({ secret: SECRET, tenant: TENANT, mistake });
  try {
    const args = ['check-receiver', receiver.url, '--secret-file', files.secretFile, '--tenant', TENANT];
    return { ...(await cli([...args, ...extra])), url: receiver.url };
  } finally {
    await receiver.stop();
  }
}

/** Runs `check-receiver --json` against receiver.py doing `mistake`, and returns the report. */
async function checkPython(mistake: string, extra: string[] = []) {
  const run = await runPython(mistake, ['--json', ...extra]);
  return { ...run, report: JSON.parse(run.stdout) as CheckReceiverReport };
}

const failedIds = (report: CheckReceiverReport) => report.cases.filter((c) => !c.pass).map((c) => c.id);

describe('check-receiver against a receiver written in Python', () => {
  it('passes every case of a correct receiver and exits 0', async () => {
    const { code, report } = await checkPython('none');
    expect(failedIds(report)).toEqual([]);
    expect(report.failed).toBe(0);
    expect(report.passed).toBe(report.cases.length);
    expect(code).toBe(0);
  });

  const REJECTIONS = [
    'tampered-body',
    'wrong-secret',
    'missing-signature',
    'malformed-signature',
    'missing-timestamp',
    'timestamp-not-digits',
    'missing-v1',
    'empty-v1',
    'v1-not-hex',
    'timestamp-301s-old',
    'timestamp-302s-ahead',
    'not-json',
  ];
  it.each([
    ['reserialize', ['raw-bytes']],
    ['first-v1-only', ['v1-middle', 'v1-last']],
    ['last-v1-only', ['v1-first', 'v1-middle']],
    ['no-tolerance', ['timestamp-301s-old', 'timestamp-302s-ahead']],
    ['past-only', ['timestamp-302s-ahead']],
    ['future-only', ['timestamp-301s-old']],
    ['tolerance-60s', ['skew-298s-old', 'skew-298s-ahead']],
    ['tolerance-240', ['skew-298s-old', 'skew-298s-ahead']],
    ['tolerance-250', ['skew-298s-old', 'skew-298s-ahead']],
    ['tolerance-310', ['timestamp-301s-old', 'timestamp-302s-ahead']],
    ['tolerance-360', ['timestamp-301s-old', 'timestamp-302s-ahead']],
    ['expired-as-invalid', ['timestamp-301s-old', 'timestamp-302s-ahead']],
    ['duplicate-409', ['duplicate-again', 'duplicate-at-once']],
    ['accepts-non-json', ['not-json']],
    ['accept-all', REJECTIONS],
  ])(
    'fails exactly the case a receiver doing %s breaks, says what to fix, and exits 1',
    async (mistake, ids) => {
      const { code, report } = await checkPython(mistake);
      expect(failedIds(report)).toEqual(ids);
      for (const failed of report.cases.filter((c) => !c.pass)) {
        const item = receiverCases.find((c) => c.id === failed.id);
        expect(failed).toMatchObject({ name: item?.name, fix: item?.fix });
        expect(failed.observed).toMatch(/HTTP \d{3}/);
      }
      expect(code).toBe(1);
    },
  );

  it('flags a receiver that answers slower than --slow-ms, naming the slow case', async () => {
    const { code, report } = await checkPython('slow', ['--slow-ms', '2000']);
    expect(failedIds(report)).toEqual(['prompt-answers']);
    const [prompt] = report.cases.filter((c) => !c.pass);
    expect(prompt).toMatchObject({
      name: 'answers every delivery within 2000 ms',
      observed: expect.stringMatching(
        /^slowest \d+ ms \(accepts an authentic LoyaltyRuleChanged delivery\); 1 of \d+ answers over 2000 ms$/,
      ),
    });
    expect(code).toBe(1);
  });

  it('prints each case, what was expected and observed, and the fix, for a person', async () => {
    const run = await runPython('expired-as-invalid');
    expect(run.stdout).toContain(
      `Checking ${run.url} as tenant merchant-1 (answers slower than 5000 ms are flagged)`,
    );
    expect(run.stdout).toMatch(
      /^PASS {2}accepts an authentic LoyaltyRuleChanged delivery {2}HTTP 200 \(\d+ ms\)$/m,
    );
    expect(run.stdout).toMatch(
      /^FAIL {2}rejects a signature 301 s old \(just outside the tolerance\) with 401 SIGNATURE_EXPIRED\n {6}expected 401 with SIGNATURE_EXPIRED in the body; observed HTTP 401 INVALID_SIGNATURE \(\d+ ms\)\n {6}fix: reject a timestamp more than 300 s old with 401 and SIGNATURE_EXPIRED in the body/m,
    );
    expect(run.stdout).toMatch(/\n24 passed, 2 failed\n$/);
    expect(run.stdout).not.toContain(SECRET);
    expect(run.code).toBe(1);
  });

  it('writes a JUnit XML report with one testcase per case and a failure for each failed one', async () => {
    const junit = join(files.dir, 'report.xml');
    await checkPython('first-v1-only', ['--junit', junit]);
    const xml = await readFile(junit, 'utf8');
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites tests="26" failures="2">/);
    expect(xml.match(/<testcase /g)).toHaveLength(26);
    expect(xml).toMatch(
      /<testcase classname="[^"]+" name="accepts several v1 values when the matching one is last">\n\s+<failure message="expected 2xx; observed HTTP 401 INVALID_SIGNATURE/,
    );
  });
});

describe('check-receiver against a receiver that does not work at all', () => {
  it('reports a receiver that answers HTML as failed cases with the status and content type, and exits 1', async () => {
    const { code, report } = await checkPython('html');
    expect(code).toBe(1);
    expect(report.cases.find((c) => c.id === 'authentic-LoyaltyRuleChanged')).toMatchObject({
      pass: false,
      observed: expect.stringMatching(/^HTTP 404 text\/html \(\d+ ms\)$/),
    });
    expect(report.cases.filter((c) => c.pass).map((c) => c.id)).toEqual(['not-json', 'prompt-answers']);
  });

  it('gives up on a receiver that never answers after two cases, bounded by --timeout-ms, and exits 3', async () => {
    const { code, report } = await checkPython('hang', ['--timeout-ms', '1000']);
    expect(report.cases.slice(0, 2).map((c) => c.observed)).toEqual([
      'no answer within 1000 ms (timed out)',
      'no answer within 1000 ms (timed out)',
    ]);
    expect(new Set(report.cases.slice(2, -1).map((c) => c.observed))).toEqual(
      new Set(['not sent: the two cases before got no answer']),
    );
    expect(report).toMatchObject({ passed: 0, failed: report.cases.length });
    expect(code).toBe(3);
  });

  it('reports a receiver that is down as connection refused, without a crash, and exits 3', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const run = await cli([
      'check-receiver',
      `http://127.0.0.1:${port}/webhooks`,
      '--secret-file',
      files.secretFile,
    ]);
    expect(run.stdout).toMatch(
      /^FAIL {2}accepts an authentic RefundReversalCompleted delivery {2}no answer: connection refused: is the receiver running at this URL\? \(ECONNREFUSED\)\nFAIL {2}accepts an authentic LoyaltyRuleChanged delivery {2}no answer: connection refused: is the receiver running at this URL\? \(ECONNREFUSED\)\nFAIL {2}accepts an authentic RedemptionExpiredOrCancelled delivery {2}not sent: the two cases before got no answer$/m,
    );
    expect(run.stdout).toMatch(/\n0 passed, 26 failed\n$/);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(3);
  });
});

describe('check-receiver usage', () => {
  it.each([
    [['check-receiver'], /give the receiver URL/],
    [['check-receiver', 'ftp://example.com'], /"ftp:\/\/example.com" is not an http\(s\) URL/],
    [['check-receiver', 'http://127.0.0.1:9/'], /--secret-file <path> is required/],
    [
      ['check-receiver', 'http://127.0.0.1:9/', '--secret-file', '/nonexistent/secret'],
      /cannot read \/nonexistent\/secret/,
    ],
  ])('refuses %j with a clear line and exit 2', async (argv, message) => {
    const run = await cli(argv);
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(2);
  });

  it.each([
    ['check-receiver', 'http://partner:s3cr3t-pass@127.0.0.1:9/webhooks'],
    ['check-receiver', 'https://partner@127.0.0.1:9/webhooks'],
    ['check-receiver', 'ftp://partner:s3cr3t-pass@127.0.0.1:9/webhooks'],
    ['trigger', 'http://partner:s3cr3t-pass@127.0.0.1:9/webhooks'],
  ])(
    '%s refuses the URL %s, which carries credentials, as a usage error without printing them',
    async (command, url) => {
      const argv =
        command === 'trigger'
          ? ['trigger', 'IntegrationStatusChanged', '--to', url, '--secret-file', files.secretFile]
          : ['check-receiver', url, '--secret-file', files.secretFile];
      const run = await cli(argv);
      expect(run.stderr).toMatch(/receiver URL|carries a user name or password/);
      expect(`${run.stdout}${run.stderr}`).not.toMatch(/s3cr3t-pass|partner/);
      expect(run.code).toBe(2);
    },
  );

  it.each([
    ['--timeout-ms', '3000000000', /--timeout-ms must be from 1 to 2147483647 milliseconds, not 3000000000/],
    ['--timeout-ms', '0', /--timeout-ms must be from 1 to 2147483647/],
    ['--slow-ms', '2147483648', /--slow-ms must be from 0 to 2147483647/],
    ['--timeout-ms', '1e4', /--timeout-ms must be a whole number of milliseconds/],
  ])('refuses %s %s, out of what a timer can wait, with exit 2', async (flag, value, message) => {
    const run = await cli([
      'check-receiver',
      'http://127.0.0.1:9/',
      '--secret-file',
      files.secretFile,
      flag,
      value,
    ]);
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(2);
    const trigger = await cli([
      'trigger',
      'IntegrationStatusChanged',
      '--to',
      'http://127.0.0.1:9/',
      '--secret-file',
      files.secretFile,
      ...(flag === '--timeout-ms' ? [flag, value] : ['--timeout-ms', '2147483648']),
    ]);
    expect(trigger.code).toBe(2);
  });

  it.each([
    ['a secret with a trailing space', 'whsec_x \n', /whitespace before or after the secret/],
    ['two final newlines', 'whsec_x\n\n', /line 2 of .* is empty/],
    ['an empty file', '', /holds no secret/],
  ])('refuses a secret file with %s, without printing the secret', async (_case, content, message) => {
    const file = join(files.dir, 'bad-secret');
    await writeFile(file, content);
    const run = await cli(['check-receiver', 'http://127.0.0.1:9/', '--secret-file', file]);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain('whsec_x');
    expect(run.code).toBe(2);
  });

  it('accepts a secret file ending in CRLF', async () => {
    await writeFile(join(files.dir, 'crlf'), `${SECRET}\r\n`);
    const receiver = await startPythonReceiver({ secret: SECRET, tenant: TENANT, mistake: 'none' });
    try {
      const run = await cli([
        'check-receiver',
        receiver.url,
        '--secret-file',
        join(files.dir, 'crlf'),
        '--tenant',
        TENANT,
        '--json',
      ]);
      expect(JSON.parse(run.stdout)).toMatchObject({ failed: 0 });
    } finally {
      await receiver.stop();
    }
  });
});
