/**
 * A connection that stops answering (the server process stopped, a network path gone silent)
 * sends nothing, so the statement timeout never answers either: the engine's read timeout
 * (src/store/postgres/pg-engine.ts) must end the call as 503 `database_unavailable`, drop that connection
 * and leave the service answering from a new one. Simulated with SIGSTOP on the service's own
 * backend, so it needs the throwaway server (a process this test may signal).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { Service } from '../src/service.ts';
import type { Engine } from '../src/store/engine.ts';
import { APPLICATION_NAME, createPgEngine } from '../src/store/postgres/pg-engine.ts';
import { pgFactory, queryOnce, SCHEMA, type TestStore } from './support/engines.ts';
import { watchProcessFaults, type ProcessFaults } from './support/process-faults.ts';
import { call, startTestService } from './support/service.ts';

const READ_TIMEOUT_MS = 700;
const LOGS = '/api/endpoints/query/logs.all?project=';

describe('read timeout on PostgreSQL', () => {
  let store: TestStore;
  let engine: Engine;
  let service: Service;
  let stopped: number | undefined;
  let faults: ProcessFaults;

  before(async () => {
    faults = watchProcessFaults();
    store = await pgFactory.open();
    // One connection: the backend stopped below is the one the next call must use.
    engine = createPgEngine({ connectionString: store.url!, schema: SCHEMA, statementTimeoutMs: 5_000, readTimeoutMs: READ_TIMEOUT_MS, poolMax: 1, connectTimeoutMs: 2_000 });
    service = await startTestService({ ...store, engine });
  });

  after(async () => {
    faults?.stop();
    if (stopped !== undefined) process.kill(stopped, 'SIGCONT');
    await service?.close();
    await engine?.close();
    await store?.teardown();
  });

  /** The backends of the service's connections. */
  async function backendPids(): Promise<number[]> {
    const rows = await queryOnce<{ pid: number }>(store.url!, 'select pid from pg_stat_activity where application_name = $1', [APPLICATION_NAME]);
    return rows.map((r) => r.pid);
  }

  test('a backend that stops answering: 503 after the read timeout, then calls succeed on a new connection', { timeout: 30_000 }, async () => {
    assert.equal(store.server!.external, false, 'stopping a backend needs the throwaway server (unset TEST_DATABASE_URL)');
    // Distinct projects: logs.all is uncached, but keep every call a real statement regardless.
    const first = await call(service.url, `${LOGS}a`);
    assert.equal(first.status, 200, await first.text());
    const pids = await backendPids();
    assert.equal(pids.length, 1, `the service should hold exactly one connection: ${pids.join(', ')}`);
    stopped = pids[0]!;
    process.kill(stopped, 'SIGSTOP');

    const started = performance.now();
    const res = await call(service.url, `${LOGS}b`);
    const elapsedMs = performance.now() - started;
    const body = (await res.json()) as { error: { code: string } };
    assert.deepEqual([res.status, body.error.code], [503, 'database_unavailable']);
    // Not before the read timeout (the statement was given its time), and not much after it.
    assert.ok(elapsedMs >= READ_TIMEOUT_MS - 50 && elapsedMs < READ_TIMEOUT_MS + 2_000, `answered after ${elapsedMs.toFixed(0)} ms`);

    // The stopped backend's connection was dropped: the next call opens a new one and succeeds
    // while the old backend is still stopped.
    const next = await call(service.url, `${LOGS}c`);
    assert.equal(next.status, 200, await next.text());
    assert.ok((await backendPids()).some((pid) => pid !== stopped), 'no new connection');
    process.kill(stopped, 'SIGCONT');
    stopped = undefined;
    // The cut connection's late socket events found a listener: nothing reached the process.
    await sleep(200);
    assert.deepEqual(faults.seen, []);
  });
});
