import { codedError } from '../../contract/errors.js';
import { codeError } from '../../internal/code-error.js';
import { CONTROL_BASE_PATH } from '../../testing/control/control-api.js';
import { CLIENT_ENV } from '../client-env.js';
import { UsageError } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { EMULATE_DEFAULTS } from './emulate-defaults.js';

/** The control interface's answer to an action it refused: the emulator's own code and message. */
export class ControlRefusal extends codeError<'ControlRefusal', string>('ControlRefusal') {}

export class EmulatorUnreachable extends codedError('EmulatorUnreachable') {
  readonly code = 'EMULATOR_UNREACHABLE' as const;
}

/** Talks to a running emulator's control interface (`/__emulator/...`). */
export interface ControlClient {
  call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T>;
  /** The tenant id given, or the only merchant's; several merchants need `--tenant-id`. */
  tenant(given: string | undefined): Promise<string>;
}

/** `--url`, else `LOYALTY_BASE_URL`, else the address `emulate` listens on by default. */
export function controlClient(io: CliIo, url: string | undefined): ControlClient {
  const base = (
    url ??
    io.env[CLIENT_ENV.baseUrl] ??
    `http://${EMULATE_DEFAULTS.host}:${EMULATE_DEFAULTS.port}`
  ).replace(/\/+$/, '');
  if (!URL.canParse(base))
    throw new UsageError(`--url must be the emulator's address, e.g. http://127.0.0.1:8787, not ${base}`);
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let response: Response;
    try {
      // Always JSON: the emulator refuses a control action sent as anything else.
      response = await fetch(`${base}${CONTROL_BASE_PATH}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? 'unreachable';
      throw new EmulatorUnreachable(
        `no emulator answers at ${base} (${cause}): start one with \`loyalty-partner emulate\`, or pass --url`,
      );
    }
    const answer = (await response.json().catch(() => null)) as { code?: string; message?: string } | null;
    if (!response.ok) {
      if (response.status === 404 && answer?.code === 'NOT_FOUND')
        throw new EmulatorUnreachable(`${base} is not a loyalty-partner emulator (no ${CONTROL_BASE_PATH})`);
      throw new ControlRefusal(answer?.code ?? `HTTP_${response.status}`, answer?.message ?? 'refused');
    }
    return answer as T;
  };
  return {
    call,
    async tenant(given) {
      if (given !== undefined) return given;
      const { merchants } = await call<{ merchants: { tenantId: string }[] }>('GET', '/state');
      if (merchants.length === 1 && merchants[0]) return merchants[0].tenantId;
      throw new UsageError(
        `the emulator has ${merchants.length} merchants (${merchants.map((m) => m.tenantId).join(', ')}): pass --tenant-id`,
      );
    },
  };
}
