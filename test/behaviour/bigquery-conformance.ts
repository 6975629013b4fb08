/**
 * BigQuery conformance on every engine (docs/logflare-compat.md): each row of
 * test/support/bigquery-conformance.ts sent as Studio's and the MCP server's caller sql is, through
 * `logs.all` with COMPAT=logflare. A row passes when the engine answers BigQuery's documented value,
 * refuses the construct by name before running anything (`400 invalid_sql`), or, where BigQuery
 * documents an error, answers a 4xx. Any other answer fails, and every failing row is listed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Service } from '../../src/service.ts';
import type { EngineFactory, TestStore } from '../support/engines.ts';
import { insertRows } from '../support/fixtures.ts';
import { call, startTestService } from '../support/service.ts';
import { CONFORMANCE, ERROR, type ConformanceCase } from '../support/bigquery-conformance.ts';

type Json = Record<string, any>;
type Outcome = 'answered' | 'refused' | 'error';

/** The least share of rows answered (a value, or BigQuery's error) rather than refused, on every engine. */
const MIN_ANSWERED = 0.95;

export function bigqueryConformanceBehaviour(factory: EngineFactory): void {
  describe(`BigQuery conformance on ${factory.name}`, () => {
    let store: TestStore;
    let service: Service;

    before(async () => {
      store = await factory.open({ responseShape: 'logflare' });
      await insertRows(store, 'edge_logs', [{ id: 'bq-1', timestamp: new Date().toISOString(), project: 'bq', event_message: 'one row', metadata: {} }]);
      service = await startTestService(store, { COMPAT: 'logflare', CALLER_STATEMENT_TIMEOUT_MS: '15000' });
    });
    after(async () => {
      await service?.close();
      await store?.teardown();
    });

    /** The row's outcome, or why it fails. */
    const run = async (c: ConformanceCase): Promise<{ outcome: Outcome; message?: string } | { failure: string }> => {
      const sql = c.query ? c.sql : `select ${c.sql} as v from edge_logs limit 1`;
      const res = await call(service.url, `/api/endpoints/query/logs.all?${new URLSearchParams({ project: 'bq', sql })}`);
      const body = (await res.json()) as Json;
      if (res.status === 400 && body.error?.code === 'invalid_sql') return { outcome: 'refused', message: body.error.message };
      if (c.expected === ERROR) {
        return res.status >= 400 && res.status < 500 ? { outcome: 'error' } : { failure: `BigQuery errors; answered ${res.status} ${JSON.stringify(body).slice(0, 200)}` };
      }
      if (res.status !== 200) return { failure: `answered ${res.status} ${JSON.stringify(body).slice(0, 300)}` };
      const got = (body.result as Json[])[0]?.v;
      try {
        assert.deepStrictEqual(got, c.expected);
        return { outcome: 'answered' };
      } catch {
        return { failure: `BigQuery: ${JSON.stringify(c.expected)}, here: ${JSON.stringify(got)}` };
      }
    };

    const floor = MIN_ANSWERED;
    test(`${CONFORMANCE.length} rows: each answered as BigQuery documents it, or refused by name; at least ${floor * 100}% answered`, async () => {
      const failures: string[] = [];
      const refused: string[] = [];
      let answered = 0;
      for (const c of CONFORMANCE) {
        const r = await run(c);
        if ('failure' in r) failures.push(`${c.sql}  [${c.source}]: ${r.failure}`);
        else if (r.outcome === 'refused') refused.push(`${c.sql}: ${r.message}`);
        else answered++;
      }
      // The counts docs/logflare-compat.md quotes, per engine.
      console.log(`# ${factory.name}: ${CONFORMANCE.length} rows, ${answered} answered, ${refused.length} refused, ${failures.length} failing`);
      for (const line of refused) console.log(`#   refused: ${line.replaceAll('\n', ' ')}`);
      assert.deepEqual(failures, [], `${failures.length} rows differ from BigQuery:\n${failures.join('\n')}`);
      for (const line of refused) assert.match(line, /: .*[A-Za-z_]{3,}/, 'a refusal names the construct');
      assert.ok(answered / CONFORMANCE.length >= floor, `${answered} of ${CONFORMANCE.length} answered`);
    });
  });
}
