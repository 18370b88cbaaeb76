// A TCP proxy that holds every chunk, in either direction, for half a round-trip time before
// forwarding it, in order: it stands for the distance between a Worker at the edge and a
// database in one region. The bench points the Worker's DATABASE_URL at it, so the relay
// connects here instead of to Postgres. The delay can change between measurements
// (`setRtt(0)` forwards each chunk as it arrives), so one stack measures both ways.
import net from 'node:net';

export async function startDelayProxy({ targetHost, targetPort, rttMs = 0, host = '127.0.0.1' }) {
  let oneWayMs = rttMs / 2;
  // What the timers really gave (they fire late by up to a millisecond or so), so the bench can
  // divide by the round trip it applied rather than the one it asked for.
  let delayedChunks = 0;
  let delayedTotalMs = 0;
  // When a chunk last arrived from either side, for `quiet`.
  let lastChunkAt = performance.now();
  const sockets = new Set();

  /** Forwards `from`'s chunks to `to`, each `oneWayMs` after it arrived, never reordered. */
  const pipeDelayed = (from, to) => {
    const queue = [];
    let timer = null;
    const flush = () => {
      timer = null;
      const now = performance.now();
      while (queue.length && queue[0].due <= now) {
        const { chunk, arrived, end } = queue.shift();
        if (end) {
          to.end();
          continue;
        }
        delayedChunks++;
        delayedTotalMs += now - arrived;
        to.write(chunk);
      }
      if (queue.length) schedule();
    };
    // setTimeout fires up to a millisecond or so late (libuv counts whole milliseconds), which
    // would add ~5% to a 40 ms round trip: wake a millisecond early, then poll with setImmediate.
    const schedule = () => {
      const wait = queue[0].due - performance.now();
      timer = wait > 1.5 ? setTimeout(flush, Math.floor(wait - 1)) : setImmediate(flush);
    };
    const cancel = () => {
      clearTimeout(timer);
      clearImmediate(timer);
    };
    const enqueue = (item) => {
      // At zero delay with nothing waiting, forward at once: a setTimeout(0) would add ~1 ms.
      if (oneWayMs === 0 && queue.length === 0) {
        if (item.end) to.end();
        else to.write(item.chunk);
        return;
      }
      queue.push({ ...item, due: item.arrived + oneWayMs });
      if (!timer) schedule();
    };
    from.on('data', (chunk) => {
      lastChunkAt = performance.now();
      enqueue({ chunk, arrived: lastChunkAt });
    });
    from.on('end', () => enqueue({ end: true, arrived: performance.now() }));
    return () => {
      if (timer) cancel();
      queue.length = 0;
    };
  };

  // Half-open allowed: an end is forwarded after the chunks queued before it, not at once.
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ host: targetHost, port: targetPort, allowHalfOpen: true });
    // Without these, Nagle's algorithm holds small writes back waiting for an ACK, adding its own stalls.
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client);
    sockets.add(upstream);
    const stopUp = pipeDelayed(client, upstream);
    const stopDown = pipeDelayed(upstream, client);
    const closeBoth = () => {
      stopUp();
      stopDown();
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
    client.on('close', closeBoth);
    upstream.on('close', closeBoth);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  return {
    port: server.address().port,
    host,
    setRtt(ms) {
      oneWayMs = ms / 2;
    },
    resetApplied() {
      delayedChunks = 0;
      delayedTotalMs = 0;
    },
    /** The mean round trip actually applied (two one-way delays) since resetApplied, or null. */
    appliedRttMs: () => (delayedChunks ? (2 * delayedTotalMs) / delayedChunks : null),
    /**
     * Resolves once no chunk has passed in either direction for `idleMs` (the database is not
     * busy with anyone's work, a previous request's background jobs included), or after `maxMs`.
     */
    async quiet(idleMs, maxMs) {
      const deadline = performance.now() + maxMs;
      for (;;) {
        const now = performance.now();
        const idleFor = now - lastChunkAt;
        if (idleFor >= idleMs || now >= deadline) return;
        await new Promise((resolve) => setTimeout(resolve, Math.min(idleMs - idleFor, deadline - now) + 1));
      }
    },
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
