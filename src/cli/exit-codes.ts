/**
 * Exit codes of the `loyalty-partner` command, documented in its `--help` and the README.
 * Scripts branch on them: 3 means "try again later", 1 means "something must change first".
 */
export const EXIT = {
  /** The command did what was asked. */
  ok: 0,
  /** The operation failed: a signature did not verify, or the service refused the event. */
  failed: 1,
  /** The command line or the environment is wrong (unknown flag, missing secret, unreadable file). */
  usage: 2,
  /** The service could not be reached or stayed unavailable: retry later. */
  unavailable: 3,
  /** A bug in the CLI itself. */
  internal: 70,
} as const;

/** One of the exit codes above. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Thrown for a command line or environment the user must fix; printed as one line, exit 2. */
export class UsageError extends Error {
  // A literal, not `constructor.name`: minifiers rename classes.
  override get name(): 'UsageError' {
    return 'UsageError';
  }
}
