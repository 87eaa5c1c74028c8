/**
 * A loopback HTTP/1.1 server that answers every request at once with a fixed `200` and a small
 * JSON body, keeping connections alive. It reads just enough of each request (the header block
 * and `content-length` bytes of body) to know where the next one starts, so that the server is
 * never what limits a client benchmark. It runs in a child process, on the other core, so that
 * it takes no time from the event loop of the client being measured.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const BODY = '{"status":"accepted"}';
const RESPONSE = Buffer.from(
  'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-correlation-id: bench\r\n' +
    `connection: keep-alive\r\ncontent-length: ${BODY.length}\r\n\r\n${BODY}`,
);
const HEADER_END = Buffer.from('\r\n\r\n');
const LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/** Answers every complete request in `buffer`; returns what is left of an incomplete one. */
function answerAll(socket, buffer, delayMs) {
  let start = 0;
  for (;;) {
    const end = buffer.indexOf(HEADER_END, start);
    if (end === -1) break;
    const head = buffer.toString('latin1', start, end);
    const next = end + 4 + Number(LENGTH.exec(head)?.[1] ?? 0);
    if (next > buffer.length) break;
    // A link's latency: each answer leaves `delayMs` after its request arrived.
    if (delayMs > 0) setTimeout(() => socket.writable && socket.write(RESPONSE), delayMs);
    else socket.write(RESPONSE);
    start = next;
  }
  return buffer.subarray(start);
}

function serve(delayMs) {
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = answerAll(socket, pending.length ? Buffer.concat([pending, chunk]) : chunk, delayMs);
    });
    socket.on('error', () => socket.destroy());
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('disconnect', () => process.exit(0));
}

/** Starts the server in a child process, answering after `delayMs` (default 0); `stop()` ends it. */
export async function startLoopbackServer({ delayMs = 0 } = {}) {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', String(delayMs)], { stdio: 'inherit' });
  const [{ port }] = await once(child, 'message');
  return { origin: `http://127.0.0.1:${port}`, stop: () => child.disconnect() };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--serve')
  serve(Number(process.argv[3] ?? 0));
