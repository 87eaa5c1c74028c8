import { integrationOf } from '../inspection.js';
import type { ControlDeps } from './control-deps.js';

/** How many of the newest events, deliveries, ledger entries and balances the dashboard shows. */
const SHOWN = 25;

/** What the dashboard draws, from the newest records only; holds no API key, secret or signature. */
export function dashboardState(deps: ControlDeps) {
  const merchants = deps.store.all().map((m) => {
    const balances = [...m.balances.entries()].slice(-SHOWN).map(([customer, b]) => ({
      externalCustomerId: customer,
      points: b.points,
      stamps: { ...b.stamps },
    }));
    return {
      ...integrationOf(m),
      counts: {
        customers: m.customers.size,
        products: m.products.size,
        invoices: m.invoices.size,
        ledgerEntries: m.ledger.size,
      },
      balances,
      ledger: m.ledger.newest(SHOWN),
    };
  });
  return {
    now: deps.emulator.now().toISOString(),
    merchants,
    events: deps.log.after(deps.log.lastSeq - SHOWN),
    requestsSeen: deps.log.lastSeq,
    deliveries: deps.recentDeliveries(SHOWN).map(({ envelope: _envelope, ...delivery }) => delivery),
    cachedResponses: deps.cacheSize(),
    shipped: deps.shipped(),
    faults: deps.faults(),
    latencyMs: deps.latencyMs(),
  };
}
