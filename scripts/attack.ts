/**
 * The hostile-caller figures, measured on the service as `npm start` runs it (a child process):
 * the embedded engine's (or PostgreSQL's) 504 latency for a runaway statement, the service's peak
 * RSS under oversized results, and other callers' latency while one token floods the service with
 * slow statements. test/behaviour/hostile.ts asserts the behaviour; this prints the numbers.
 *
 *   npx tsx scripts/attack.ts [--engine embedded|pg] [--seconds 10]
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { applySchema } from '../src/store/schema.ts';
import { startNodeChild } from './bench/child.ts';
import { npmStartCommand } from './lib/npm-start.ts';
import { growDemoData } from './bench/seed-stages.ts';
import { intArg, stringArg } from './lib/args.ts';
import { closedLoop, httpGet, keepAliveAgent } from './lib/load-driver.ts';
import { createDatabase, startPostgres } from './lib/pg-server.ts';

const USAGE = 'usage: npx tsx scripts/attack.ts [--engine embedded|pg] [--seconds 10]';
const engine = stringArg(process.argv, 'engine') ?? 'embedded';
const seconds = intArg(process.argv, 'seconds', 10, USAGE);
if (engine !== 'embedded' && engine !== 'pg') throw new Error(USAGE);
const ATTACKER = 'attacker-token-0123456789abcdef';
const OTHER = 'other-caller-token-0123456789ab';

async function get(url: string, token: string): Promise<{ status: number; code: string; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { 'X-API-KEY': token } });
  const text = await res.text();
  let code = '';
  try {
    code = (JSON.parse(text) as { error?: { code: string } }).error?.code ?? '';
  } catch {
    code = 'not json';
  }
  return { status: res.status, code, ms: performance.now() - t0 };
}

/** "3× 400 result_too_large, 1× 504 query_timeout" */
function histogram(rs: readonly { status: number; code: string }[]): string {
  const m = new Map<string, number>();
  for (const r of rs) {
    const key = r.code === '' ? String(r.status) : `${r.status} ${r.code}`;
    m.set(key, (m.get(key) ?? 0) + 1);
  }
  return [...m].map(([k, n]) => `${n}× ${k}`).join(', ');
}

async function main(): Promise<void> {
  const env: Record<string, string> = { ACCESS_TOKENS: `${ATTACKER},${OTHER}`, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  let server: Awaited<ReturnType<typeof startPostgres>> | undefined;
  if (engine === 'pg') {
    server = await startPostgres();
    const url = await createDatabase(server, 'attack');
    const admin = new pg.Pool({ connectionString: url, max: 4 });
    await applySchema((sql, params) => (params ? admin.query(sql, [...params]) : admin.query(sql)), 'logs');
    await growDemoData(admin, 'logs', { seed: 1, now: new Date() }, 0, 20_000);
    await admin.end();
    env.DATABASE_URL = url;
  }
  const start = npmStartCommand();
  const service = await startNodeChild({ ...start, env: { ...start.env, ...env }, ready: /listening on (http:\/\/\S+)/, timeoutMs: 120_000 });
  const base = service.ready;
  const logsSql = (sql: string) => `${base}/api/endpoints/query/logs.all?project=default&sql=${encodeURIComponent(sql)}`;
  try {
    console.log(`engine: ${engine}; service pid ${service.pid}; RSS after start ${service.memory().rssMb.toFixed(0)} MB (peak so far ${service.memory().peakMb.toFixed(0)} MB)`);

    // 1. A runaway statement: how long until its 504, and /health meanwhile.
    const runaway = get(logsSql('select count(*) as n from edge_logs a, edge_logs b, edge_logs c'), ATTACKER);
    await new Promise((r) => setTimeout(r, 300));
    const health = await get(`${base}/health`, OTHER);
    const r1 = await runaway;
    console.log(`runaway cross join: ${r1.status} ${r1.code} after ${r1.ms.toFixed(0)} ms (CALLER_STATEMENT_TIMEOUT_MS default 5000); /health meanwhile ${health.status} in ${health.ms.toFixed(1)} ms`);

    // 2. Oversized results (issue 13 item 2), three at once, then one huge value.
    const before = service.memory();
    const huge = await Promise.all([
      ...Array.from({ length: 3 }, () => get(logsSql("select repeat('x', 6000000) as big, 1 as k from generate_series(1, 1000)"), ATTACKER)),
    ]);
    const single = await get(logsSql("select repeat('x', 500000000) as big"), ATTACKER);
    const after = service.memory();
    console.log(`oversized results: ${histogram([...huge, single])}; service RSS ${before.rssMb.toFixed(0)} → ${after.rssMb.toFixed(0)} MB, peak (VmHWM) ${after.peakMb.toFixed(0)} MB; alive: ${service.exited() ?? 'yes'}`);

    // 3. One token floods with slow regular expressions while another calls logs.all.
    const pattern = (i: number) => `q{0,${i}}(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1x`;
    let stop = false;
    const flood: { status: number; code: string }[] = [];
    let n = 0;
    const attackers = Array.from({ length: 11 }, async () => {
      while (!stop) flood.push(await get(`${base}/api/endpoints/query/usage.api-counts?interval=daily&project=${encodeURIComponent(pattern(n++))}`, ATTACKER));
    });
    await new Promise((r) => setTimeout(r, 500));
    const agent = keepAliveAgent(4);
    const others = await closedLoop(httpGet(agent, `${base}/api/endpoints/query/logs.all?project=default`, { 'X-API-KEY': OTHER }), { concurrency: 4, durationMs: seconds * 1000 });
    const ready = await get(`${base}/ready`, OTHER);
    stop = true;
    await Promise.all(attackers);
    agent.destroy();
    console.log(`flood (11 concurrent backtracking regexes from one token, ${seconds} s): attacker got ${histogram(flood)}`);
    console.log(`other token's logs.all at c=4 meanwhile: ${others.calls} calls, ${others.errors} failed${others.firstError ? ` (${others.firstError})` : ''}, p50 ${others.p50.toFixed(1)} ms, p99 ${others.p99.toFixed(1)} ms; /ready ${ready.status}`);
    console.log(`service peak RSS over the whole run (VmHWM): ${service.memory().peakMb.toFixed(0)} MB`);
  } finally {
    await service.stop();
    await server?.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(`attack: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
