/**
 * Caller statements that would run for hours, on every engine (PostgreSQL, the embedded one, chdb, a
 * ClickHouse server, a cluster): each is written in SQL both dialects answer, so the same table runs
 * everywhere. Each ends at the caller timeout (504 query_timeout) or is refused by a limit (400),
 * never a 500 nor a wait for the stored-statement timeout; a caller who hangs up has its statement
 * stopped within about a second; the same token's next call is served at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Service } from '../../src/service.ts';
import type { EngineFactory, TestStore } from '../support/engines.ts';
import { edgeRow, insertRows } from '../support/fixtures.ts';
import { call, startTestService } from '../support/service.ts';

const CALLER_TIMEOUT_MS = 2_000;
const STATEMENT_TIMEOUT_MS = 15_000;
/** What a runaway may take past its caller timeout: the engine noticing, the answer, a loaded CI machine. */
const SLACK_MS = 2_000;
/** Rows of edge_logs: a four-way cross join is 400⁴ = 2.6e10 rows, hours on any engine here. */
const ROWS = 400;

/** The runaway statements, each with why it does not finish. */
export const RUNAWAYS: readonly (readonly [label: string, sql: string])[] = [
  ['a four-way cross join, counted', 'select count(*) as n from edge_logs a cross join edge_logs b cross join edge_logs c cross join edge_logs d where a.id <> d.id'],
  ['count(distinct …) over a three-way cross join (a hash set of 6.4e7 keys)', "select count(distinct a.id || b.id || c.id) as n from edge_logs a cross join edge_logs b cross join edge_logs c"],
  ['a sort of a three-way cross join', 'select a.id, b.id as b, c.id as c from edge_logs a cross join edge_logs b cross join edge_logs c order by a.event_message || b.event_message || c.event_message desc limit 1'],
  ['string_agg over a cross join (gigabytes of text)', "select length(string_agg(a.event_message || b.event_message, ',')) as n from edge_logs a cross join edge_logs b cross join edge_logs c"],
  ['a window over a three-way cross join', 'select max(r) as r from (select row_number() over (order by a.id, b.id, c.id) as r from edge_logs a cross join edge_logs b cross join edge_logs c) as w'],
  ['grouping a three-way cross join by every combination', 'select count(*) as groups from (select a.id, b.id as b, c.id as c, count(*) as n from edge_logs a cross join edge_logs b cross join edge_logs c group by a.id, b.id, c.id) as g'],
];

const logsSql = (sql: string) => `/api/endpoints/query/logs.all?project=alpha&sql=${encodeURIComponent(sql)}`;

export function runawayBehaviour(factory: EngineFactory): void {
  describe(`runaway caller statements on ${factory.name}`, () => {
    let store: TestStore;
    let service: Service;

    before(async () => {
      store = await factory.open({ statementTimeoutMs: STATEMENT_TIMEOUT_MS });
      const rows = Array.from({ length: ROWS }, (_, i) => edgeRow(`r${String(i).padStart(4, '0')}`, new Date(Date.UTC(2026, 10, 20, 12, 0, i % 60, i)).toISOString(), 'alpha', `/rest/v1/t${i % 17}`));
      await insertRows(store, 'edge_logs', rows);
      service = await startTestService(store, { CALLER_STATEMENT_TIMEOUT_MS: String(CALLER_TIMEOUT_MS), STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) });
    });
    after(async () => {
      await service?.close();
      await store?.teardown();
    });

    /** The same token's next call: answered at once (the engine let go of the runaway). */
    const nextCallMs = async (): Promise<number> => {
      const started = performance.now();
      const res = await call(service.url, `/api/endpoints/query/logs.all?project=alpha&iso_timestamp_start=${new Date(Date.now() - Math.random() * 1e12).toISOString()}`);
      assert.equal(res.status, 200, await res.text());
      return performance.now() - started;
    };

    for (const [label, sql] of RUNAWAYS) {
      test(`${label}: ends at the caller timeout (504) or at a limit (400), and the next call is served at once`, async () => {
        const started = performance.now();
        const res = await call(service.url, logsSql(sql));
        const ms = performance.now() - started;
        const body = (await res.json()) as { error?: { code: string; message: string } };
        assert.ok([504, 400].includes(res.status), `${res.status}: ${JSON.stringify(body)}`);
        assert.ok(res.status === 504 ? body.error?.code === 'query_timeout' : ['resource_limit', 'invalid_sql', 'query_error'].includes(body.error?.code ?? ''), JSON.stringify(body));
        assert.ok(ms < CALLER_TIMEOUT_MS + SLACK_MS, `answered after ${ms.toFixed(0)} ms (caller timeout ${CALLER_TIMEOUT_MS} ms)`);
        const next = await nextCallMs();
        assert.ok(next < factory.nextCallAfterCutOffMs, `the next call took ${next.toFixed(0)} ms`);
      });
    }

    test('a caller who hangs up mid-statement: the statement is stopped within about a second, and the same token is served at once', async () => {
      // What the table's runaways left has ended (each at its timeout, above).
      let before = store.runningStatements ? await store.runningStatements() : 0;
      for (const started = performance.now(); before > 0 && performance.now() - started < 2_000; ) {
        await new Promise((r) => setTimeout(r, 50));
        before = await store.runningStatements!();
      }
      assert.equal(before, 0, 'statements still running from the runaways before');
      const gone = new AbortController();
      const pending = call(service.url, logsSql(RUNAWAYS[0]![1]), { signal: gone.signal }).catch((err: Error) => err);
      await new Promise((r) => setTimeout(r, 400));
      const running = store.runningStatements ? await store.runningStatements() : undefined;
      if (running !== undefined) assert.equal(running, 1, 'the runaway is running before its caller leaves');
      const left = performance.now();
      gone.abort();
      await pending;
      let stillRunning = running;
      while (stillRunning !== undefined && stillRunning > 0 && performance.now() - left < 3_000) {
        await new Promise((r) => setTimeout(r, 50));
        stillRunning = await store.runningStatements!();
      }
      const stoppedMs = performance.now() - left;
      if (stillRunning !== undefined) assert.equal(stillRunning, 0, `still running ${stoppedMs.toFixed(0)} ms after its caller left`);
      assert.ok(stoppedMs < 1_500, `stopped ${stoppedMs.toFixed(0)} ms after its caller left`);
      // On the embedded engines (one statement at a time) this is also the proof that it stopped.
      const next = await nextCallMs();
      assert.ok(next < factory.nextCallAfterCutOffMs, `the next call took ${next.toFixed(0)} ms`);
    });
  });
}
