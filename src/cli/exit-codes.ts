import { codedError } from '../contract/errors.js';

/**
 * Exit codes of the `loyalty-partner` command, each explained in `EXIT_CODE_TABLE` below. Scripts
 * branch on them: 3 means "try again later", 1 means "something must change first".
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, unavailable: 3, internal: 70 } as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The one table of exit codes: the top-level `--help` prints it and the README's copy is checked
 * against it (test/docs/readme.test.ts). A command's help says which of them it uses and when.
 */
export const EXIT_CODE_TABLE: readonly { readonly code: ExitCode; readonly meaning: string }[] = [
  { code: EXIT.ok, meaning: 'done' },
  {
    code: EXIT.failed,
    meaning:
      'the operation failed (the service or a store refused it, rows failed, a demo step deviated, an invalid signature)',
  },
  {
    code: EXIT.usage,
    meaning:
      'usage error (unknown command or flag, missing secret or setting, unreadable file, a schema not migrated, a payload refused locally: nothing was done)',
  },
  {
    code: EXIT.unavailable,
    meaning: 'the service, the emulator or a store is unreachable or unavailable: retry later',
  },
  { code: EXIT.internal, meaning: 'internal error (please report it)' },
];

/** Thrown for a command line or environment the user must fix; printed as one line, exit 2. */
export class UsageError extends codedError('UsageError') {
  readonly code = 'USAGE' as const;
}

/** `work` on the file at `path`, a failure turned into a `UsageError` (`cannot read data.csv: ENOENT`). */
export async function onFile<T>(path: string, work: () => Promise<T>, verb = 'read'): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? (verb === 'read' ? 'unreadable' : 'unwritable');
    throw new UsageError(`cannot ${verb} ${path}: ${code}`);
  }
}
