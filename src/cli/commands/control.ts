import { MERCHANT_CONTROL_ACTIONS } from '../../testing/control/control-api.js';
import type { FaultKind, MerchantCredentials } from '../../testing/index.js';
import type { MerchantState } from '../../testing/inspection.js';
import { type Flags, integerFlag, rateFlag, valueFlags } from '../args.js';
import { CLIENT_ENV } from '../client-env.js';
import { type ControlClient, controlClient } from '../emulate/control-client.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { type CliIo, readInput } from '../io.js';
import { type Command, defineCommand } from './command.js';

const COMMON = `  --url <url>        the running emulator (default $LOYALTY_BASE_URL, else http://127.0.0.1:8787)
  -h, --help         show this help

Exit codes: 0 done; 1 the emulator refused (unknown tenant, branch never synced, bad rule);
2 usage error; 3 no emulator answers at the URL.`;

const TENANT = `  --tenant-id <id>   the merchant (default: the emulator's only merchant)\n`;

/** `help`: down to its options (`Options:`, the shared flags and the exit codes follow). */
interface ControlSpec extends Pick<Command, 'name' | 'summary' | 'help'> {
  /** Whether it acts on one merchant (`--tenant-id`, default: the emulator's only one). */
  readonly tenant?: true;
  /** Flags besides those, and their lines in the help. */
  readonly flags?: Flags;
  readonly options?: string;
  run(args: {
    positionals: string[];
    values: Record<string, unknown>;
    io: CliIo;
    control: ControlClient;
    tenant: () => Promise<string>;
  }): Promise<void>;
}

/** A command that acts on a running emulator; the emulator's refusals become exit codes in `describeFailure`. */
function controlCommand(spec: ControlSpec): Command {
  return defineCommand({
    name: spec.name,
    summary: spec.summary,
    help: `${spec.help}\n\nOptions:\n${spec.tenant ? TENANT : ''}${spec.options ?? ''}${COMMON}`,
    flags: { ...valueFlags('url'), ...(spec.tenant && valueFlags('tenant-id')), ...spec.flags },
    async run(args) {
      const values = args.values as Record<string, unknown>;
      const control = controlClient(args.io, values.url as string | undefined);
      const tenant = () => control.tenant(values['tenant-id'] as string | undefined);
      await spec.run({ ...args, control, tenant });
      return EXIT.ok;
    },
  });
}

const describe = (m: MerchantState) =>
  `${m.tenantId}: ${m.connection}${m.paused ? ', paused' : ''} (status ${m.status}, subscription ${m.subscription})`;

export const merchantCommand = controlCommand({
  name: 'merchant',
  summary: 'act as the merchant on a running emulator (pause, resume, disable, disconnect, ...)',
  help: `Usage: loyalty-partner merchant <action> [options]

Does what the merchant does in the dashboard, on a running emulator. <action> is one of:
  ${MERCHANT_CONTROL_ACTIONS.join(', ')}
pause: requests get 503 INTEGRATION_PAUSED until resume. disable / enable / disconnect send
IntegrationStatusChanged. reconnect issues fresh credentials (printed) after a disconnect.`,
  tenant: true,
  async run({ positionals, io, control, tenant }) {
    const [action, extra] = positionals;
    if (action === undefined || !MERCHANT_CONTROL_ACTIONS.includes(action) || extra !== undefined)
      throw new UsageError(`merchant: give one action: ${MERCHANT_CONTROL_ACTIONS.join(', ')}`);
    const tenantId = await tenant();
    const answer = await control.call<{ merchant: MerchantState; credentials?: MerchantCredentials }>(
      'POST',
      `/merchants/${encodeURIComponent(tenantId)}/${action}`,
    );
    io.stdout.write(`${action}: ${describe(answer.merchant)}\n`);
    if (action === 'reconnect' && answer.credentials) {
      io.stdout.write(
        'Fresh test credentials (the old key is revoked):\n' +
          `  export ${CLIENT_ENV.apiKey}=${answer.credentials.apiKey}\n` +
          `  export ${CLIENT_ENV.signingSecret}=${answer.credentials.signingSecret}\n`,
      );
    }
  },
});

export const branchCommand = controlCommand({
  name: 'branch',
  summary: 'confirm a branch pairing on a running emulator',
  help: `Usage: loyalty-partner branch confirm <externalBranchId> [options]

Confirms a branch pairing that BranchSynced created, as the merchant does in the dashboard:
earns at that branch stop getting 400 BRANCH_MAPPING_UNCONFIRMED.`,
  tenant: true,
  async run({ positionals, io, control, tenant }) {
    const [verb, branchId, extra] = positionals;
    if (verb !== 'confirm' || branchId === undefined || extra !== undefined)
      throw new UsageError('branch: usage is `loyalty-partner branch confirm <externalBranchId>`');
    const tenantId = await tenant();
    await control.call(
      'POST',
      `/merchants/${encodeURIComponent(tenantId)}/branches/${encodeURIComponent(branchId)}/confirm`,
    );
    io.stdout.write(`branch ${branchId} of ${tenantId}: confirmed\n`);
  },
});

