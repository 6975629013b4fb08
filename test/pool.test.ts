/**
 * Pool exhaustion on real PostgreSQL: more concurrent slow statements than pooled connections, all
 * from one token. Waiting for a connection (src/queue/fair-queue.ts) is bounded in time
 * (QUEUE_TIMEOUT_MS: 429, the token waits on its own statements) and in count (POOL_MAX_WAITING:
 * 503 overloaded), each with Retry-After, and the pool never opens more connections than POOL_MAX.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import type { Service } from '../src/service.ts';
import { APPLICATION_NAME } from '../src/store/postgres/pg-engine.ts';
import { pgFactory, type TestStore } from './support/engines.ts';
import { watchProcessFaults } from './support/process-faults.ts';
import { call, startTestService } from './support/service.ts';
import { queriesWithSlow, slowPath } from './support/slow-queries.ts';

const POOL_MAX = 2;
const CALLS = 10;
const SLEEP_S = 1;

interface Outcome {
  status: number;
  code: string | null;
  retryAfter: string | null;
  ms: number;
}

/** Fire CALLS slow calls at once; also sample how many connections the service holds meanwhile. */
async function burst(service: Service, store: TestStore, tag: string): Promise<{ outcomes: Outcome[]; maxConnections: number }> {
  const started = performance.now();
  let sampling = true;
  let maxConnections = 0;
  const sampler = (async () => {
    const client = new pg.Client({ connectionString: store.url });
    await client.connect();
    try {
      while (sampling) {
        const { rows } = await client.query<{ n: number }>(
          'select count(*)::int as n from pg_stat_activity where application_name = $1 and datname = current_database()',
          [APPLICATION_NAME],
        );
        maxConnections = Math.max(maxConnections, rows[0]!.n);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await client.end();
    }
  })();
  const outcomes = await Promise.all(
    Array.from({ length: CALLS }, async (_, i): Promise<Outcome> => {
      const res = await call(service.url, slowPath(SLEEP_S, `${tag}-${i}`));
      const body = (await res.json()) as { error?: { code: string } };
      return { status: res.status, code: body.error?.code ?? null, retryAfter: res.headers.get('retry-after'), ms: performance.now() - started };
    }),
  );
  sampling = false;
  await sampler;
  return { outcomes, maxConnections };
}

function describeOutcomes(outcomes: Outcome[]): string {
  return outcomes.map((o) => `${o.status}${o.code ? ` ${o.code}` : ''} at ${o.ms.toFixed(0)} ms`).join('; ');
}

describe('pool exhaustion on PostgreSQL', () => {
  const opened: { store: TestStore; service: Service }[] = [];
  const faults = watchProcessFaults();

  async function open(env: Record<string, string> = {}) {
    const store = await pgFactory.open({ poolMax: POOL_MAX, connectTimeoutMs: 5_000 });
    const service = await startTestService(store, { QUERIES_DIR: queriesWithSlow(), ...env });
    opened.push({ store, service });
    // Both connections open beforehand, so connection set-up time is not part of what is measured.
    await Promise.all(Array.from({ length: POOL_MAX }, (_, i) => call(service.url, slowPath(0.1, `warm-${i}`))));
    return { store, service };
  }

  after(async () => {
    faults.stop();
    for (const { store, service } of opened) {
      await service.close();
      await store.teardown();
    }
  });

  test(`the wait for a connection is bounded in time: ${CALLS} calls, ${POOL_MAX} connections, 500 ms wait`, async () => {
    const { store, service } = await open({ QUEUE_TIMEOUT_MS: '500' });
    const { outcomes, maxConnections } = await burst(service, store, 'time');
    const summary = describeOutcomes(outcomes);
    console.log(`pool, time bound: ${summary}; at most ${maxConnections} connections`);
    const ok = outcomes.filter((o) => o.status === 200);
    const refused = outcomes.filter((o) => o.status === 429);
    assert.equal(ok.length, POOL_MAX, summary);
    assert.equal(refused.length, CALLS - POOL_MAX, summary);
    for (const o of refused) {
      assert.equal(o.code, 'too_many_requests');
      assert.match(o.retryAfter ?? '', /^\d+$/);
      // Queued for about the connect timeout, then refused; well before the sleepers finish.
      assert.ok(o.ms >= 400 && o.ms < SLEEP_S * 1000 + 500, summary);
    }
    assert.ok(maxConnections <= POOL_MAX, `the pool opened ${maxConnections} connections`);
    // Nothing is left queued or leaked: the next call gets a connection at once.
    assert.equal((await call(service.url, slowPath(0, 'after-time'))).status, 200);
    assert.deepEqual(faults.seen, []);
  });

  test(`the wait queue is bounded in length: ${CALLS} calls, ${POOL_MAX} connections, 3 may wait`, async () => {
    const waiting = 3;
    const { store, service } = await open({ POOL_MAX_WAITING: String(waiting) });
    const { outcomes, maxConnections } = await burst(service, store, 'count');
    const summary = describeOutcomes(outcomes);
    console.log(`pool, queue bound: ${summary}; at most ${maxConnections} connections`);
    const ok = outcomes.filter((o) => o.status === 200);
    const refused = outcomes.filter((o) => o.status === 503);
    // Two run, three wait their turn and run, the rest are refused at once rather than queued.
    assert.equal(ok.length, POOL_MAX + waiting, summary);
    assert.equal(refused.length, CALLS - POOL_MAX - waiting, summary);
    for (const o of refused) {
      assert.equal(o.code, 'overloaded');
      assert.match(o.retryAfter ?? '', /^\d+$/);
      assert.ok(o.ms < SLEEP_S * 1000, `refused only after ${o.ms.toFixed(0)} ms: ${summary}`);
    }
    const last = Math.max(...ok.map((o) => o.ms));
    assert.ok(last >= 2 * SLEEP_S * 1000 - 100, `the queued calls ran after the first ones: ${summary}`);
    assert.ok(maxConnections <= POOL_MAX, `the pool opened ${maxConnections} connections`);
    assert.equal((await call(service.url, slowPath(0, 'after-count'))).status, 200);
    assert.deepEqual(faults.seen, []);
  });

  test('a caller that leaves while waiting for a connection costs no statement', async () => {
    const { service } = await open();
    const started = performance.now();
    const holders = Array.from({ length: POOL_MAX }, (_, i) => call(service.url, slowPath(SLEEP_S, `hold-${i}`)));
    await new Promise((r) => setTimeout(r, 100));
    // These queue behind the holders, then hang up; had they run, they would hold both connections for 3 s.
    const leavers = Array.from({ length: POOL_MAX }, (_, i) =>
      call(service.url, slowPath(3, `leave-${i}`), { signal: AbortSignal.timeout(300) }).then(
        () => 'answered',
        () => 'left',
      ),
    );
    for (const res of await Promise.all(holders)) assert.equal(res.status, 200);
    assert.deepEqual(await Promise.all(leavers), ['left', 'left']);
    const probeStart = performance.now();
    const probe = await call(service.url, slowPath(0, 'probe'));
    const probeMs = performance.now() - probeStart;
    assert.equal(probe.status, 200);
    assert.ok(probeMs < 1_500, `the probe waited ${probeMs.toFixed(0)} ms (${(probeStart - started).toFixed(0)} ms into the test): the leavers' statements ran`);
    assert.deepEqual(faults.seen, []);
  });
});
