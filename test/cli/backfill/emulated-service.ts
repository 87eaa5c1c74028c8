import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator } from 'loyalty-partner-sdk/testing';
import { afterAll, beforeAll } from 'vitest';

/**
 * What a backfill suite sends to: an emulator listening while the suite runs, a temporary folder
 * for its files, and a fresh merchant per case with the environment that sends as it.
 */
export function emulatedService(prefix: string) {
  const emulator = createEmulator();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let url = '';
  beforeAll(async () => {
    ({ url } = await emulator.listen());
  });
  afterAll(() => emulator.close());
  /** A fresh merchant, so that each case sees only its own events, and `LOYALTY_*` naming it. */
  const merchantEnv = (tenantId: string) => {
    const { apiKey, signingSecret } = emulator.createMerchant({ tenantId });
    return {
      tenantId,
      env: { LOYALTY_BASE_URL: url, LOYALTY_API_KEY: apiKey, LOYALTY_SIGNING_SECRET: signingSecret },
    };
  };
  /** Writes `content` to `name` in the folder and returns its path. */
  const file = (name: string, content: string | Uint8Array) => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  };
  return { emulator, dir, merchantEnv, file };
}