export const ruleCommand = controlCommand({
  name: 'rule',
  summary: 'change an earn rule or a stamp card on a running emulator',
  help: `Usage: loyalty-partner rule set <EarnRate|StampRule> <json | @file | ->

Changes a rule as the merchant does in the dashboard: the emulator bumps ruleVersion and sends
LoyaltyRuleChanged. The rule is the body of the EarnRate or StampRule of spec 2.3, e.g.
  loyalty-partner rule set EarnRate '{"methodType":"PerAmount","pointCostAmount":5,"isActive":true}'
  loyalty-partner rule set StampRule @card.json`,
  tenant: true,
  async run({ positionals, io, control, tenant }) {
    const [verb, ruleType, source, extra] = positionals;
    if (verb !== 'set' || (ruleType !== 'EarnRate' && ruleType !== 'StampRule') || !source || extra)
      throw new UsageError(
        'rule: usage is `loyalty-partner rule set <EarnRate|StampRule> <json | @file | ->`',
      );
    const text =
      source === '-' || source.startsWith('@')
        ? Buffer.from(await readInput(io, source === '-' ? '-' : source.slice(1))).toString('utf8')
        : source;
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      throw new UsageError('rule: the rule is not valid JSON');
    }
    const tenantId = await tenant();
    const { ruleVersion } = await control.call<{ ruleVersion: number | null }>(
      'POST',
      `/merchants/${encodeURIComponent(tenantId)}/rules`,
      { ruleType, payload },
    );
    io.stdout.write(
      ruleVersion === null
        ? `${ruleType} of ${tenantId}: removed (nothing is announced)\n`
        : `${ruleType} of ${tenantId}: ruleVersion ${ruleVersion}, LoyaltyRuleChanged queued\n`,
    );
  },
});

export const shipCommand = controlCommand({
  name: 'ship',
  summary: 'ship a Planned handler (CustomersSyncedBatch, InvoiceRefunded, ...) on a running emulator',
  help: `Usage: loyalty-partner ship <EventType> [options]

Deploys a Planned handler on the emulator: until then the event type gets 503
EVENT_HANDLER_NOT_REGISTERED. InvoiceRefunded also starts RefundReversalCompleted.`,
  async run({ positionals, io, control }) {
    const [eventType, extra] = positionals;
    if (eventType === undefined || extra !== undefined)
      throw new UsageError('ship: give one event type, e.g. `loyalty-partner ship CustomersSyncedBatch`');
    const { shipped } = await control.call<{ shipped: string[] }>('POST', '/ship', { eventType });
    io.stdout.write(`shipped: ${shipped.join(', ')}\n`);
  },
});

export const faultsCommand = controlCommand({
  name: 'faults',
  summary: 'inject faults into a running emulator, or clear them',
  help: `Usage: loyalty-partner faults <kind,...> [--rate <0..1>] [--seed <n>] [--times <n>] [options]
       loyalty-partner faults clear [options]

Kinds: a 503 code of the catalogue (CONCURRENCY_CONFLICT, SUBSCRIPTION_LAPSED, ...),
rate-limited, reset, timeout, clock-skew, timeout-after-processing.`,
  flags: valueFlags('rate', 'seed', 'times'),
  options: `  --rate <0..1>      probability a request is faulted (default 1)
  --seed <n>         seed of the draws (default 1)
  --times <n>        stop after this many faults
`,
  async run({ positionals, values, io, control }) {
    const [kinds, extra] = positionals;
    if (kinds === undefined || extra !== undefined)
      throw new UsageError('faults: give the kinds, comma-separated, or `clear`');
    if (kinds === 'clear') {
      await control.call('DELETE', '/faults');
      io.stdout.write('faults: none\n');
      return;
    }
    // A flag not given is undefined, which the JSON body leaves out: the emulator's default holds.
    const plan = {
      kinds: kinds.split(',').map((kind) => kind.trim()) as FaultKind[],
      rate: rateFlag('rate', values.rate as string | undefined),
      seed: integerFlag('seed', values.seed as string | undefined, 'a seed'),
      times: integerFlag('times', values.times as string | undefined, 'faults'),
    };
    await control.call('PUT', '/faults', plan);
    io.stdout.write(`faults: ${plan.kinds.join(', ')} at rate ${plan.rate ?? 1}\n`);
  },
});

export const latencyCommand = controlCommand({
  name: 'latency',
  summary: 'make a running emulator answer partner requests after a delay',
  help: `Usage: loyalty-partner latency <ms> [options]

Every partner request waits <ms> milliseconds (0 to 60000) before it is answered; 0 turns it off.`,
  async run({ positionals, io, control }) {
    const [ms, extra] = positionals;
    const latency = integerFlag('latency', ms, 'milliseconds');
    if (latency === undefined || extra !== undefined)
      throw new UsageError('latency: give milliseconds, e.g. 250');
    const { latencyMs } = await control.call<{ latencyMs: number }>('PUT', '/latency', { ms: latency });
    io.stdout.write(`latency: ${latencyMs} ms\n`);
  },
});
