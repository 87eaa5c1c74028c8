import { CONTROL_BASE_PATH } from '../../testing/control/control-api.js';
import type { ShippableEventType } from '../../testing/emulator-api.js';
import { createEmulator, EmulatorError, type FaultKind, type MerchantOptions } from '../../testing/index.js';
import {
  type Flags,
  integerFlag,
  type ParsedCommandArgs,
  rateFlag,
  repeatableFlags,
  switchFlags,
  valueFlags,
} from '../args.js';
import { CLIENT_ENV } from '../client-env.js';
import { type EmulateConfig, readEmulateConfig, writeEmulateConfig } from '../emulate/emulate-config.js';
import { EMULATE_DEFAULTS } from '../emulate/emulate-defaults.js';
import { createTrafficLog } from '../emulate/traffic-log.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { createStyle } from '../io.js';
import { watchShutdown } from '../shutdown.js';
import { defineCommand } from './command.js';

const HELP = `Usage: loyalty-partner emulate [options]

Runs a local emulator of the Loyalty service (loyalty-partner-sdk/testing) until SIGINT (Ctrl+C)
or SIGTERM, with one activated merchant (or those of --config). Logs each request it answers and
each webhook attempt it makes, one line each. A dashboard for a person is served at
<url>${CONTROL_BASE_PATH}/, and the merchant's actions at <url>${CONTROL_BASE_PATH}/... (the
\`merchant\`, \`branch\`, \`rule\`, \`ship\`, \`faults\` and \`latency\` commands call them).

It prints the merchant's API key and signing secret: they are this local test emulator's own
test credentials, valid nowhere else, and printing them is the point (export them for
\`loyalty-partner send\`, \`backfill\` or your till). Never run it with real credentials.
To keep the same credentials across restarts, pass --write-config once, then --config.

Options:
  --config <file>          a JSON file: credentials, merchants, branches, rules, shipped handlers,
                           latency and faults (see the README, "The emulator from the command line")
  --write-config <file>    write the config this run uses, with its credentials, for --config later
  --port <n>               TCP port (default ${EMULATE_DEFAULTS.port}; 0 picks a free one)
  --host <h>               interface to bind (default ${EMULATE_DEFAULTS.host}, loopback only)
  --allow-host <name>      a Host name the control interface answers besides localhost, IP
                           addresses and --host, e.g. a Compose service name (repeatable; default
                           none: a web page on another name cannot drive the emulator)
  --receiver-url <url>     your webhook receiver: deliveries start after the first signed event
                           (without it they stay queued)
  --tenant-id <id>         the merchant's tenant id, sent as X-TenantId (default merchant-1)
  --auto-confirm-branches  confirm branch pairings as BranchSynced creates them
  --branch <id>            a confirmed branch pairing the merchant already has (repeatable)
  --ship <EventType>       ship a Planned handler, e.g. InvoiceRefunded (repeatable)
  --latency <ms>           answer every partner request after this many milliseconds
  --faults <kind,...>      inject faults, e.g. CONCURRENCY_CONFLICT,reset
  --fault-rate <0..1>      probability a request is faulted (default 1)
  --fault-seed <n>         seed of the fault draws (default 1)
  --history-limit <n>      newest requests, ledger entries, invoices and cached answers kept
                           (default ${EMULATE_DEFAULTS.historyLimit}): memory stays flat however long it runs
  -h, --help               show this help

Exit codes: 0 stopped cleanly; 2 usage error (bad flag or config, port in use).`;

/** Why the emulator cannot listen, said as a usage error where the flags are at fault. */
function listenError(err: NodeJS.ErrnoException, host: string, port: number): unknown {
  if (err.code === 'EADDRINUSE')
    return new UsageError(`port ${port} is in use: pass --port 0 for a free one`);
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'EACCES' || err.code === 'ENOTFOUND')
    return new UsageError(`cannot listen on ${host}:${port} (${err.code})`);
  return err;
}

type Values = ParsedCommandArgs<typeof FLAGS>['values'];

const FLAGS = {
  ...valueFlags('config', 'write-config', 'port', 'host'),
  ...repeatableFlags('allow-host'),
  ...valueFlags('receiver-url', 'tenant-id'),
  ...switchFlags('auto-confirm-branches'),
  ...repeatableFlags('branch', 'ship'),
  ...valueFlags('latency', 'faults', 'fault-rate', 'fault-seed', 'history-limit'),
} satisfies Flags;

/** The config file with the flags laid over it: flags win. */
function merge(file: EmulateConfig, values: Values): EmulateConfig {
  const config: EmulateConfig = { ...file };
  config.port = integerFlag('port', values.port, 'a TCP port') ?? config.port;
  if ((config.port ?? 0) > 65_535) throw new UsageError('--port must be at most 65535');
  if (values.host !== undefined) config.host = values.host;
  if (values['allow-host']) config.allowedHosts = [...(config.allowedHosts ?? []), ...values['allow-host']];
  if (values['receiver-url'] !== undefined) config.receiverUrl = values['receiver-url'];
  if (values['auto-confirm-branches']) config.autoConfirmBranches = true;
  config.latencyMs = integerFlag('latency', values.latency, 'milliseconds') ?? config.latencyMs;
  config.historyLimit = integerFlag('history-limit', values['history-limit'], 'items') ?? config.historyLimit;
  if (values.ship) config.ship = [...(config.ship ?? []), ...values.ship];
  if (values.faults !== undefined) {
    const kinds = values.faults.split(',').map((kind) => kind.trim()) as FaultKind[];
    const rate = rateFlag('fault-rate', values['fault-rate']);
    const seed = integerFlag('fault-seed', values['fault-seed'], 'a seed');
    config.faults = { kinds, rate, seed };
  } else if (values['fault-rate'] !== undefined || values['fault-seed'] !== undefined) {
    throw new UsageError('--fault-rate and --fault-seed need --faults <kind,...>');
  }
  const [first, ...rest]: MerchantOptions[] = config.merchants?.length ? config.merchants : [{}];
  const branches = (values.branch ?? []).map((externalBranchId) => ({ externalBranchId, confirmed: true }));
  config.merchants = [
    {
      ...first,
      ...(values['tenant-id'] !== undefined && { tenantId: values['tenant-id'] }),
      ...(branches.length > 0 && { branches: [...(first?.branches ?? []), ...branches] }),
    },
    ...rest,
  ];
  return config;
}

