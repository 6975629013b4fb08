/**
 * Cached-call throughput: 10,000 calls of usage.api-counts at concurrency 32 against a warmed cache.
 * Starts the service in this process, on DATABASE_URL (schema and data already there, e.g. after
 * `npm run seed`) or, without it, on an embedded store seeded with demo data.
 *   npx tsx scripts/bench-cache.ts [--requests 10000] [--concurrency 32]
 */
import { intArg } from './lib/args.ts';
import { startInProcess } from './lib/in-process.ts';
import { closedLoop, httpGet, keepAliveAgent } from './lib/load-driver.ts';

const USAGE = 'usage: npx tsx scripts/bench-cache.ts [--requests 10000] [--concurrency 32]';
const total = intArg(process.argv, 'requests', 10_000, USAGE);
const concurrency = intArg(process.argv, 'concurrency', 32, USAGE);

const { service, token, engineName, close } = await startInProcess({ LOG_LEVEL: 'warn' });
const agent = keepAliveAgent(concurrency);
const call = httpGet(agent, `${service.url}/api/endpoints/query/usage.api-counts?interval=daily&project=default`, { 'X-API-KEY': token });

await call(); // warm the cache entry
await closedLoop(call, { concurrency, durationMs: 0, minCalls: 1_000, maxCalls: 1_000 }); // warm the JIT and the sockets
const before = service.cache.stats();
const r = await closedLoop(call, { concurrency, durationMs: 0, minCalls: total, maxCalls: total });
const stats = service.cache.stats();
console.log(`engine: ${engineName}; ${r.calls} calls at concurrency ${concurrency}${r.errors > 0 ? `, ${r.errors} failed (${r.firstError})` : ''}`);
console.log(`requests/s: ${r.rps.toFixed(0)}`);
console.log(`latency ms: p50 ${r.p50.toFixed(2)}, p99 ${r.p99.toFixed(2)}`);
console.log(`database queries during the run: ${stats.misses + stats.refreshes - before.misses - before.refreshes} (cache hits ${stats.hits}, misses ${stats.misses}, coalesced ${stats.coalesced})`);
agent.destroy();
await close();
