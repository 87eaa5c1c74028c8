import {
  choiceFlag,
  type Flags,
  integerFlag,
  type ParsedCommandArgs,
  subcommandOf,
  switchFlags,
  valueFlags,
} from '../args.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { actOnMany } from '../ops/act-many.js';
import type { ActionName } from '../ops/actions.js';
import { actorOf } from '../ops/audit.js';
import { type ConnectionFlags, type OpsBackends, openBackends } from '../ops/connect.js';
import type { RecordRow, StoreView } from '../ops/store-views.js';
import { ageOf, formatTable } from '../ops/table.js';
import { TENANTS_SHOWN, tenantFooter } from '../ops/tenant-pages.js';
import { type Command, defineCommand } from './command.js';

/** The flags `outbox` and `inbox` share: which records to show or act on, and how. */
const SELECTION_FLAGS = {
  ...valueFlags('state', 'tenant', 'type', 'limit'),
  ...switchFlags('all', 'yes'),
  ...valueFlags('actor'),
  ...switchFlags('json'),
};

/** How `--help` of both commands describes the selection flags (`one`, `many`: what they list). */
export const selectionHelp = (states: readonly string[], one: string, many: string, verbs: string) =>
  `  --state <state>          ${states.join(', ')} (list, --all)
  --tenant <id>            only this tenant (stats) or this tenant's ${many} (list, --all)
  --type <eventType>       only ${many} of this type (list, --all)
  --limit <n>              list at most this many (default 100); stats: the n busiest tenants
                           (default 50), with how many there are in all
  --all                    ${verbs} every ${one} --state/--tenant/--type select,
                           after a confirmation
  --yes                    do not ask for the confirmation of --all`;

export const ACTOR_HELP = `  --actor <name>           who acts, for the audit trail (default: $USER@hostname)
  --json                   print JSON for scripts instead of a table
  -h, --help               show this help`;

const LIST_HEADERS = ['EVENT ID', 'TENANT', 'TYPE', 'STATE', 'ATTEMPTS', 'AGE', 'LAST ERROR'];
function listCells(r: RecordRow): string[] {
  return [r.eventId, r.tenantId, r.eventType, r.state, String(r.attempts), ageOf(r.since), r.lastError];
}

type Values = ConnectionFlags &
  ParsedCommandArgs<typeof SELECTION_FLAGS>['values'] & { readonly 'accept-duplicate-risk'?: boolean };

/** What tells `outbox` from `inbox`: its words, its states, its store. */
export interface StoreCommandSpec<S extends string, R> {
  readonly name: 'outbox' | 'inbox';
  readonly summary: string;
  readonly help: string;
  /** The connection flags this store takes, besides the selection flags both take. */
  readonly flags: Flags;
  /** `redeliver` or `replay`, then `discard`. */
  readonly verbs: readonly [string, string];
  /** `events` or `deliveries`: what `--limit` and a confirmation count. */
  readonly noun: string;
  /** What `--state` takes; `--all` without it names `actable`. */
  readonly states: readonly S[];
  readonly actable: readonly S[];
  /** The columns of `stats`: counted per tenant, then for all tenants only. */
  readonly perTenant: readonly S[];
  readonly allTenantsOnly: readonly S[];
  check?(values: Values): void;
  view(backends: OpsBackends): StoreView<S, R>;
}

/** `outbox` and `inbox`: `stats`, `list`, and an action on named records or on all selected. */
export function defineStoreCommand<S extends string, R>(spec: StoreCommandSpec<S, R>): Command {
  const { name, noun } = spec;
  return defineCommand({
    name,
    summary: spec.summary,
    help: spec.help,
    flags: { ...spec.flags, ...SELECTION_FLAGS },
    async run({ values: parsed, positionals, io }) {
      const values = parsed as Values;
      const { sub, ids } = subcommandOf(name, positionals, ['stats', 'list', ...spec.verbs]);
      spec.check?.(values);
      const limit = integerFlag('limit', values.limit, sub === 'stats' ? 'tenants' : noun);
      if (limit === 0) throw new UsageError('--limit must be at least 1');
      const json = Boolean(values.json);
      const wanted = { outbox: name === 'outbox', inbox: name === 'inbox', command: name };
      const backends = await openBackends(io, values, wanted);
      try {
        const store = spec.view(backends);
        const select = async (state: S, max: number) =>
          (await store.list(state, { tenantId: values.tenant, limit: values.type ? 100_000 : max }))
            .filter((record) => values.type === undefined || store.row(record).eventType === values.type)
            .slice(0, max);
        if (sub === 'stats') {
          const totals = await store.totals();
          const page = await store.tenants({ limit: limit ?? TENANTS_SHOWN, tenantId: values.tenant });
          const tenants = page?.tenants ?? [];
          if (json)
            io.stdout.write(
              `${JSON.stringify({ ...totals, tenants, totalTenants: page?.totalTenants ?? null }, null, 2)}\n`,
            );
          else {
            const rows = tenants.map((t) => [
              t.tenantId,
              ...spec.perTenant.map((state) => String(t.states[state] ?? 0)),
              ...spec.allTenantsOnly.map(() => ''),
              ageOf(t.oldestPendingAt),
            ]);
            const columns = [...spec.perTenant, ...spec.allTenantsOnly];
            rows.push(['(all)', ...columns.map((state) => String(totals[state])), '']);
            io.stdout.write(
              `${formatTable(['TENANT', ...columns.map((s) => s.toUpperCase()), 'OLDEST PENDING'], rows)}\n`,
            );
            if (page) io.stdout.write(`${tenantFooter(page, tenants.length)}\n`);
          }
          return EXIT.ok;
        }
        if (sub === 'list') {
          const records = await select(
            choiceFlag('state', values.state, spec.states) ?? ('dead' as S),
            limit ?? 100,
          );
          if (json) io.stdout.write(`${JSON.stringify(records.map(store.json), null, 2)}\n`);
          else {
            const rows = records.map((record) => listCells(store.row(record)));
            io.stdout.write(`${formatTable(LIST_HEADERS, rows, 80)}\n`);
          }
          return EXIT.ok;
        }
        const state = choiceFlag('state', values.state, spec.states);
        if (values.all && state === undefined)
          throw new UsageError(`${name} ${sub} --all needs --state (${spec.actable.join(', ')})`);
        return await actOnMany(io, backends, {
          action: `${name}.${sub}` as ActionName,
          ids,
          all: Boolean(values.all),
          select: async () => (await select(state!, 100_000)).map((record) => store.row(record).eventId),
          description: [
            `${state} ${noun}`,
            values.tenant && `of tenant ${values.tenant}`,
            values.type && `of type ${values.type}`,
          ]
            .filter(Boolean)
            .join(' '),
          yes: Boolean(values.yes),
          json,
          context: {
            actor: actorOf(values.actor, io.env),
            via: 'cli',
            ...(name === 'outbox' && { acceptDuplicateRisk: values['accept-duplicate-risk'] }),
          },
        });
      } finally {
        await backends.close();
      }
    },
  });
}
