import { CONTROL_BASE_PATH } from '../../testing/control/control-api.js';
import { switchFlags } from '../args.js';
import { DEMO_DAY } from '../demo/demo-day.js';
import { startDemoWorld } from '../demo/demo-world.js';
import { runSteps } from '../demo/step-runner.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { createStyle } from '../io.js';
import { watchShutdown } from '../shutdown.js';
import { defineCommand } from './command.js';

const HELP = `Usage: loyalty-partner demo

Plays a point-of-sale day against a local Loyalty service, in this process and on loopback only:
the emulator, a webhook receiver (createReceiver + createNodeListener) and the SDK's LoyaltyClient,
each on a free port. Every step checks what it expects and prints what happened:

  activation and the first signed event (queued webhooks delivered and verified), syncs of a
  branch (confirmed by the merchant), a customer, a product and a coupon, earns by points and by
  stamps with the balance after each, a coupon used, a 503 retried by the client (onRetry), a
  duplicate eventId answered from the service's cache, an outbound event type refused, a rule
  change delivered as a verified webhook, and a paused integration retried until it resumes.

Nothing keeps running afterwards (unless --ui), and no key or secret is printed.

Options:
  --ui         keep the emulator running after the day and print the address of its dashboard
               (merchants, ledger, events and webhooks, the merchant's buttons) until Ctrl+C
  -h, --help   show this help

Exit codes: 0 every step behaved as expected; 1 a step deviated (what differed is printed).`;

export const demoCommand = defineCommand({
  name: 'demo',
  summary: 'play a POS day against a local emulator, checking every step',
  help: HELP,
  flags: switchFlags('ui'),
  async run({ values, positionals, io }) {
    if (positionals.length > 0) throw new UsageError(`demo: unexpected argument ${positionals[0]}`);
    const style = createStyle(io);
    const write = (text: string) => void io.stdout.write(text);
    const world = await startDemoWorld();
    let outcome: Awaited<ReturnType<typeof runSteps>>;
    try {
      write(`${style.bold('loyalty-partner demo')}: a POS day against a local Loyalty service\n`);
      write(`  service (emulator)  ${world.emulatorUrl}\n`);
      write(`  partner receiver    ${world.receiverUrl}\n\n`);
      outcome = await runSteps(DEMO_DAY, world, write, style);
      if (values.ui) {
        const shutdown = watchShutdown(io);
        write(
          `\nDashboard: ${style.cyan(`${world.emulatorUrl}${CONTROL_BASE_PATH}/`)} (the day's merchant, ledger, events and webhooks)\n` +
            'The emulator keeps running for it; Ctrl+C stops.\n',
        );
        write(`${await shutdown.requested}: stopping\n`);
        shutdown.dispose();
      }
    } finally {
      await world.close();
    }
    const total = DEMO_DAY.length;
    if (outcome.failed.length === 0) {
      write(
        `\n${style.pass} ${style.green(`all ${total} steps behaved as expected`)}; everything is closed\n`,
      );
      return EXIT.ok;
    }
    write(
      `\n${style.fail} ${style.red(`${outcome.failed.length} of ${total} steps deviated`)}: ${outcome.failed.join('; ')}\n`,
    );
    return EXIT.failed;
  },
});
