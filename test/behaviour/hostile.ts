/**
 * A hostile token holder, on every engine (the embedded default included): each attack as a table
 * entry with the request as an attacker sends it and what must hold (status and code, the process
 * alive and within its memory bound, other callers served, the store intact).
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, test } from 'node:test';
import type { Service } from '../../src/service.ts';
import type { EngineFactory, TestStore } from '../support/engines.ts';
import { edgeRow, insertRows } from '../support/fixtures.ts';
import { call, startTestService, TOKEN } from '../support/service.ts';

const OTHER = 'other-token-0123456789abcdef';
const CALLER_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 4_000;
const MAX_RESULT_BYTES = 1024 * 1024;
/** Runaway calls beyond the engine's connections that one token sends at once. */
const BEYOND = 3;
const logsSql = (sql: string) => `/api/endpoints/query/logs.all?project=alpha&sql=${encodeURIComponent(sql)}`;

type Json = { error?: { code: string }; result?: Record<string, unknown>[] };

/** Peak RSS of this process (the service runs in it) while `work` runs, sampled every 20 ms, and its RSS before. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ value: T; peakMb: number; beforeMb: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  try {
    const value = await work();
    return { value, peakMb: Math.max(peak, process.memoryUsage.rss()) / 2 ** 20, beforeMb: before / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

async function answer(res: Response): Promise<{ status: number; code: string | undefined; body: Json; retryAfter: string | null }> {
  const body = (await res.json()) as Json;
  return { status: res.status, code: body.error?.code, body, retryAfter: res.headers.get('retry-after') };
}

/** The hostile suite against one engine; run-behaviour.ts runs it per engine. */
export function hostileBehaviour(factory: EngineFactory): void {
  describe(`hostile callers on ${factory.name}`, () => {
    let store: TestStore;
    let service: Service;
    let base: string;

    before(async () => {
      store = await factory.open({ statementTimeoutMs: STATEMENT_TIMEOUT_MS, maxResultBytes: MAX_RESULT_BYTES });
      await insertRows(store, 'edge_logs', [edgeRow('h1', '2026-11-20T12:00:00.000001Z', 'alpha', '/rest/v1/todos')]);
      // Enough rows that a three-way cross join never finishes (3000³ ≈ 2.7e10 pairs).
      await store.admin(`insert into logs.edge_logs (id, timestamp, project) select 'x' || g, timestamp '2026-01-01' + g * interval '1 second', 'alpha' from generate_series(1, 3000) g`);
      service = await startTestService(store, {
        ACCESS_TOKENS: `${TOKEN},${OTHER}`,
        CALLER_STATEMENT_TIMEOUT_MS: String(CALLER_TIMEOUT_MS),
        STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      });
      base = service.url;
    });
    after(async () => {
      await service?.close();
      await store?.teardown();
    });

    // Runaway statements: a 504 on time; meanwhile the process answers; afterwards the store is intact.
    const RUNAWAY: [string, string][] = [
      ['three-way cross join', 'select count(*) as n from edge_logs a, edge_logs b, edge_logs c'],
      ['ten billion rows', 'select count(*) from generate_series(1, 1e10)'],
    ];
    for (const [name, sql] of RUNAWAY) {
      test(`runaway statement (${name}): 504 query_timeout on time, /health and cached calls answer throughout, the store survives`, async () => {
        const cached = '/api/endpoints/query/usage.api-counts?interval=daily&project=alpha';
        assert.equal((await call(base, cached)).status, 200);
        const started = performance.now();
        const runaway = call(base, logsSql(sql)).then(answer);
        await new Promise((r) => setTimeout(r, 200));
        for (let i = 0; i < 3; i++) {
          const t0 = performance.now();
          assert.equal((await fetch(`${base}/health`)).status, 200);
          const hit = await call(base, cached);
          assert.equal(hit.status, 200);
          assert.match(hit.headers.get('cache-status') ?? '', /; hit;/);
          assert.ok(performance.now() - t0 < 500, `health and a cached call took ${(performance.now() - t0).toFixed(0)} ms during the runaway`);
        }
        const r = await runaway;
        const ms = performance.now() - started;
        assert.deepEqual([r.status, r.code], [504, 'query_timeout']);
        assert.ok(ms >= CALLER_TIMEOUT_MS - 50 && ms < CALLER_TIMEOUT_MS + 1_500, `the 504 came after ${ms.toFixed(0)} ms (caller timeout ${CALLER_TIMEOUT_MS} ms)`);
        const after = await answer(await call(base, '/api/endpoints/query/logs.all?project=alpha'));
        assert.equal(after.status, 200);
        assert.equal(after.body.result?.[0]?.id, 'h1', 'the store still holds the fixture');
        console.log(`hostile on ${factory.name}: runaway (${name}) answered 504 after ${ms.toFixed(0)} ms`);
      });
    }

    // Results too large to hold: a clear 400, memory bounded, the process alive.
    // [name, sql, concurrent calls, one value alone over the limit]
    const HUGE: [string, string, number, boolean][] = [
      ['1,000 rows of 6 MB, three at once', "select repeat('x', 6000000) as big, 1 as k from generate_series(1, 1000)", 3, false],
      ['one 100 MB value', "select repeat('x', 100000000) as big", 1, true],
    ];
    for (const [name, sql, parallel, oneValue] of HUGE) {
      // PGlite builds one value whole in its WASM memory before the batch count can see it, so it
      // fails at the memory cap (400 resource_limit) or, when growing to the cap takes longer than
      // this suite's 1 s caller timeout, at the timeout (504): measured 1.0-2.1 s to reach a 256 MiB
      // cap on this machine, so either can come first. The cap itself is asserted without a race in
      // test/unit/pglite-engine.test.ts ("a value larger than the WASM memory cap …").
      const expected = factory.resultLimit === 'per-batch' && oneValue ? ['400 resource_limit', '504 query_timeout'] : ['400 result_too_large'];
      test(`result over MAX_RESULT_BYTES (${name}): ${expected.join(' or ')} (see EngineFactory.resultLimit), RSS stays bounded`, async () => {
        const { value, peakMb, beforeMb } = await peakRss(() => Promise.all(Array.from({ length: parallel }, () => call(base, logsSql(sql)).then(answer))));
        for (const r of value) assert.ok(expected.includes(`${r.status} ${r.code}`), `${r.status} ${r.code}, expected ${expected.join(' or ')}`);
        const bound = factory.hugeResultRssMb(beforeMb);
        assert.ok(peakMb < bound, `peak RSS ${peakMb.toFixed(0)} MB, ${beforeMb.toFixed(0)} MB before (bound ${bound.toFixed(0)} MB)`);
        assert.equal((await call(base, '/api/endpoints/query/logs.all?project=alpha')).status, 200);
        console.log(`hostile on ${factory.name}: ${name}: peak RSS of the test process ${peakMb.toFixed(0)} MB (${beforeMb.toFixed(0)} MB before)`);
      });
    }

    test('a string doubled past the allocation limit: a 4xx or 504, never a 500', async () => {
      const sql = "with recursive r(s, n) as (select 'x'::text, 0 union all select s || s, n + 1 from r where n < 40) select max(length(s)) as l from r";
      const r = await answer(await call(base, logsSql(sql)));
      assert.ok(['resource_limit', 'query_timeout'].includes(r.code ?? ''), `${r.status} ${r.code}`);
      assert.equal((await call(base, '/api/endpoints/query/logs.all?project=alpha')).status, 200);
    });

    test(`one token's runaway statements, ${BEYOND} more than the engine runs at once, are queued, not refused; another token is served meanwhile`, async () => {
      const sql = 'select count(*) from generate_series(1, 1e10)';
      const n = service.engine.concurrency + BEYOND;
      const flood = Array.from({ length: n }, () => call(base, logsSql(sql)).then(answer));
      await new Promise((r) => setTimeout(r, 100));
      const t0 = performance.now();
      const other = await call(base, '/api/endpoints/query/logs.all?project=alpha', { headers: { 'X-API-KEY': OTHER } });
      const otherMs = performance.now() - t0;
      assert.equal(other.status, 200);
      await other.text();
      const ready = await fetch(`${base}/ready`);
      assert.equal(ready.status, 200, '/ready reflects the database, not one caller');
      const results = await Promise.all(flood);
      // Each ran in its turn until the caller timeout: none refused, none failed otherwise.
      assert.deepEqual(results.map((r) => r.code), Array.from({ length: n }, () => 'query_timeout'));
      console.log(`hostile on ${factory.name}: another token's call took ${otherMs.toFixed(0)} ms during the flood`);
    });

    test('a repeated LF-ENDPOINT-REDACT-PII: true header ("true, true") still redacts', async () => {
      const res = await fetch(`${base}/api/endpoints/query/logs.all?project=alpha`, {
        headers: [['X-API-KEY', TOKEN], ['LF-ENDPOINT-REDACT-PII', 'true'], ['LF-ENDPOINT-REDACT-PII', 'true']],
      });
      const text = await res.text();
      assert.equal(res.status, 200);
      assert.doesNotMatch(text, /203\.0\.113\.7/);
      assert.match(text, /REDACTED/);
    });

    test('bytea comes back as PostgreSQL\'s text form (a string), not a Buffer object', async () => {
      const sql = "select host::bytea as b from (select 'ip 203.0.113.9'::text as host) as h";
      const r = await answer(await call(base, logsSql(sql), { headers: { 'LF-ENDPOINT-REDACT-PII': 'true' } }));
      assert.equal(r.status, 200);
      // Not `{"type":"Buffer","data":[…]}`: the hex text form, a string like any other.
      assert.equal(r.body.result?.[0]?.b, '\\x6970203230332e302e3131332e39');
    });
  });
}
