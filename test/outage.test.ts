/**
 * Database faults on a throwaway PostgreSQL server, with the service running throughout and never
 * restarted: the server stopped and started again, backends terminated, a backend crashing
 * mid-statement, a restart in the middle of a load run. Calls answer 503 promptly while the
 * database is away and succeed again by themselves; the process never sees an unhandled error.
 * Needs the throwaway server (TEST_DATABASE_URL cannot be stopped and started).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { runLoad } from '../scripts/lib/load-driver.ts';
import { mixedCalls } from '../scripts/lib/load-mix.ts';
import type { CallResult } from '../scripts/lib/load-stats.ts';
import { formatSummary } from '../scripts/lib/load-stats.ts';
import { Prng } from '../src/store/demo/prng.ts';
import { DEMO_PROJECTS, generateDemoLogs, insertDemoLogs } from '../src/store/demo/demo-data.ts';
import type { Service } from '../src/service.ts';
import { APPLICATION_NAME } from '../src/store/postgres/pg-engine.ts';
import { pgFactory, queryOnce, SCHEMA, type TestStore } from './support/engines.ts';
import { watchProcessFaults, type ProcessFaults } from './support/process-faults.ts';
import type { PgServer } from '../scripts/lib/pg-server.ts';
import { call, startTestService, TOKEN } from './support/service.ts';
import { queriesWithSlow, slowPath } from './support/slow-queries.ts';

const CONNECT_TIMEOUT_MS = 1_000;
/** "Promptly": the connect timeout bounds every call while the database is away. */
const PROMPT_MS = 3_000;
const RECOVERY_MS = 15_000;
const LOGS = '/api/endpoints/query/logs.all?project=default';
const USAGE = '/api/endpoints/query/usage.api-counts?interval=daily&project=%5Ehttps%3A%2F%2Fdefault%5C.';

