import { SDK_VERSION } from '../contract/sdk-version.js';
import { COMMANDS } from './commands/index.js';
import { describeFailure } from './describe-error.js';
import { EXIT, EXIT_CODE_TABLE, type ExitCode } from './exit-codes.js';
import { type CliIo, createStyle } from './io.js';
import { redactAll } from './ops/redact.js';
import { didYouMean } from './suggest.js';

/** The exit code table as the top-level help prints it, wrapped under its meaning column. */
export function exitCodeLines(): string {
  return EXIT_CODE_TABLE.map(({ code, meaning }) => {
    // Greedy word wrap: each line is as many whole words as fit in 86 characters (a longer word
    // gets a line of its own, whole).
    const lines: string[] = [];
    let line = '';
    for (const word of meaning.split(' ')) {
      if (line && line.length + word.length + 1 > 86) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
    return `  ${String(code).padEnd(4)}${lines.join('\n      ')}`;
  }).join('\n');
}

function topHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  const lines = COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `Usage: loyalty-partner <command> [options]

Commands:
${lines.join('\n')}

Run loyalty-partner help <command> (or <command> --help) for a command's options;
loyalty-partner --version (-v) prints the version.

Exit codes:
${exitCodeLines()}

NO_COLOR=1 turns colours off.`;
}

/** Runs the CLI in-process and returns its exit code: a failure is one line on stderr, never thrown. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const [name, ...rest] = argv;
  const style = createStyle(io, 'stderr');
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout.write(`${SDK_VERSION}\n`);
    return EXIT.ok;
  }
  if (name === undefined || name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
    (name === undefined ? io.stderr : io.stdout).write(`${topHelp()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  // `help <command>` prints what `<command> --help` does.
  const wanted = name === 'help' ? rest[0]! : name;
  const command = COMMANDS.find((candidate) => candidate.name === wanted);
  if (!command) {
    const names = COMMANDS.map((c) => c.name);
    io.stderr.write(
      `${style.red('error')}: unknown command ${JSON.stringify(wanted)}${didYouMean(wanted, names)} (see loyalty-partner --help)\n`,
    );
    return EXIT.usage;
  }
  if (name === 'help') {
    io.stdout.write(`${command.help}\n`);
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    // The passwords of the connection strings in argv and the environment are redacted from it.
    const values = [...argv.map((arg) => arg.replace(/^--[^=]+=/, '')), ...Object.values(io.env)];
    const urls = values.filter((value) => value?.includes('://'));
    const failure = describeFailure(err);
    if (failure) {
      io.stderr.write(`${style.red('error')}: ${redactAll(failure.line, urls)}\n`);
      return failure.exit;
    }
    const message = (err as Error)?.message ?? String(err);
    io.stderr.write(`${style.red('internal error')}: ${redactAll(message, urls)}\n`);
    return EXIT.internal;
  }
}
