/**
 * Regression: Studio's BigQuery unnests records (`CROSS JOIN UNNEST(m.request) AS request`), which
 * the translation turns into `jsonb_typeof(metadata -> 'request') = 'object'` on every row. Without
 * statistics on those expressions PostgreSQL guessed 0.5% of rows per test (one row for an hour of
 * a busy project) and planned Studio's log pages as if they were tiny: a bitmap scan and a sort of
 * every row of the hour instead of reading the newest 100 through the index (58 ms against 0.3 ms
 * at 3M rows), and whole-row sorts on disk for the event chart. sql/schema.sql keeps statistics on
 * them; here the planner's estimate must follow the rows, on both PostgreSQL engines.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pgFactory, pgliteFactory, type EngineFactory, type TestStore } from './support/engines.ts';

/** Each translated record test Studio's calls and reports make, with the table it reads. */
const RECORD_TESTS: readonly [string, string][] = [
  ['edge_logs', `jsonb_typeof(metadata -> 'request') = 'object'`],
  ['edge_logs', `jsonb_typeof(metadata -> 'response') = 'object'`],
  ['edge_logs', `jsonb_typeof((metadata -> 'request') -> 'headers') = 'object'`],
  ['edge_logs', `jsonb_typeof((metadata -> 'response') -> 'headers') = 'object'`],
  ['edge_logs', `jsonb_typeof((metadata -> 'request') -> 'cf') = 'object'`],
  ['postgres_logs', `jsonb_typeof(metadata -> 'parsed') = 'object'`],
];

const ROWS = 2000;

function plannerEstimates(factory: EngineFactory): void {
  describe(`planner statistics for translated record tests on ${factory.name}`, () => {
    let store: TestStore;
    before(async () => {
      store = await factory.open();
      const metadata = JSON.stringify({ request: { method: 'GET', headers: { accept: '*/*' }, cf: { country: 'NL' } }, response: { status_code: 200, headers: {} }, parsed: { error_severity: 'LOG' } });
      for (const table of new Set(RECORD_TESTS.map(([t]) => t))) {
        await store.admin(`insert into logs.${table} (id, timestamp, project, metadata) select 'r' || i, now() - i * interval '1 second', 'default', $1::jsonb from generate_series(1, ${ROWS}) i`, [metadata]);
        await store.admin(`analyze logs.${table}`);
      }
    });
    after(async () => {
      await store?.teardown();
    });

    for (const [table, condition] of RECORD_TESTS) {
      test(`${table}: ${condition} is estimated from the rows`, async () => {
        const result = (await store.admin(`explain select 1 from logs.${table} where ${condition}`)) as { rows: Record<string, string>[] };
        const plan = result.rows.map((r) => Object.values(r)[0]).join('\n');
        const estimate = Number(/rows=(\d+)/.exec(plan)?.[1]);
        // Every row holds the record: the estimate is (nearly) all of them, not 0.5% (10).
        assert.ok(estimate >= ROWS * 0.9, `estimated ${estimate} of ${ROWS} rows:\n${plan}`);
      });
    }
  });
}

plannerEstimates(pgFactory);
plannerEstimates(pgliteFactory);
