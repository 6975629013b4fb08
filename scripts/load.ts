/**
 * Mixed load: both stored queries, cached and uncached, with and without redaction, GET and POST,
 * some with sandboxed `sql`, at a fixed concurrency for a fixed number of calls; prints throughput,
 * p50/p99 latency and counts per status, error code and kind of call.
 *
 *   npx tsx scripts/load.ts [--requests 10000] [--concurrency 50] [--seed 1]
 *       in-process service: on DATABASE_URL when set, else an embedded store with demo data
 *   npx tsx scripts/load.ts --url http://127.0.0.1:4000 --token $TOKEN [...]
 *       a service already running (its data should hold the demo projects: npm run seed)
 */
import { DEMO_PROJECTS } from '../src/store/demo/demo-data.ts';
import { intArg, stringArg } from './lib/args.ts';
import { startInProcess } from './lib/in-process.ts';
import { runLoad } from './lib/load-driver.ts';
import { mixedCalls } from './lib/load-mix.ts';
import { formatSummary } from './lib/load-stats.ts';
import { Prng } from '../src/store/demo/prng.ts';

const USAGE = 'usage: npx tsx scripts/load.ts [--requests N] [--concurrency C] [--seed S] [--url URL --token TOKEN]';
const argv = process.argv.slice(2);
const requests = intArg(argv, 'requests', 10_000, USAGE);
const concurrency = Math.max(1, intArg(argv, 'concurrency', 50, USAGE));
const seed = intArg(argv, 'seed', 1, USAGE);
const externalUrl = stringArg(argv, 'url');
const externalToken = stringArg(argv, 'token');
if ((externalUrl === undefined) !== (externalToken === undefined)) {
  console.error(`--url and --token go together\n${USAGE}`);
  process.exit(2);
}

const inProcess = externalUrl === undefined ? await startInProcess() : null;
const url = externalUrl ?? inProcess!.service.url;
const token = externalToken ?? inProcess!.token;
console.log(`load: ${requests} calls at concurrency ${concurrency}, seed ${seed}, against ${url}${inProcess ? ` (in-process, engine ${inProcess.engineName})` : ''}`);

const summary = await runLoad({ url, token, concurrency, requests, next: mixedCalls(new Prng(seed), DEMO_PROJECTS) });
console.log(formatSummary(summary));
if (inProcess) {
  const c = inProcess.service.cache.stats();
  console.log(`cache: hits ${c.hits}, misses ${c.misses}, coalesced ${c.coalesced}, evictions ${c.evictions}, entries ${c.entries}`);
  await inProcess.close();
}
const serverErrors = Object.entries(summary.byStatus).filter(([s]) => s === 'transport' || Number(s) >= 500);
process.exitCode = serverErrors.length > 0 ? 1 : 0;
