// How a receiver child process of the multi-process tests serves: on a free loopback port,
// printing `READY <port>` once listening, and on SIGTERM closing the server, then `onStop()`,
// then exiting.
import { createServer } from 'node:http';

export function serveReceiver(sdk, receiver, onStop) {
  const server = createServer(sdk.createNodeListener(receiver));
  // Longer than the test's pauses between requests on one keep-alive socket on a loaded machine:
  // a socket the server closes just as the client reuses it fails with "other side closed".
  server.keepAliveTimeout = 120_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${server.address().port}\n`));
  process.on('SIGTERM', () => {
    server.close();
    Promise.resolve(onStop()).then(() => process.exit(0));
  });
}
