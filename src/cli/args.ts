import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './exit-codes.js';

type Options = NonNullable<ParseArgsConfig['options']>;
type HelpOption = { help: { type: 'boolean'; short: 'h' } };

/**
 * What `parseCommandArgs` returns: typed `values` (with `help`) and the positionals. Spelt out so
 * that the declaration build can name it.
 */
export type ParsedCommandArgs<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O & HelpOption; allowPositionals: true; strict: true }>
>;

/**
 * `util.parseArgs` with the CLI's conventions: strict, `--help` everywhere, and a parse failure
 * turned into a one-line `UsageError` that names the command.
 */
export function parseCommandArgs<O extends Options>(
  command: string,
  argv: readonly string[],
  options: O,
): ParsedCommandArgs<O> {
  try {
    return parseArgs({
      args: [...argv],
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(
      `${command}: ${(err as Error).message.split('\n')[0]} (see loyalty-partner ${command} --help)`,
    );
  }
}

/** Parses a whole, non-negative number flag, or explains what was expected (`unit`: what it counts). */
export function integerFlag(name: string, value: string | undefined, unit = 'seconds'): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new UsageError(`--${name} must be a whole number of ${unit}, not ${JSON.stringify(value)}`);
  return Number(value);
}

/** Parses a flag that takes one of a few words (`--state dead`), or says which it takes. */
export function choiceFlag<T extends string>(
  name: string,
  value: string | undefined,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of ${choices.join(', ')}, not ${JSON.stringify(value)}`);
  return value as T;
}

/**
 * The subcommand of an operator's command (`outbox list`) and the event ids after it; `stats`
 * and `list` take none.
 */
export function subcommandOf<T extends string>(
  command: string,
  positionals: readonly string[],
  subcommands: readonly T[],
): { readonly sub: T; readonly ids: readonly string[] } {
  const [sub, ...ids] = positionals;
  if (!(subcommands as readonly string[]).includes(sub ?? '')) {
    const names = `${subcommands.slice(0, -1).join(', ')} or ${subcommands.at(-1)}`;
    throw new UsageError(`${command}: expected ${names} (see loyalty-partner ${command} --help)`);
  }
  if ((sub === 'stats' || sub === 'list') && ids.length > 0)
    throw new UsageError(`${command} ${sub} takes no event id`);
  return { sub: sub as T, ids };
}
