// Loopback ports chosen by vitest.config.ts for the services test/global-setup.ts starts (the
// embedded Postgres, the WebSocket relay, the scripted SMTP relay), held open from the moment they
// are chosen until the service that takes each one is about to bind it: a port released early
// could be taken meanwhile by anything that binds port 0 (workerd's sockets start between the
// two), and the suite then failed to start (EADDRINUSE). The config is bundled apart from
// globalSetup, so the two share the held servers through `globalThis`, in vitest's main process.
import net from 'node:net';

const HELD = Symbol.for('lead-management.held-test-ports');

/** @returns {Map<number, net.Server>} */
function held() {
  globalThis[HELD] ??= new Map();
  return globalThis[HELD];
}

/** `count` distinct free loopback ports, each held by a listening server until releasePort. */
export async function holdFreePorts(count) {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => server.address().port);
  servers.forEach((server, index) => {
    // Held, but never what keeps the process running.
    server.unref();
    held().set(ports[index], server);
  });
  return ports;
}

/** Frees a held port for the service about to bind it; a port not held here is left alone. */
export async function releasePort(port) {
  const server = held().get(port);
  if (!server) return;
  held().delete(port);
  await new Promise((resolve) => server.close(() => resolve()));
}

/** Frees every held port but `except` (the config evaluated again; an external database's port). */
export async function releaseHeldPorts(except = []) {
  await Promise.all([...held().keys()].filter((port) => !except.includes(port)).map(releasePort));
}
