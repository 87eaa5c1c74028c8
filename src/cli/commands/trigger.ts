import { isOutboundEventType, OUTBOUND_EVENT_TYPES } from '../../contract/event-types.js';
import { createEnvelope, EVENT_TYPES, LoyaltyValidationError } from '../../contract/index.js';
import { signPayload } from '../../platform-node/signature.js';
import { describeExchange, exchange } from '../../testing/receiver-exchange.js';
import { samplePayload } from '../../testing/sample-payloads.js';
import { repeatableFlags, requiredFlag, valueFlags } from '../args.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { createStyle, readPayload } from '../io.js';
import { receiverFlags } from '../receiver-flags.js';
import { defineCommand } from './command.js';

const HELP = `Usage: loyalty-partner trigger <OutboundEventType> --to <url> --secret-file <path> [options]

Sends one signed sample delivery to your receiver, as the Loyalty service would send it (same
headers, same signature, a new eventId), and prints the answer.

Event types: ${OUTBOUND_EVENT_TYPES.join(', ')}

Options:
  --to <url>            the receiver's URL (required)
  --secret-file <path>  file holding the tenant's signing secret (required; one final newline allowed)
  --tenant <id>         X-TenantId to send (default tenant-check)
  --set <field=value>   change one payload field (repeatable); a dotted path reaches nested
                        fields, the value is JSON when it parses, else a string:
                        --set status=Disabled   --set ruleVersion=5   --set payload.isActive=false
  --payload <file | ->  the whole payload as JSON instead of the sample (then --set applies on top)
  --timeout-ms <ms>     give up after this long, the answer included (default 10000;
                        1 to 2147483647); the answer is read up to 1 MiB (decoded)
  -h, --help            show this help

The payload is checked against the contract before sending. The secret is never printed, and
a URL with a user name or password is refused.
Exit codes: 0 the receiver answered 2xx; 1 it answered something else; 2 usage error;
3 no answer.`;

/** `--set a.b=value`: the value as JSON when it parses (5, false, null), else the text itself. */
function applySet(payload: Record<string, unknown>, assignment: string): void {
  const equals = assignment.indexOf('=');
  if (equals <= 0)
    throw new UsageError(`trigger: --set wants field=value, not ${JSON.stringify(assignment)}`);
  const path = assignment.slice(0, equals).split('.');
  const raw = assignment.slice(equals + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // a plain word: kept as text
  }
  let target = payload;
  for (const key of path.slice(0, -1)) {
    const next = target[key];
    if (typeof next !== 'object' || next === null) target[key] = {};
    target = target[key] as Record<string, unknown>;
  }
  target[path[path.length - 1]!] = value;
}

export const triggerCommand = defineCommand({
  name: 'trigger',
  summary: 'send your receiver one signed sample delivery, as the service would',
  help: HELP,
  flags: { ...valueFlags('to', 'secret-file', 'tenant', 'payload', 'timeout-ms'), ...repeatableFlags('set') },
  async run({ values, positionals, io }) {
    const [eventType, extra] = positionals;
    if (!isOutboundEventType(eventType)) {
      throw new UsageError(`trigger: name an outbound event type: ${OUTBOUND_EVENT_TYPES.join(', ')}`);
    }
    if (extra !== undefined) throw new UsageError(`trigger: unexpected argument ${JSON.stringify(extra)}`);
    const to = requiredFlag('trigger', '--to <receiver url>', values.to);
    const { url, secret, tenantId, timeoutMs } = await receiverFlags('trigger', io, to, values);
    const payload = (
      values.payload === undefined ? samplePayload(eventType) : await readPayload(io, values.payload)
    ) as Record<string, unknown>;
    for (const assignment of values.set ?? []) applySet(payload, assignment);
    let body: string;
    try {
      // An Integration has no id in its payload: the service names it by the merchant's tenant.
      const entityId = EVENT_TYPES[eventType].entityIdField === null ? { entityId: tenantId } : {};
      body = JSON.stringify(createEnvelope(eventType, payload as never, entityId));
    } catch (err) {
      if (err instanceof LoyaltyValidationError) throw new UsageError(`trigger: ${err.message}`);
      throw err;
    }
    const headers = {
      'content-type': 'application/json',
      'x-signature': signPayload(body, secret),
      'x-tenantid': tenantId,
      'x-correlation-id': crypto.randomUUID(),
    };
    const result = await exchange(fetch, url, { body, headers }, timeoutMs);
    const style = createStyle(io);
    io.stdout.write(`sent ${eventType} to ${url} as tenant ${tenantId}\n${body}\n`);
    if (!result.answered) {
      io.stderr.write(`${createStyle(io, 'stderr').red('error')}: ${result.problem}\n`);
      return EXIT.unavailable;
    }
    const ok = result.status >= 200 && result.status < 300;
    io.stdout.write(
      `${ok ? style.green('answered') : style.red('answered')} ${describeExchange(result)}\n${result.text}\n`,
    );
    return ok ? EXIT.ok : EXIT.failed;
  },
});
