// How a receiver child process serves: node:http on a loopback port, printed as `READY <port>`,
// with keep-alive outlasting the parent's pooled connections. SIGTERM closes the server, then
// awaits `close()` and exits 0.
import { createServer } from 'node:http';

export function serveUntilSigterm(listener, close) {
  const server = createServer(listener);
  server.keepAliveTimeout = 120_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${server.address().port}\n`));
  process.on('SIGTERM', () => {
    server.close();
    close().then(() => process.exit(0));
  });
}
