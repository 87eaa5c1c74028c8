import { signPayload } from '../../platform-node/signature.js';
import { integerFlag, valueFlags } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { readSigningInput, SIGNING_FLAGS, SIGNING_HELP } from '../io.js';
import { defineCommand } from './command.js';

const HELP = `Usage: loyalty-partner sign [options] <body-file | ->

Prints the X-Signature header for a raw body, exactly as the SDK and the service compute it:
t=<unix seconds>,v1=<hex> with one v1 per secret.

Options:
${SIGNING_HELP}
  --timestamp <secs>    unix seconds to sign at (default: now)
  -h, --help            show this help

The secret is never printed. Exit codes: 0 signed, 2 usage error.`;

export const signCommand = defineCommand({
  name: 'sign',
  summary: 'print the X-Signature header for a body',
  help: HELP,
  flags: { ...SIGNING_FLAGS, ...valueFlags('timestamp') },
  async run({ values, positionals, io }) {
    const { body, secrets } = await readSigningInput(io, values, positionals[0]);
    const timestamp = integerFlag('timestamp', values.timestamp);
    io.stdout.write(`${signPayload(body, secrets, { timestamp })}\n`);
    return EXIT.ok;
  },
});
