import { type Flags, type ParsedCommandArgs, parseCommandArgs } from '../args.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';

export interface Command {
  readonly name: string;
  /** One line for the top-level help and the README's command table. */
  readonly summary: string;
  /** The full `--help` text (and `loyalty-partner help <name>`). */
  readonly help: string;
  /** The flags it takes, besides `-h, --help` (test/cli/help.test.ts checks the help names each). */
  readonly flags: Flags;
  run(argv: readonly string[], io: CliIo): Promise<ExitCode>;
}

/** A command as it is written: its words, its flags as data, and what it does. */
export interface CommandSpec<F extends Flags> extends Omit<Command, 'flags' | 'run'> {
  readonly flags: F;
  /** Returns the exit code. On failure throw, do not print: `run-cli.ts` prints one redacted line. */
  run(context: {
    readonly values: ParsedCommandArgs<F>['values'];
    readonly positionals: string[];
    readonly io: CliIo;
  }): Promise<ExitCode>;
}

/**
 * The one scaffold every command is written on: it parses the flags (an unknown one is answered
 * with the closest valid one) and prints the help for `-h`/`--help`; the command does its work.
 *
 * @example
 * export const pingCommand = defineCommand({
 *   name: 'ping',
 *   summary: 'check that an emulator answers',
 *   help: 'Usage: loyalty-partner ping [--url <url>]\n...\nExit codes: 0 it answers; 3 it does not.',
 *   flags: { url: { type: 'string' } },
 *   async run({ values, io }) {
 *     io.stdout.write(`pong from ${values.url ?? 'http://127.0.0.1:8787'}\n`);
 *     return EXIT.ok;
 *   },
 * });
 */
export function defineCommand<const F extends Flags>(spec: CommandSpec<F>): Command {
  return {
    ...spec,
    async run(argv: readonly string[], io: CliIo) {
      const { values, positionals } = parseCommandArgs(spec.name, argv, spec.flags);
      if ((values as { help?: boolean }).help) {
        io.stdout.write(`${spec.help}\n`);
        return EXIT.ok;
      }
      return spec.run({ values, positionals, io });
    },
  };
}
