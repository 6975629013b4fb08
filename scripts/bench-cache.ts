/**
 * Cached-call throughput: 10,000 calls of usage.api-counts at concurrency 32 against a warmed cache.
 * Starts the service in this process, on DATABASE_URL (schema and data already there, e.g. after
 * `npm run seed`) or, without it, on an embedded store seeded with demo data.
 *   npx tsx scripts/bench-cache.ts [--requests 10000] [--concurrency 32]
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { startInProcess } from './lib/in-process.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const total = arg('requests', 10_000);
const concurrency = arg('concurrency', 32);

const { service, token, engineName, close } = await startInProcess({ LOG_LEVEL: 'warn' });
const { port } = service;
const path = '/api/endpoints/query/usage.api-counts?interval=daily&project=default';
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

function once(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request({ host: '127.0.0.1', port, path, agent, headers: { 'X-API-KEY': token } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

async function run(n: number): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) {
      next++;
      latencies.push(await once());
    }
  }));
  return latencies;
}

await once(); // warm the cache entry
await run(1_000); // warm the JIT and the sockets
const queriesBefore = service.cache.stats().misses + service.cache.stats().refreshes;
const started = performance.now();
const latencies = await run(total);
const seconds = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(2);
const stats = service.cache.stats();
console.log(`engine: ${engineName}; ${total} calls at concurrency ${concurrency}`);
console.log(`requests/s: ${(total / seconds).toFixed(0)}`);
console.log(`latency ms: p50 ${pct(50)}, p99 ${pct(99)}, max ${latencies.at(-1)!.toFixed(2)}`);
console.log(`database queries during the run: ${stats.misses + stats.refreshes - queriesBefore} (cache hits ${stats.hits}, misses ${stats.misses}, coalesced ${stats.coalesced})`);
agent.destroy();
await close();
