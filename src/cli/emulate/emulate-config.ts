import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import type { FaultOptions, MerchantOptions } from '../../testing/index.js';
import { UsageError } from '../exit-codes.js';

const branch = z.strictObject({
  externalBranchId: z.string().min(1),
  name: z.string().optional(),
  confirmed: z.boolean().optional(),
});

const merchant = z.strictObject({
  tenantId: z.string().min(1).optional(),
  apiKey: z.string().optional(),
  signingSecret: z.string().optional(),
  receiverUrl: z.string().optional(),
  autoConfirmBranches: z.boolean().optional(),
  activated: z.boolean().optional(),
  externalStoreId: z.string().optional(),
  branches: z.array(branch).optional(),
  // Checked by createMerchant itself, which names the field at fault.
  rules: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The JSON file of `loyalty-partner emulate --config`: everything the flags set, plus fixed
 * credentials, several merchants, branches, rules, shipped handlers and faults. Flags win.
 */
const configSchema = z.strictObject({
  port: z.number().int().min(0).max(65_535).optional(),
  host: z.string().optional(),
  receiverUrl: z.string().optional(),
  autoConfirmBranches: z.boolean().optional(),
  latencyMs: z.number().min(0).max(60_000).optional(),
  historyLimit: z.number().int().positive().optional(),
  ship: z.array(z.string()).optional(),
  faults: z
    .strictObject({
      kinds: z.array(z.string()).min(1),
      rate: z.number().optional(),
      seed: z.number().optional(),
      times: z.number().optional(),
      endpoints: z.array(z.string()).optional(),
    })
    .optional(),
  merchants: z.array(merchant).optional(),
});

/** What `emulate` runs with, once the file and the flags are merged. */
export type EmulateConfig = Omit<z.infer<typeof configSchema>, 'merchants' | 'faults'> & {
  merchants?: MerchantOptions[];
  faults?: FaultOptions;
};

/** Reads and checks a config file; every problem is one `UsageError` line naming the field. */
export async function readEmulateConfig(path: string): Promise<EmulateConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = configSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(top)'}: ${issue.message}`,
    );
    throw new UsageError(`${path}: ${problems.join('; ')}`);
  }
  return parsed.data as EmulateConfig;
}

/**
 * Writes the config a restart needs to come back the same: the merchants with the credentials
 * they hold now. Readable by the owner only, as it holds (test) secrets.
 */
export async function writeEmulateConfig(path: string, config: EmulateConfig): Promise<void> {
  try {
    await writeFile(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  } catch (err) {
    throw new UsageError(`cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? 'unwritable'}`);
  }
}
