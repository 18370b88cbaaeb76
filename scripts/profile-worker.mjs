// `node scripts/profile-worker.mjs <url> [--token T] [--seconds 8] [--clients 4] [--inspector ws://127.0.0.1:9229/ws]`:
// where the Workers' isolate spends its time on one route. With `npm start` running (wrangler dev
// serves V8's inspector on port 9229), it starts V8's sampling profiler, loads `url` with
// `clients` concurrent clients for `seconds`, stops the profiler and prints, per request, the
// functions with the most samples (self time) and the call stacks of the top native frames.
// Samples are taken on the isolate's thread by wall time: they show where the isolate is busy
// or blocked, not CPU alone (the bench's `cpu_ms_per_request` gives CPU). docs/benchmarks.md,
// sixteenth round.
import { parseArgs } from 'node:util';

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    token: { type: 'string' },
    seconds: { type: 'string', default: '8' },
    clients: { type: 'string', default: '4' },
    inspector: { type: 'string', default: 'ws://127.0.0.1:9229/ws' },
    top: { type: 'string', default: '40' },
  },
});
const url = positionals[0];
if (!url) {
  console.error('usage: node scripts/profile-worker.mjs <url> [--token T] [--seconds 8] [--clients 4]');
  process.exit(2);
}
// `ws` (miniflare's dependency): Node's own WebSocket fails the inspector's handshake.
const { default: WebSocketClass } = await import('ws');
const socket = new WebSocketClass(options.inspector);
let nextId = 0;
const pending = new Map();
socket.addEventListener('message', (event) => {
  const message = JSON.parse(String(event.data));
  if (message.id && pending.has(message.id)) {
    pending.get(message.id)(message);
    pending.delete(message.id);
  }
});
const command = (method, params = {}) =>
  new Promise((resolve) => {
    const id = ++nextId;
    pending.set(id, resolve);
    socket.send(JSON.stringify({ id, method, params }));
  });
await new Promise((resolve, reject) => {
  socket.addEventListener('open', resolve);
  socket.addEventListener('error', () =>
    reject(new Error(`no inspector at ${options.inspector} (is npm start running?)`)),
  );
});

await command('Profiler.enable');
await command('Profiler.setSamplingInterval', { interval: 100 });
await command('Profiler.start');
const headers = options.token ? { authorization: `Bearer ${options.token}` } : {};
const until = Date.now() + Number(options.seconds) * 1000;
let requests = 0;
let failed = 0;
const client = async () => {
  while (Date.now() < until) {
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    if (response.ok) requests++;
    else failed++;
  }
};
await Promise.all(Array.from({ length: Number(options.clients) }, client));
const { result } = await command('Profiler.stop');
socket.close();

const { nodes, samples, timeDeltas } = result.profile;
const byId = new Map(nodes.map((node) => [node.id, node]));
const parentOf = new Map();
for (const node of nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const sampled = new Map();
for (const [index, id] of samples.entries()) sampled.set(id, (sampled.get(id) ?? 0) + (timeDeltas[index] ?? 0));
const frame = (node) => {
  const { functionName, url: script, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${script ? `${script.split('/').at(-1)}:${lineNumber + 1}` : '(native)'}`;
};
const self = new Map();
const stacks = new Map();
let total = 0;
for (const [id, micros] of sampled) {
  const node = byId.get(id);
  const key = frame(node);
  self.set(key, (self.get(key) ?? 0) + micros);
  total += micros;
  if (!node.callFrame.url && !node.callFrame.functionName.startsWith('(')) {
    const chain = [];
    for (let at = id; at !== undefined && chain.length < 6; at = parentOf.get(at)) chain.push(frame(byId.get(at)));
    const stack = chain.join(' < ');
    stacks.set(stack, (stacks.get(stack) ?? 0) + micros);
  }
}
const perRequest = (micros) => (micros / 1000 / Math.max(requests, 1)).toFixed(3).padStart(8);
console.log(`${url}: ${requests} requests (${failed} failed) in ${options.seconds} s, ${options.clients} clients`);
console.log(`sampled ms a request: ${perRequest(total)} (idle included)`);
console.log('\nself time, ms a request:');
for (const [key, micros] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(options.top)))
  console.log(`${perRequest(micros)}  ${key}`);
console.log('\nnative frames by caller, ms a request:');
for (const [stack, micros] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 10))
  console.log(`${perRequest(micros)}  ${stack}`);
