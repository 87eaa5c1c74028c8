import { PostgresStoreError } from './errors.js';

/**
 * The handler's `ctx.tx`, usable only until the handler settled: its connection then goes back to
 * the pool, and a `ctx.tx` kept by the handler would write inside the next event's transaction.
 * After `end()` every call answers a promise rejected with `TRANSACTION_ENDED`, never a
 * synchronous throw (which from a timer would end the process).
 */
export function guardTx(raw: unknown): { tx: unknown; end(): void } {
  if ((typeof raw !== 'object' && typeof raw !== 'function') || raw === null) {
    return { tx: raw, end: () => {} };
  }
  let ended = false;
  const refused = () =>
    Promise.reject(
      new PostgresStoreError(
        'TRANSACTION_ENDED',
        'ctx.tx was used after its handler returned: that transaction has ended. Await every statement inside the handler',
      ),
    );
  const wrapped = new Map<PropertyKey, unknown>();
  const tx = new Proxy(raw, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      let method = wrapped.get(property);
      if (method === undefined) {
        method = (...args: unknown[]) => (ended ? refused() : Reflect.apply(value, target, args));
        wrapped.set(property, method);
      }
      return method;
    },
    apply(target, _this, args) {
      return ended ? refused() : Reflect.apply(target as (...args: unknown[]) => unknown, target, args);
    },
  });
  return {
    tx,
    end: () => {
      ended = true;
    },
  };
}
