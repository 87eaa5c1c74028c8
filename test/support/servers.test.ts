import { createConnection } from 'node:net';
import { expect, it } from 'vitest';
import { describeWithPostgres, describeWithRedis } from './servers.js';

const ping = (url: string, payload: string) =>
  new Promise<string>((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const socket = createConnection(Number(port), hostname, () =>
      socket.write(Buffer.from(payload, 'latin1')),
    );
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString('latin1'));
    });
    socket.once('error', reject);
  });

describeWithPostgres('the test run’s PostgreSQL', (url) => {
  it('listens on loopback', async () => {
    expect(new URL(url).hostname).toBe('127.0.0.1');
    // An SSLRequest: a real Postgres answers with one byte, N or S.
    const answer = await ping(url, '\x00\x00\x00\x08\x04\xd2\x16\x2f');
    expect(['N', 'S']).toContain(answer);
  });
});

describeWithRedis('the test run’s Redis', (url) => {
  it('answers PING', async () => {
    expect(await ping(url, 'PING\r\n')).toBe('+PONG\r\n');
  });
});
