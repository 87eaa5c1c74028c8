import type { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';

/** One subcommand of `loyalty-partner`. */
export interface Command {
  readonly name: string;
  /** One line for the top-level help. */
  readonly summary: string;
  /** The full `--help` text. */
  readonly help: string;
  run(argv: readonly string[], io: CliIo): Promise<ExitCode>;
}
