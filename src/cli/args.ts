import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './exit-codes.js';
import { didYouMean } from './suggest.js';

/** The flags a command takes, as `util.parseArgs` declares them. */
export type Flags = NonNullable<ParseArgsConfig['options']>;
type HelpOption = { help: { type: 'boolean'; short: 'h' } };

const declare =
  <const D>(flag: D) =>
  <const N extends string>(...names: N[]): { readonly [K in N]: D } =>
    Object.fromEntries(names.map((name) => [name, flag])) as { readonly [K in N]: D };

/** Flags that take a value, by name: `{ ...valueFlags('payload', 'event-id') }`. */
export const valueFlags = declare({ type: 'string' });
/** Flags that take a value and may be given again (`--ship A --ship B`). */
export const repeatableFlags = declare({ type: 'string', multiple: true });
/** Flags that take no value (`--json`). */
export const switchFlags = declare({ type: 'boolean' });

/** What `parseCommandArgs` returns, spelt out so that the declaration build can name it. */
export type ParsedCommandArgs<O extends Flags> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O & HelpOption; allowPositionals: true; strict: true }>
>;

/** Strict `util.parseArgs` with `--help`; a failure is one `UsageError` line (unknown flag: the closest). */
export function parseCommandArgs<O extends Flags>(
  command: string,
  argv: readonly string[],
  options: O,
): ParsedCommandArgs<O> {
  const all: Flags = { ...options, help: { type: 'boolean', short: 'h' } };
  const see = `(see loyalty-partner ${command} --help)`;
  try {
    return parseArgs({
      args: [...argv],
      options: all,
      allowPositionals: true,
      strict: true,
    }) as ParsedCommandArgs<O>;
  } catch (err) {
    // Node's text quotes the flag, with a value placeholder: say it plainly.
    const flag = /'(-[^' ]+)/.exec((err as Error).message)?.[1];
    const code = (err as { code?: string }).code;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag !== undefined)
      throw new UsageError(
        `${command}: unknown flag ${flag}${didYouMean(flag.replace(/^-+/, ''), Object.keys(all), '--')} ${see}`,
      );
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag !== undefined) {
      const name = flag.replace(/^-+/, '');
      const long = name.length === 1 ? Object.keys(all).find((k) => all[k]!.short === name) : name;
      const declared = long === undefined ? undefined : all[long];
      throw new UsageError(
        declared?.type === 'boolean'
          ? `${command}: --${long} takes no value ${see}`
          : `${command}: --${long ?? name} needs a value (a value starting with - goes as --${long ?? name}=<value>) ${see}`,
      );
    }
    throw new UsageError(`${command}: ${(err as Error).message.split('\n')[0]} ${see}`);
  }
}

/** The value of a flag the command cannot do without (`flag`: as its help names it), or why it must be given. */
export function requiredFlag(command: string, flag: string, value: string | undefined): string {
  if (value === undefined) throw new UsageError(`${command}: ${flag} is required`);
  return value;
}

/** Parses a whole, non-negative number flag, or explains what was expected (`unit`: what it counts). */
export function integerFlag(name: string, value: string | undefined, unit = 'seconds'): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new UsageError(`--${name} must be a whole number of ${unit}, not ${JSON.stringify(value)}`);
  return Number(value);
}

/** Parses a probability flag (`--fault-rate 0.2`), or says it must be between 0 and 1. */
export function rateFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(value.trim() !== '' && n >= 0 && n <= 1)) throw new UsageError(`--${name} must be between 0 and 1`);
  return n;
}

/** Parses a flag that takes one of a few words (`--state dead`), or says which it takes. */
export function choiceFlag<T extends string>(
  name: string,
  value: string | undefined,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value))
    throw new UsageError(
      `--${name} must be one of ${choices.join(', ')}, not ${JSON.stringify(value)}${didYouMean(value, choices)}`,
    );
  return value as T;
}

/** The subcommand of `outbox` or `inbox` and the event ids after it (`stats`, `list`: none). */
export function subcommandOf<T extends string>(
  command: string,
  positionals: readonly string[],
  subcommands: readonly T[],
): { readonly sub: T; readonly ids: readonly string[] } {
  const [sub, ...ids] = positionals;
  if (!(subcommands as readonly string[]).includes(sub ?? '')) {
    const names = `${subcommands.slice(0, -1).join(', ')} or ${subcommands.at(-1)}`;
    const hint = sub === undefined ? '' : didYouMean(sub, subcommands, `${command} `);
    throw new UsageError(`${command}: expected ${names}${hint} (see loyalty-partner ${command} --help)`);
  }
  if ((sub === 'stats' || sub === 'list') && ids.length > 0)
    throw new UsageError(`${command} ${sub} takes no event id`);
  return { sub: sub as T, ids };
}
