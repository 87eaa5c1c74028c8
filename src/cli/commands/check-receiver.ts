import { writeFile } from 'node:fs/promises';
import { type CheckReceiverReport, checkReceiver } from '../../testing/check-receiver.js';
import { switchFlags, valueFlags } from '../args.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { type CliIo, createStyle } from '../io.js';
import { junitReport } from '../junit-report.js';
import { receiverFlags, timerFlag } from '../receiver-flags.js';
import { defineCommand } from './command.js';

const HELP = `Usage: loyalty-partner check-receiver <url> --secret-file <path> [options]

Sends the contract's delivery cases to your running webhook receiver (any language), signed as
the Loyalty service signs, and grades each answer: authentic deliveries of every outbound type,
redeliveries and concurrent copies, raw bytes a JSON library would re-serialise differently,
the matching v1 first, in the middle, last and among other schemes, tampered and wrongly signed
bodies, each kind of header damage, timestamps just inside and just outside the 300 s tolerance
on both sides, a body that is not JSON, and how fast each answer came. Each answer is read for
--timeout-ms and up to 1 MiB (decoded) at most: an answer that goes on or trickles in fails.

Options:
  --secret-file <path>  file holding the tenant's signing secret (required; one final newline allowed)
  --tenant <id>         X-TenantId to send (default tenant-check)
  --slow-ms <ms>        flag answers slower than this (default 5000; 0 to 2147483647)
  --timeout-ms <ms>     give up on one request, its answer included, after this long
                        (default 10000; 1 to 2147483647)
  --json                print { cases: [{ name, expected, observed, pass, id, fix }], passed,
                        failed } (fix: what to change, on a failed case the receiver answered)
  --junit <path>        also write a JUnit XML report, for CI
  -h, --help            show this help

Point it at a test deployment: the cases are real, signed deliveries of sample events.
The secret is never printed, and a URL with a user name or password is refused. Exit codes: 0 every case passed; 1 a case failed; 2 usage error;
3 the receiver never answered (down or hanging).`;

function printCase(io: CliIo, result: CheckReceiverReport['cases'][number]): void {
  const style = createStyle(io);
  io.stdout.write(
    result.pass || result.fix === undefined
      ? `${result.pass ? style.pass : style.fail}  ${result.name}  ${style.dim(result.observed)}\n`
      : `${style.fail}  ${result.name}\n      expected ${result.expected}; observed ${result.observed}\n      fix: ${result.fix}\n`,
  );
}

export const checkReceiverCommand = defineCommand({
  name: 'check-receiver',
  summary: "grade your webhook receiver (any language) against the contract's delivery cases",
  help: HELP,
  flags: { ...switchFlags('json'), ...valueFlags('secret-file', 'tenant', 'slow-ms', 'timeout-ms', 'junit') },
  async run({ values, positionals, io }) {
    const [target, extra] = positionals;
    if (extra !== undefined)
      throw new UsageError(`check-receiver: unexpected argument ${JSON.stringify(extra)}`);
    if (target === undefined)
      throw new UsageError('check-receiver: give the receiver URL, e.g. http://127.0.0.1:3000/webhooks');
    const receiver = await receiverFlags('check-receiver', io, target, values);
    const slowMs = timerFlag('slow-ms', values['slow-ms'], 0) ?? 5000;
    if (!values.json) {
      io.stdout.write(
        `Checking ${receiver.url} as tenant ${receiver.tenantId} (answers slower than ${slowMs} ms are flagged)\n\n`,
      );
    }
    const report = await checkReceiver({
      ...receiver,
      slowMs,
      ...(!values.json && { onResult: (result) => printCase(io, result) }),
    });
    if (values.junit !== undefined)
      await writeFile(values.junit, junitReport(report, `check-receiver ${receiver.url}`));
    if (values.json) {
      io.stdout.write(`${JSON.stringify(report)}\n`);
    } else {
      const style = createStyle(io);
      const failed = report.failed === 0 ? '0 failed' : style.red(`${report.failed} failed`);
      io.stdout.write(`\n${style.green(`${report.passed} passed`)}, ${failed}\n`);
    }
    if (report.failed === 0) return EXIT.ok;
    const answered = report.cases.some((result) => /\bHTTP \d{3}\b/.test(result.observed));
    return answered ? EXIT.failed : EXIT.unavailable;
  },
});
