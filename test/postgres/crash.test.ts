import { migrate } from 'loyalty-partner-sdk/postgres';
import { expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';
import { type ReceiverConfig, startReceiver, useReceiverBundle } from './support/receiver-processes.js';

/*
 * Must show 3 of issue 13: a receiver process killed with SIGKILL inside a transactional handler
 * (after the handler wrote its effect through ctx.tx) leaves no effect and no claim; the
 * redelivery, to another process, runs the handler once.
 */
describeWithPostgres('a receiver killed inside a transactional handler', (postgresUrl) => {
  const { pool, bundle } = useReceiverBundle(postgresUrl, 3);

  for (const driver of ['pg', 'postgres.js'] as const) {
    it(`on ${driver}: leaves no effect and no claim, and the redelivery runs the handler once`, async () => {
      const schema = uniqueName('crash');
      await migrate(pool, { schema });
      await pool.query(`CREATE TABLE ${schema}.effects (event_id text NOT NULL, pid int NOT NULL)`);
      const event = outboundEvent('LoyaltyRuleChanged');
      const delivery = signedDelivery(event);
      const config: ReceiverConfig = {
        store: 'postgres',
        driver,
        transactional: true,
        postgresUrl,
        schema,
        secret: SECRET,
        handlerDelayMs: 0,
      };
      const doomed = await startReceiver(bundle(), { ...config, crashOn: event.eventId });
      const survivor = await startReceiver(bundle(), config);
      try {
        const post = (url: string) =>
          fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.rawBody });
        const first = post(doomed.url).catch((err: Error) => err);
        await doomed.printed('IN_HANDLER');
        doomed.child.kill('SIGKILL');
        expect(await first).toBeInstanceOf(Error); // the service saw no answer: it redelivers

        const rows = async (table: string) =>
          (
            await pool.query(`SELECT count(*)::int AS n FROM ${schema}.${table} WHERE event_id = $1`, [
              event.eventId,
            ])
          ).rows[0].n;
        expect(await rows('effects')).toBe(0);
        expect(await rows('inbox_events')).toBe(0);

        // Postgres rolls the dead connection's transaction back as soon as it sees the socket
        // close; until then the redelivery may wait its lock timeout and get 503.
        let answer = await post(survivor.url);
        while (answer.status === 503) answer = await post(survivor.url);
        expect(answer.status).toBe(200);
        expect(await answer.json()).toMatchObject({ outcome: 'handled', eventId: event.eventId });
        expect(await rows('effects')).toBe(1);
        expect(
          (await pool.query(`SELECT state FROM ${schema}.inbox_events WHERE event_id = $1`, [event.eventId]))
            .rows,
        ).toEqual([{ state: 'handled' }]);
        expect(await (await post(survivor.url)).json()).toMatchObject({ outcome: 'duplicate' });
        expect(await rows('effects')).toBe(1);
      } finally {
        await Promise.all([doomed.stop(), survivor.stop()]);
      }
    }, 60_000);
  }
});