export const emulateCommand = defineCommand({
  name: 'emulate',
  summary: 'run a local Loyalty service (emulator) with a dashboard, and log its traffic',
  help: HELP,
  flags: FLAGS,
  async run({ values, positionals, io }) {
    if (positionals.length > 0) throw new UsageError(`emulate: unexpected argument ${positionals[0]}`);
    const config = merge(values.config ? await readEmulateConfig(values.config) : {}, values);
    const port = config.port ?? EMULATE_DEFAULTS.port;
    const host = config.host ?? EMULATE_DEFAULTS.host;
    const style = createStyle(io);
    const shutdown = watchShutdown(io);
    const emulator = wrap(() =>
      createEmulator({
        receiverUrl: config.receiverUrl,
        latencyMs: config.latencyMs,
        historyLimit: config.historyLimit ?? EMULATE_DEFAULTS.historyLimit,
      }),
    );
    try {
      const created = wrap(() => {
        const autoConfirmBranches = config.autoConfirmBranches ?? false;
        const merchants = (config.merchants ?? [{}]).map((options) => ({
          options,
          merchant: emulator.createMerchant({ autoConfirmBranches, ...options }),
        }));
        for (const eventType of config.ship ?? []) emulator.shipHandler(eventType as ShippableEventType);
        if (config.faults) emulator.injectFaults(config.faults);
        return merchants;
      });
      const allowedHosts = config.allowedHosts ?? [];
      const { url } = await emulator.listen({ port, host, allowedHosts }).catch((err) => {
        throw listenError(err, host, port);
      });
      if (values['write-config']) {
        await writeEmulateConfig(values['write-config'], {
          ...config,
          merchants: created.map(({ options, merchant }) => ({
            ...options,
            tenantId: merchant.tenantId,
            apiKey: merchant.apiKey,
            signingSecret: merchant.signingSecret,
          })),
        });
      }
      io.stdout.write(
        `${style.bold('Loyalty emulator')} (a local test double of the Loyalty service) on ${style.cyan(url)}\n` +
          `Dashboard: ${style.cyan(`${url}${CONTROL_BASE_PATH}/`)}\n\n`,
      );
      for (const { merchant } of created) {
        const m = emulator.merchant(merchant.tenantId);
        io.stdout.write(
          `Merchant ${merchant.tenantId}, ${m.connection === 'NeverActivated' ? 'not activated' : 'activated'}. Its test credentials, ${values.config ? 'from the config' : 'generated by this emulator'}, valid nowhere else:\n` +
            `  export ${CLIENT_ENV.baseUrl}=${url}\n` +
            `  export ${CLIENT_ENV.apiKey}=${merchant.apiKey}\n` +
            `  export ${CLIENT_ENV.signingSecret}=${merchant.signingSecret}\n` +
            (m.branches.length > 0
              ? `Branches: ${m.branches.map((b) => `${b.externalBranchId} (${b.confirmed ? 'confirmed' : 'awaiting confirmation'})`).join(', ')}\n`
              : ''),
        );
      }
      io.stdout.write(
        (config.receiverUrl || created.some(({ options }) => options.receiverUrl)
          ? 'Webhooks go to the receiver once the first signed event arrives.\n'
          : 'Webhooks stay queued: no --receiver-url.\n') +
          (values['write-config']
            ? `Config written to ${values['write-config']}: --config reuses it.\n`
            : '') +
          'Logging every request and webhook attempt; Ctrl+C or SIGTERM stops.\n\n',
      );
      // One write per flush, not per line: a pipe or a terminal costs a system call per write.
      let pending = '';
      const log = createTrafficLog(emulator, (line) => (pending += `${line}\n`), style);
      const flush = () => {
        log.flush();
        if (pending) io.stdout.write(pending);
        pending = '';
      };
      const timer = setInterval(flush, EMULATE_DEFAULTS.logIntervalMs);
      const reason = await shutdown.requested;
      clearInterval(timer);
      flush();
      io.stdout.write(`${reason}: stopping\n`);
      await emulator.close();
      flush();
      io.stdout.write('stopped\n');
      return EXIT.ok;
    } finally {
      shutdown.dispose();
      await emulator.close();
    }
  },
});

// The emulator refuses bad options with INVALID_OPTIONS: for the CLI that is a usage error.
function wrap<T>(make: () => T): T {
  try {
    return make();
  } catch (err) {
    if (err instanceof EmulatorError && err.code !== 'UNKNOWN_TENANT') throw new UsageError(err.message);
    throw err;
  }
}
