import { EXIT, type ExitCode, UsageError } from '../exit-codes.js';
import { type CliIo, plural } from '../io.js';
import { type ActionContext, type ActionName, type ActionResult, runAction } from './actions.js';
import type { OpsBackends } from './connect.js';
import { formatTable } from './table.js';

/** What `redeliver`, `replay` and `discard` are asked for on the command line. */
export interface ActRequest {
  readonly action: ActionName;
  readonly ids: readonly string[];
  /** `--all`: every event `select` returns (the `--state`, `--tenant`, `--type` filters). */
  readonly all: boolean;
  readonly select: () => Promise<string[]>;
  /** `--all --state dead`: what the confirmation names. */
  readonly description: string;
  readonly yes: boolean;
  readonly json: boolean;
  readonly context: ActionContext;
}

/** Acts on the named events, or on every selected one after a confirmation; exit 1 if any was refused. */
export async function actOnMany(io: CliIo, backends: OpsBackends, request: ActRequest): Promise<ExitCode> {
  const verb = request.action.split('.')[1];
  if (request.all && request.ids.length > 0)
    throw new UsageError(`${verb}: give event ids or --all, not both`);
  if (!request.all && request.ids.length === 0)
    throw new UsageError(`${verb}: give one or more event ids, or --all --state <state>`);
  let ids = request.ids;
  if (request.all) {
    ids = await request.select();
    if (ids.length === 0) {
      io.stderr.write(`nothing to ${verb}: no ${request.description}\n`);
      return EXIT.ok;
    }
    const question = `${verb} ${plural(ids.length, 'event')} (${request.description})?`;
    if (!request.yes && !(await confirm(io, question))) {
      io.stderr.write(`nothing done (pass --yes to ${verb} without asking)\n`);
      return EXIT.failed;
    }
  }
  const results: ActionResult[] = [];
  for (const id of ids) results.push(await runAction(backends, request.action, id, request.context));
  if (request.json) io.stdout.write(`${JSON.stringify({ results }, null, 2)}\n`);
  else
    io.stdout.write(
      `${formatTable(
        ['EVENT ID', 'RESULT', 'DETAIL'],
        results.map((r) => [r.eventId, r.done ? 'done' : 'refused', r.message]),
        100,
      )}\n`,
    );
  return results.every((r) => r.done) ? EXIT.ok : EXIT.failed;
}

/** Asks `question` on stderr; `y` or `yes` on stdin is a yes, a closed stdin a no (scripts pass `--yes`). */
export async function confirm(io: CliIo, question: string): Promise<boolean> {
  io.stderr.write(`${question} [y/N] `);
  let answer = '';
  for await (const chunk of io.stdin) {
    answer += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    if (answer.includes('\n')) break;
  }
  const word = answer.split('\n')[0]?.trim().toLowerCase();
  io.stderr.write('\n');
  return word === 'y' || word === 'yes';
}
