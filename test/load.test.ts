/**
 * CI-sized load run (scripts/load.ts's mix): 2,000 calls at concurrency 50 against real PostgreSQL
 * with demo data. Every call must get an HTTP answer and none a 5xx; latency is printed, never
 * asserted (CI machines vary too much).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runLoad } from '../scripts/lib/load-driver.ts';
import { mixedCalls } from '../scripts/lib/load-mix.ts';
import { formatSummary } from '../scripts/lib/load-stats.ts';
import { Prng } from '../src/store/demo/prng.ts';
import { DEMO_PROJECTS, generateDemoLogs, insertDemoLogs } from '../src/store/demo/demo-data.ts';
import type { Service } from '../src/service.ts';
import { pgFactory, SCHEMA, type TestStore } from './support/engines.ts';
import { watchProcessFaults } from './support/process-faults.ts';
import { startTestService, TOKEN } from './support/service.ts';

const REQUESTS = 2_000;
const CONCURRENCY = 50;

let store: TestStore;
let service: Service;

before(async () => {
  // A generous connection wait: this test is about errors under ordinary load, not about a slow CI box.
  store = await pgFactory.open({ poolMax: 10, connectTimeoutMs: 10_000 });
  await insertDemoLogs(store.admin, SCHEMA, generateDemoLogs({ rows: 3_000 }));
  await store.admin('analyze');
  // One token stands for many clients here: the per-token statement limit is not under test.
  service = await startTestService(store, {});
});

after(async () => {
  await service?.close();
  await store?.teardown();
});

test(`${REQUESTS} mixed calls at concurrency ${CONCURRENCY} on PostgreSQL: no 5xx, no transport errors`, async () => {
  const faults = watchProcessFaults();
  let summary;
  try {
    summary = await runLoad({ url: service.url, token: TOKEN, concurrency: CONCURRENCY, requests: REQUESTS, next: mixedCalls(new Prng(1), DEMO_PROJECTS) });
  } finally {
    faults.stop();
  }
  const report = formatSummary(summary);
  console.log(`load on pg:\n${report}`);
  assert.equal(summary.requests, REQUESTS);
  assert.deepEqual(summary.transportErrors, {}, report);
  // Every kind of call, caller sql included, is answered 200.
  for (const [label, counts] of Object.entries(summary.byLabel)) {
    assert.deepEqual(Object.keys(counts), ['200'], `${label}: ${JSON.stringify(counts)}\n${report}`);
  }
  assert.ok(summary.byLabel['logs.all+sql'] !== undefined && summary.byLabel['usage+sql'] !== undefined, `the mix must include caller sql\n${report}`);
  assert.deepEqual(summary.byCode, {}, report);
  assert.deepEqual(faults.seen, []);
  const stats = service.cache.stats();
  assert.ok(stats.hits > REQUESTS / 4, `the hot keys should mostly hit the cache: ${JSON.stringify(stats)}`);
});
