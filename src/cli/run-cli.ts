import { COMMANDS } from './commands/index.js';
import { EXIT, type ExitCode, UsageError } from './exit-codes.js';
import { type CliIo, createStyle } from './io.js';

function topHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  const lines = COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `Usage: loyalty-partner <command> [options]

Commands:
${lines.join('\n')}

Run loyalty-partner <command> --help for a command's options.

Exit codes:
  0   done
  1   the operation failed (the service refused the event, rows failed, a demo step
      deviated, an invalid signature)
  2   usage error (unknown flag, missing secret or setting, unreadable file, a payload
      refused locally: nothing was sent)
  3   the service is unreachable or unavailable: retry later
  70  internal error (please report it)

NO_COLOR=1 turns colours off.`;
}

/**
 * Runs the CLI in-process and returns its exit code. Every failure becomes one clear line on
 * stderr; nothing is thrown.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const [name, ...rest] = argv;
  const style = createStyle(io, 'stderr');
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(`${topHelp()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr.write(
      `${style.red('error')}: unknown command ${JSON.stringify(name)} (see loyalty-partner --help)\n`,
    );
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`${style.red('error')}: ${err.message}\n`);
      return EXIT.usage;
    }
    io.stderr.write(`${style.red('internal error')}: ${(err as Error)?.message ?? String(err)}\n`);
    return EXIT.internal;
  }
}