describe('database outages on PostgreSQL', () => {
  let store: TestStore;
  let server: PgServer;
  let service: Service;
  let base: string;
  let faults: ProcessFaults;
  let adminUrl: string;

  before(async () => {
    faults = watchProcessFaults();
    store = await pgFactory.open({ connectTimeoutMs: CONNECT_TIMEOUT_MS, poolMax: 5 });
    server = store.server!;
    adminUrl = store.url!;
    await insertDemoLogs(store.admin, SCHEMA, generateDemoLogs({ rows: 1_000 }));
    // One token stands for many clients here: the per-token statement limit is not under test.
    service = await startTestService(store, { QUERIES_DIR: queriesWithSlow() });
    base = service.url;
  });

  after(async () => {
    faults?.stop();
    await service?.close();
    await store?.teardown();
  });

  /** Run one statement on a fresh superuser connection (not the service's pool). */
  const admin = <T extends Record<string, unknown>>(sql: string): Promise<T[]> => queryOnce<T>(adminUrl, sql);

  /** Call `path` until it answers 200; resolve with how long that took. */
  async function untilOk(path: string, withinMs: number): Promise<number> {
    const started = performance.now();
    let last = '';
    while (performance.now() - started < withinMs) {
      const res = await call(base, path);
      if (res.status === 200) return performance.now() - started;
      last = `${res.status} ${await res.text()}`;
      await sleep(100);
    }
    assert.fail(`${path} still failing after ${withinMs} ms: ${last}`);
  }

  async function expectUnavailable(res: Response, elapsedMs: number): Promise<void> {
    assert.equal(res.status, 503, await res.clone().text());
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'database_unavailable');
    assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
    assert.ok(elapsedMs < PROMPT_MS, `answered after ${elapsedMs.toFixed(0)} ms`);
  }

  test('server stopped: 503 promptly, /health 200, /ready 503, cached entries still served; back by itself', async () => {
    const primed = await call(base, USAGE);
    assert.equal(primed.status, 200);
    const primedBody = await primed.text();
    assert.equal((await call(base, LOGS)).status, 200);

    await server.stop();
    try {
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const res = await call(base, LOGS);
        await expectUnavailable(res, performance.now() - t0);
      }
      const t0 = performance.now();
      const burst = await Promise.all(Array.from({ length: 10 }, (_, i) => call(base, `${LOGS}&iso_timestamp_end=2100-01-01T00:00:${String(i).padStart(2, '0')}Z`)));
      for (const res of burst) await expectUnavailable(res, performance.now() - t0);

      // The cache keeps answering what it holds, without the database.
      const cached = await call(base, USAGE);
      assert.equal(cached.status, 200);
      assert.match(cached.headers.get('cache-status') ?? '', /; hit;/);
      assert.equal(await cached.text(), primedBody);
      const t1 = performance.now();
      await expectUnavailable(await call(base, USAGE.replace('daily', 'hourly')), performance.now() - t1);

      assert.equal((await call(base, '/health')).status, 200);
      const t2 = performance.now();
      await expectUnavailable(await call(base, '/ready'), performance.now() - t2);
    } finally {
      await server.start();
    }
    const recoveredMs = await untilOk(LOGS, RECOVERY_MS);
    console.log(`outage: calls succeeded ${recoveredMs.toFixed(0)} ms after PostgreSQL was back`);
    assert.equal((await call(base, '/ready')).status, 200);
    assert.equal((await call(base, USAGE.replace('daily', 'hourly'))).status, 200);
    assert.deepEqual(faults.seen, []);
  });

  test("pg_terminate_backend on the service's connections: the next calls all succeed", async () => {
    for (let round = 0; round < 3; round++) {
      // Fill the pool, so every connection the next calls pick up is one about to be killed.
      const held = await Promise.all(Array.from({ length: 5 }, (_, i) => call(base, slowPath(0.05, `fill-${round}-${i}`))));
      for (const res of held) assert.equal(res.status, 200);
      const [killed] = await admin<{ n: number }>(
        `select count(*)::int as n from (select pg_terminate_backend(pid) from pg_stat_activity where application_name = '${APPLICATION_NAME}') t`,
      );
      assert.ok(killed!.n >= 1, `round ${round}: no connection of the service to kill`);
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => call(base, `${LOGS}&iso_timestamp_end=2100-01-01T00:${String(round).padStart(2, '0')}:${String(i).padStart(2, '0')}Z`)));
      for (const res of answers) assert.equal(res.status, 200, `round ${round}: ${await res.text()}`);
      for (let i = 0; i < 3; i++) assert.equal((await call(base, LOGS)).status, 200);
    }
    assert.deepEqual(faults.seen, []);
  });

  test('a backend crashing mid-statement: the call fails cleanly, the process survives, calls succeed again', async () => {
    const inFlight = call(base, slowPath(5, 'crash'));
    let pid: number | undefined;
    for (let i = 0; i < 50 && pid === undefined; i++) {
      await sleep(50);
      const rows = await admin<{ pid: number }>(`select pid from pg_stat_activity where application_name = '${APPLICATION_NAME}' and query like '%pg_sleep%' and state = 'active'`);
      pid = rows[0]?.pid;
    }
    assert.ok(pid !== undefined, 'the slow statement never showed up in pg_stat_activity');
    // SIGKILL: the socket closes with no error message, and PostgreSQL restarts every backend.
    process.kill(pid, 'SIGKILL');
    const res = await inFlight;
    assert.equal(res.status, 503, await res.clone().text());
    const recoveredMs = await untilOk(LOGS, RECOVERY_MS);
    console.log(`crash: calls succeeded again ${recoveredMs.toFixed(0)} ms after the backend was killed`);
    assert.deepEqual(faults.seen, []);
  });

  test('a restart in the middle of a load run: every call answered 200 or 503, none hangs, all succeed afterwards', async () => {
    const results: CallResult[] = [];
    let stop = false;
    const load = runLoad({
      url: base,
      token: TOKEN,
      concurrency: 20,
      until: () => stop,
      next: mixedCalls(new Prng(7), DEMO_PROJECTS),
      timeoutMs: 10_000,
      onResult: (r) => results.push(r),
    });
    const runStart = performance.now();
    let restartedAt = 0;
    try {
      await sleep(1_000);
      await server.stop();
      await sleep(1_500);
      await server.start();
      restartedAt = performance.now() - runStart;
      await untilOk(LOGS, RECOVERY_MS);
      await sleep(2_000);
    } finally {
      stop = true;
    }
    const summary = await load;
    const report = formatSummary(summary);
    console.log(`load across a restart:\n${report}`);

    assert.deepEqual(summary.transportErrors, {}, report);
    assert.ok(summary.maxMs < 2 * PROMPT_MS, `a call took ${summary.maxMs.toFixed(0)} ms\n${report}`);
    for (const r of results) {
      if (r.status === 200) continue;
      assert.equal(r.status, 503, `${r.label} answered ${r.status} ${r.code}\n${report}`);
      assert.equal(r.code, 'database_unavailable');
      assert.ok(r.retryAfter !== null, '503 without Retry-After');
    }
    const unavailable = results.filter((r) => r.status === 503);
    assert.ok(unavailable.length > 0, `the outage was never observed\n${report}`);
    // A call started once PostgreSQL accepts connections again succeeds (the margin covers timer slack).
    const settled = restartedAt + 500;
    const late = unavailable.filter((r) => r.startedAt > settled);
    assert.deepEqual(late.map((r) => `${r.label} at ${r.startedAt.toFixed(0)} ms`), [], `503s after the restart at ${restartedAt.toFixed(0)} ms`);
    assert.ok(results.some((r) => r.startedAt > settled && r.status === 200), 'no successful call after the restart');
    assert.deepEqual(faults.seen, []);
  });
});
