import { readFile, writeFile } from 'node:fs/promises';
import * as z from 'zod/mini';
import { sdkErrorMap } from '../../contract/issue-message.js';
import type { FaultOptions, MerchantOptions } from '../../testing/index.js';
import { onFile, UsageError } from '../exit-codes.js';

const text = z.string();
const nonEmpty = z.string().check(z.minLength(1));
const flag = z.optional(z.boolean());

const branch = z.strictObject({
  externalBranchId: nonEmpty,
  name: z.optional(text),
  confirmed: flag,
});

const merchant = z.strictObject({
  tenantId: z.optional(nonEmpty),
  apiKey: z.optional(text),
  signingSecret: z.optional(text),
  receiverUrl: z.optional(text),
  autoConfirmBranches: flag,
  activated: flag,
  externalStoreId: z.optional(text),
  branches: z.optional(z.array(branch)),
  // Checked by createMerchant itself, which names the field at fault.
  rules: z.optional(z.record(z.string(), z.unknown())),
});

/** The JSON file of `emulate --config` (flags win over it); zod/mini, as everywhere, keeps the CLI light. */
const configSchema = z.strictObject({
  port: z.optional(z.int().check(z.minimum(0), z.maximum(65_535))),
  host: z.optional(text),
  allowedHosts: z.optional(z.array(text)),
  receiverUrl: z.optional(text),
  autoConfirmBranches: flag,
  latencyMs: z.optional(z.number().check(z.minimum(0), z.maximum(60_000))),
  historyLimit: z.optional(z.int().check(z.positive())),
  ship: z.optional(z.array(text)),
  faults: z.optional(
    z.strictObject({
      kinds: z.array(text).check(z.minLength(1)),
      rate: z.optional(z.number()),
      seed: z.optional(z.number()),
      times: z.optional(z.number()),
      endpoints: z.optional(z.array(text)),
    }),
  ),
  merchants: z.optional(z.array(merchant)),
});

/** What `emulate` runs with, once the file and the flags are merged. */
export type EmulateConfig = Omit<z.infer<typeof configSchema>, 'merchants' | 'faults'> & {
  merchants?: MerchantOptions[];
  faults?: FaultOptions;
};

/** Reads and checks a config file; every problem is one `UsageError` line naming the field. */
export async function readEmulateConfig(path: string): Promise<EmulateConfig> {
  const text = await onFile(path, () => readFile(path, 'utf8'));
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = configSchema.safeParse(json, { error: sdkErrorMap });
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`,
    );
    throw new UsageError(`${path}: ${problems.join('; ')}`);
  }
  return parsed.data as EmulateConfig;
}

/** Writes the config a restart needs to come back the same, owner-only: it holds (test) credentials. */
export async function writeEmulateConfig(path: string, config: EmulateConfig): Promise<void> {
  await onFile(path, () => writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 }), 'write');
}
