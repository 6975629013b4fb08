/**
 * Soak: many distinct parameter sets for a few minutes against an in-process service, printing
 * memory over time. Nearly every usage.api-counts call uses a project pattern never seen before, so
 * the cache fills to its bound and then evicts continuously; with the bounds holding, RSS and heap
 * level off once the cache is full.
 *
 *   npx tsx scripts/soak.ts [--seconds 180] [--every 15] [--concurrency 20] [--seed 1]
 *   node --expose-gc --import tsx scripts/soak.ts …   also prints the heap left after a full GC
 *
 * On DATABASE_URL when set (schema and demo data there: npm run schema && npm run seed), else on an
 * embedded store with demo data. CACHE_MAX_ENTRIES defaults to 500 here (so the bound is reached
 * early) unless set; CACHE_MAX_BYTES as configured (set it low, with CACHE_MAX_ENTRIES high, to
 * soak the byte bound instead).
 */
import { DEMO_PROJECTS } from '../src/store/demo/demo-data.ts';
import { intArg } from './lib/args.ts';
import { startInProcess } from './lib/in-process.ts';
import { runLoad, type LoadCall } from './lib/load-driver.ts';
import { formatSummary } from './lib/load-stats.ts';
import { Prng } from '../src/store/demo/prng.ts';

const USAGE = 'usage: npx tsx scripts/soak.ts [--seconds S] [--every S] [--concurrency C] [--seed N]';
const argv = process.argv.slice(2);
const seconds = intArg(argv, 'seconds', 180, USAGE);
const every = Math.max(1, intArg(argv, 'every', 15, USAGE));
const concurrency = Math.max(1, intArg(argv, 'concurrency', 20, USAGE));
const seed = intArg(argv, 'seed', 1, USAGE);

// With --expose-gc, the heap that survives a full collection: what is really retained, without the
// sawtooth of garbage not yet collected.
const gc = (globalThis as { gc?: () => void }).gc;
const app = await startInProcess(process.env.CACHE_MAX_ENTRIES ? {} : { CACHE_MAX_ENTRIES: '500' });
const { cacheMaxEntries, cacheMaxBytes } = app.config;
console.log(
  `soak: ${seconds} s at concurrency ${concurrency}, engine ${app.engineName}, cache bound ${cacheMaxEntries} entries / ${mb(cacheMaxBytes)} MB` +
    (gc ? '; heap sampled after a full GC' : ''),
);

const rng = new Prng(seed);
const INTERVALS = ['daily', 'hourly', 'minutely'];
/** Every call a new parameter set: cache misses that are stored, then pushed out. */
function next(i: number): LoadCall {
  const kind = rng.int(100);
  const project = rng.pick(DEMO_PROJECTS);
  if (kind < 75) {
    const pattern = encodeURIComponent(`^https://${project}\\.|soak-${seed}-${i}`);
    const headers: Record<string, string> = kind < 15 ? { 'LF-ENDPOINT-REDACT-PII': 'true' } : {};
    return { label: 'usage distinct', method: 'GET', path: `/api/endpoints/query/usage.api-counts?interval=${rng.pick(INTERVALS)}&project=${pattern}`, headers };
  }
  const start = encodeURIComponent(new Date(Date.now() - rng.between(1, 7 * 24 * 60) * 60e3).toISOString());
  return { label: 'logs.all range', method: 'GET', path: `/api/endpoints/query/logs.all?project=${project}&iso_timestamp_start=${start}` };
}

const started = performance.now();
let done = 0;
let lastDone = 0;
let lastAt = started;
interface Sample {
  t: number;
  rss: number;
  heap: number;
  evictions: number;
}
const samples: Sample[] = [];
function report(): void {
  const now = performance.now();
  gc?.();
  const m = process.memoryUsage();
  const c = app.service.cache.stats();
  const rate = ((done - lastDone) * 1000) / Math.max(1, now - lastAt);
  lastDone = done;
  lastAt = now;
  const t = (now - started) / 1000;
  samples.push({ t, rss: m.rss, heap: m.heapUsed, evictions: c.evictions });
  console.log(
    `t=${t.toFixed(0).padStart(4)} s  calls ${String(done).padStart(7)} (${rate.toFixed(0).padStart(4)}/s)  rss ${mb(m.rss).padStart(6)} MB  heapUsed ${mb(m.heapUsed).padStart(6)} MB` +
      `  external ${mb(m.external).padStart(5)} MB  cache ${c.entries} entries, ${mb(c.bytes)} MB, ${c.evictions} evicted`,
  );
}
const timer = setInterval(report, every * 1000);
timer.unref();

const summary = await runLoad({
  url: app.service.url,
  token: app.token,
  concurrency,
  until: () => performance.now() - started >= seconds * 1000,
  next,
  onResult: () => done++,
});
clearInterval(timer);
report();
console.log(formatSummary(summary));

// Once the cache evicts it is at one of its bounds; from then on memory should stay flat.
const full = samples.filter((s) => s.evictions > 0);
if (full.length >= 2) {
  const first = full[0]!;
  const last = full[full.length - 1]!;
  const peak = Math.max(...full.map((s) => s.rss));
  console.log(
    `cache full from t=${first.t.toFixed(0)} s: rss ${mb(first.rss)} → ${mb(last.rss)} MB (peak ${mb(peak)} MB), ` +
      `heapUsed ${mb(first.heap)} → ${mb(last.heap)} MB over ${(last.t - first.t).toFixed(0)} s`,
  );
} else {
  console.log('the cache never reached its bounds: run longer, or lower CACHE_MAX_ENTRIES or CACHE_MAX_BYTES');
}
await app.close();

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
