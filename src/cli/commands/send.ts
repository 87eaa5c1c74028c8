import type { SendOptions } from '../../client/send-types.js';
import type { InboundEventType, PayloadInput } from '../../contract/index.js';
import { withoutUndefined } from '../../contract/merge-defaults.js';
import { integerFlag, requiredFlag, switchFlags, valueFlags } from '../args.js';
import { CLIENT_ENV, CLIENT_FLAGS, clientFromEnv } from '../client-env.js';
import { describeSendError } from '../describe-error.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { createStyle, INPUT_LIMIT_BYTES, plural, readPayload } from '../io.js';
import { replayNote, replayOf } from '../send/replay.js';
import { defineCommand } from './command.js';

const HELP = `Usage: loyalty-partner send <eventType> --payload <file | -> [options]

Builds, signs and posts one event with the SDK's LoyaltyClient: the payload is validated by the
contract first, and retried like any client send (same eventId on every attempt).

Environment:
  ${CLIENT_ENV.baseUrl}        the service's address, e.g. the URL \`loyalty-partner emulate\` prints
  ${CLIENT_ENV.apiKey}         the API key issued at activation
  ${CLIENT_ENV.signingSecret}  the signing secret (or --secret-file)

Options:
  --payload <file | ->      the payload JSON (required); - reads standard input
  --event-id <uuid v7>      resend an event under its first eventId (default: a new one)
  --correlation-id <guid>   the envelope's correlationId
  --occurred-at <iso>       when it happened, e.g. 2026-11-20T09:13:20Z (default: now)
  --secret-file <path>      file with one signing secret per line (several while rotating; at most
                            64 KiB; a space, tab or carriage return around a secret is refused)
  --max-bytes <n>           read at most this many bytes of the payload (default 1048576, 1 MiB)
  --no-retry                one attempt only
  --json                    print the result (or the error) as one JSON object on stdout
  -h, --help                show this help

Prints the eventId, HTTP status, attempts, correlationId and the service's answer. The API key and
the secret are never printed.

Exit codes: 0 accepted; 1 refused by the service; 2 usage error or refused locally (the field
paths at fault are printed, nothing was sent); 3 no answer, or the service stayed unavailable
(send it again later with --event-id).`;

export const sendCommand = defineCommand({
  name: 'send',
  summary: 'post one signed event to the service (LOYALTY_BASE_URL, ...)',
  help: HELP,
  flags: {
    ...valueFlags('payload', 'event-id', 'correlation-id', 'occurred-at', 'max-bytes'),
    ...CLIENT_FLAGS,
    ...switchFlags('json'),
  },
  async run({ values, positionals, io }) {
    const [eventType, extra] = positionals;
    if (eventType === undefined) throw new UsageError('send: name the event type, e.g. send InvoiceEarned');
    if (extra !== undefined) throw new UsageError(`send: unexpected argument ${JSON.stringify(extra)}`);
    const payloadPath = requiredFlag('send', '--payload <file | ->', values.payload);
    const maxBytes = integerFlag('max-bytes', values['max-bytes'], 'bytes') ?? INPUT_LIMIT_BYTES;
    const payload = await readPayload(io, payloadPath, maxBytes);
    const client = await clientFromEnv(io, values);
    const options: SendOptions = withoutUndefined({
      eventId: values['event-id'],
      correlationId: values['correlation-id'],
      occurredAt: values['occurred-at'],
    });
    const style = createStyle(io);
    try {
      // The contract judges the name and the payload: the CLI passes them on as given.
      const { eventId, status, attempts, correlationId, body } = await client.send(
        eventType as InboundEventType,
        payload as PayloadInput<InboundEventType>,
        options,
      );
      if (values.json) {
        io.stdout.write(`${JSON.stringify({ eventType, eventId, status, attempts, correlationId, body })}\n`);
      } else {
        const replay = values['event-id'] === undefined ? undefined : await replayOf(io, eventId);
        const word = replay === true ? 'replayed' : 'accepted';
        io.stdout.write(
          `${style.green(word)}: ${eventType} eventId ${eventId} (HTTP ${status}, ` +
            `${plural(attempts, 'attempt')}, correlationId ${correlationId ?? 'none'})\n` +
            `${JSON.stringify(body)}\n`,
        );
        if (replay !== undefined) io.stdout.write(`${replayNote(replay)}\n`);
      }
      return EXIT.ok;
    } catch (err) {
      const report = describeSendError(err);
      if (!report) throw err;
      if (values.json) io.stdout.write(`${JSON.stringify({ eventType, ...report.json })}\n`);
      io.stderr.write(`${createStyle(io, 'stderr').red('error')}: ${report.line}\n`);
      return report.exit;
    } finally {
      await client.close();
    }
  },
});
