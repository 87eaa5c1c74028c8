import { SignatureVerificationError, verifySignature } from '../../platform-node/signature.js';
import { integerFlag, requiredFlag, valueFlags } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { createStyle, readSigningInput, SIGNING_FLAGS, SIGNING_HELP } from '../io.js';
import { defineCommand } from './command.js';

const HELP = `Usage: loyalty-partner verify --header <X-Signature> [options] <body-file | ->

Verifies a captured delivery: the raw body bytes and its X-Signature header, under the secret(s).
Prints which secret matched and how old the signature is, or why it failed: its reason code, one
of the table in docs/receiving-webhooks.md, "Verifying signatures without the receiver".

Options:
  --header <value>      the X-Signature header value (required)
${SIGNING_HELP}
  --tolerance <secs>    allowed clock difference (default 300)
  --now <secs>          judge the timestamp as of these unix seconds (default: now), e.g. the
                        time the delivery was captured
  -h, --help            show this help

The secret is never printed. Exit codes: 0 valid, 1 invalid or expired, 2 usage error.`;

export const verifyCommand = defineCommand({
  name: 'verify',
  summary: 'check a captured delivery against its X-Signature header',
  help: HELP,
  flags: { ...valueFlags('header'), ...SIGNING_FLAGS, ...valueFlags('tolerance', 'now') },
  async run({ values, positionals, io }) {
    const header = requiredFlag('verify', '--header <X-Signature value>', values.header);
    const { body, secrets } = await readSigningInput(io, values, positionals[0]);
    const toleranceSeconds = integerFlag('tolerance', values.tolerance);
    const now = integerFlag('now', values.now) ?? Math.floor(Date.now() / 1000);
    const style = createStyle(io);
    try {
      const { timestamp, secretIndex } = verifySignature(body, header, secrets, { now, toleranceSeconds });
      io.stdout.write(
        `${style.green('valid')}: secretIndex ${secretIndex} (counting from 0) of ${secrets.length} secrets matched; signed at t=${timestamp} (${now - timestamp} s before now)\n`,
      );
      return EXIT.ok;
    } catch (err) {
      if (!(err instanceof SignatureVerificationError)) throw err;
      io.stdout.write(`${style.red('invalid')}: ${err.code} (${err.reason}): ${err.message}\n`);
      return EXIT.failed;
    }
  },
});
