// A WebSocket-to-TCP relay that speaks the neon-serverless driver's proxy protocol
// (`ws://relay/v2?address=host:port`), so the Worker reaches a plain Postgres (PGlite or a
// local server) with the same driver it uses against Neon in production. Loopback targets only.
import { createRequire } from 'node:module';
import net from 'node:net';

// Loaded through require so bundler-style resolvers (vitest's globalSetup) get ws's Node build.
const { WebSocketServer } = createRequire(import.meta.url)('ws');

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4]);

function endsWithTerminate(data) {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]);
  return bytes.length >= TERMINATE.length && bytes.subarray(bytes.length - TERMINATE.length).equals(TERMINATE);
}

export async function startRelay({ port = 0, host = '127.0.0.1' } = {}) {
  const wss = new WebSocketServer({ port, host, perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  });
  wss.on('connection', (ws, request) => {
    const address = new URL(request.url ?? '/', 'http://relay').searchParams.get('address') ?? '';
    const split = address.lastIndexOf(':');
    const targetHost = address.slice(0, split);
    const targetPort = Number(address.slice(split + 1));
    if (!LOOPBACK.has(targetHost) || !Number.isInteger(targetPort)) {
      ws.close(1008, 'target not allowed');
      return;
    }
    const socket = net.connect({ host: targetHost, port: targetPort });
    socket.setNoDelay(true);
    ws.binaryType = 'nodebuffer';
    ws.on('message', (data) => {
      socket.write(data);
      // PGlite's server keeps the session after the driver's Terminate: end the TCP side, as a
      // real server does, so the database slot is freed. Its close then closes the WebSocket
      // (below), as Neon's proxy does in production. The Worker's own close of the WebSocket
      // races with the Terminate it buffers (the driver coalesces writes), so the Worker may
      // never send one: a WebSocket left open keeps a queue event alive, and miniflare then
      // delivers no further batch.
      if (endsWithTerminate(data)) socket.end();
    });
    socket.on('data', (chunk) => {
      if (ws.readyState === ws.OPEN) ws.send(chunk);
    });
    const closeBoth = () => {
      socket.destroy();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close();
    };
    ws.on('close', closeBoth);
    ws.on('error', closeBoth);
    socket.on('close', closeBoth);
    socket.on('error', closeBoth);
  });
  const actual = wss.address();
  return {
    address: `${host}:${actual.port}`,
    stop: () =>
      new Promise((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}
