/**
 * The behavioural suite: the real service on port 0, exact rows against fixtures, run once per
 * engine (PGlite and a real PostgreSQL server).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Service } from '../../src/service.ts';
import { fileURLToPath } from 'node:url';
import type { EngineFactory, TestStore } from '../support/engines.ts';
import { ALLOWED, REJECTED } from '../support/sandbox-cases.ts';
import { edgeRow, insertRows, isoMicros } from '../support/fixtures.ts';
import { call, LOGS_ALL_ID, startTestService, TOKEN, USAGE_ID } from '../support/service.ts';
import { expectedUsage, type UsageRow } from '../support/usage-reference.ts';

const T0 = '2026-11-20T12:00:00.000000Z';

// Edge rows of project alpha around T0, down to the microsecond.
const ALPHA = [
  { id: 'e1', ts: '2026-11-20T11:59:59.999999Z' },
  { id: 'e2', ts: T0 },
  { id: 'e3', ts: '2026-11-20T12:00:00.000001Z' },
  { id: 'e4', ts: '2026-11-20T12:00:01.500000Z' },
  { id: 'e5', ts: '2026-11-21T12:00:00.123456Z' },
];
const newestFirst = (ids: string[]) => ALPHA.filter((r) => ids.includes(r.id)).sort((a, b) => (a.ts < b.ts ? 1 : -1));

/** The HTTP suite against one engine; run-behaviour.ts runs it per engine. */
export function httpBehaviour(factory: EngineFactory): void {
  describe(`HTTP behaviour on ${factory.name}`, () => {
    let store: TestStore;
    let service: Service;
    let base: string;
    const now = Date.now();
    // The cache's clock: moved by hand, so TTLs are tested without sleeping.
    const clock = { t: now, now: () => clock.t };
    const usageRows = [
      { id: 'u1', ago: 5 * 60e3, path: '/rest/v1/todos', project: 'alpha' },
      { id: 'u2', ago: 5 * 60e3, path: '/storage/v1/object/avatars/a.png', project: 'alpha' },
      { id: 'u3', ago: 20 * 60e3, path: '/auth/v1/token', project: 'alpha' },
      { id: 'u4', ago: 20 * 60e3 + 1, path: '/realtime/v1/websocket', project: 'alpha' },
      { id: 'u5', ago: 21 * 60e3, path: '/rest/v1/auth_events', project: 'alpha' }, // counts in rest and auth
      { id: 'u6', ago: 70 * 60e3, path: '/rest/v1/items', project: 'alpha' },
      { id: 'u7', ago: 3 * 3600e3, path: '/storage/v1/bucket', project: 'alpha' },
      { id: 'u8', ago: 2 * 86400e3, path: '/auth/v1/user', project: 'alpha' },
      { id: 'u9', ago: 8 * 86400e3, path: '/rest/v1/old', project: 'alpha' }, // outside every window
      { id: 'u10', ago: 5 * 60e3, path: '/rest/v1/todos', project: 'beta' },
      { id: 'u11', ago: 10 * 60e3, path: '/graphql/v1', project: 'alpha' }, // in no area
    ].map((r) => ({ ...r, ts: now - r.ago, url: `https://${r.project}.example.co${r.path}` }));

    before(async () => {
      store = await factory.open();
      await insertRows(store, 'edge_logs', [
        ...ALPHA.map((r) => edgeRow(r.id, r.ts, 'alpha', '/rest/v1/todos')),
        edgeRow('b1', T0, 'beta', '/rest/v1/todos'),
        { id: 'n1', timestamp: T0, project: null, event_message: 'no project' },
        ...usageRows.map((r) => edgeRow(r.id, isoMicros(r.ts, 0), r.project === 'alpha' ? 'usage-alpha' : 'usage-beta', r.path, {
          metadata: { request: { url: `https://${r.project}.example.co${r.path}`, path: r.path, method: 'GET' }, response: { status_code: 200 } },
        })),
      ]);
      // Other sources: present so the nine CTEs have data, never returned by logs.all.
      await insertRows(store, 'function_logs', [{ id: 'f1', timestamp: T0, metadata: { project_ref: 'alpha' } }]);
      await insertRows(store, 'postgres_logs', [{ id: 'p1', timestamp: T0, project: 'alpha', event_message: 'checkpoint' }]);
      // 150 rows of project bulk: logs.all stops at its statement's limit of 100.
      await insertRows(store, 'edge_logs', Array.from({ length: 150 }, (_, i) => ({ id: `bulk${i + 1}`, timestamp: new Date(Date.UTC(2026, 0, 1) + (i + 1) * 1000).toISOString(), project: 'bulk' })));
      service = await startTestService(store, {}, clock);
      base = service.url;
    });
    after(async () => {
      await service?.close();
      await store?.teardown();
    });

    describe('logs.all', () => {
      test('returns the project\'s edge rows newest first with microsecond RFC 3339 timestamps', async () => {
        const res = await call(base, '/api/endpoints/query/logs.all?project=alpha');
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
        const body = (await res.json()) as { result: { id: string; timestamp: string; event_message: string; metadata: { request: { path: string } } }[] };
        assert.deepEqual(body.result.map((r) => [r.id, r.timestamp]), newestFirst(ALPHA.map((r) => r.id)).map((r) => [r.id, r.ts]));
        assert.deepEqual(Object.keys(body.result[0]!), ['id', 'timestamp', 'event_message', 'metadata']);
        assert.equal(body.result[0]!.metadata.request.path, '/rest/v1/todos');
      });

      test('calling by UUID and by name give the same rows', async () => {
        const [a, b] = await Promise.all([
          call(base, '/api/endpoints/query/logs.all?project=alpha').then((r) => r.text()),
          call(base, `/api/endpoints/query/${LOGS_ALL_ID}?project=alpha`).then((r) => r.text()),
        ]);
        assert.equal(a, b);
        const upper = await call(base, `/api/endpoints/query/${LOGS_ALL_ID.toUpperCase()}?project=alpha`);
        assert.equal(await upper.text(), a);
      });

      const ranges: { name: string; q: string; ids: string[] }[] = [
        { name: 'start is exclusive', q: `iso_timestamp_start=${T0}`, ids: ['e3', 'e4', 'e5'] },
        { name: 'end is inclusive', q: `iso_timestamp_end=${T0}`, ids: ['e1', 'e2'] },
        { name: 'one microsecond either side', q: 'iso_timestamp_start=2026-11-20T11:59:59.999999Z&iso_timestamp_end=2026-11-20T12:00:00.000001Z', ids: ['e2', 'e3'] },
        { name: 'no offset means UTC', q: 'iso_timestamp_start=2026-11-20T12:00:00', ids: ['e3', 'e4', 'e5'] },
        { name: 'an offset is honoured', q: `iso_timestamp_start=${encodeURIComponent('2026-11-20T13:00:00+01:00')}`, ids: ['e3', 'e4', 'e5'] },
        { name: 'empty bounds mean no bound', q: 'iso_timestamp_start=&iso_timestamp_end=', ids: ['e1', 'e2', 'e3', 'e4', 'e5'] },
        { name: 'date-only end', q: 'iso_timestamp_end=2026-11-21', ids: ['e1', 'e2', 'e3', 'e4'] },
        { name: 'empty range', q: `iso_timestamp_start=${T0}&iso_timestamp_end=${T0}`, ids: [] },
      ];
      for (const r of ranges) {
        test(`time range: ${r.name}`, async () => {
          const res = await call(base, `/api/endpoints/query/logs.all?project=alpha&${r.q}`);
          assert.equal(res.status, 200);
          const body = (await res.json()) as { result: { id: string }[] };
          assert.deepEqual(body.result.map((x) => x.id), newestFirst(r.ids).map((x) => x.id));
        });
      }

      test('the statement\'s limit of 100 bounds the rows', async () => {
        const res = await call(base, '/api/endpoints/query/logs.all?project=bulk');
        const body = (await res.json()) as { result: { id: string }[] };
        assert.equal(body.result.length, 100);
        assert.equal(body.result[0]!.id, 'bulk150');
        assert.equal(res.headers.get('x-result-truncated'), null);
      });

      test('an unknown project returns no rows; rows of other sources are not returned', async () => {
        const res = await call(base, '/api/endpoints/query/logs.all?project=nobody');
        assert.deepEqual(await res.json(), { result: [] });
      });

      // Regression: `iso_timestamp_stat=…` answered 200 with unfiltered rows.
      test('a misspelt parameter is 400 unknown_parameter, never silently unfiltered rows', async () => {
        const res = await call(base, '/api/endpoints/query/logs.all?project=beta&iso_timestamp_stat=2026-01-01');
        assert.equal(res.status, 400);
        assert.deepEqual(await res.json(), {
          error: {
            code: 'unknown_parameter',
            message: 'Unknown parameter "iso_timestamp_stat" (did you mean iso_timestamp_start?); this stored query accepts: project, iso_timestamp_start, iso_timestamp_end, sql, format.',
            param: 'iso_timestamp_stat',
          },
        });
        const posted = await call(base, '/api/endpoints/query/logs.all', { method: 'POST', body: JSON.stringify({ project: 'beta', foo: 'bar' }), headers: { 'Content-Type': 'application/json' } });
        assert.equal(posted.status, 400);
        assert.equal(((await posted.json()) as { error: { param: string } }).error.param, 'foo');
      });

      test('POST with a JSON body takes the same parameters', async () => {
        const res = await call(base, '/api/endpoints/query/logs.all', { method: 'POST', body: JSON.stringify({ project: 'alpha', iso_timestamp_end: T0 }), headers: { 'Content-Type': 'application/json' } });
        assert.equal(res.status, 200);
        const body = (await res.json()) as { result: { id: string }[] };
        assert.deepEqual(body.result.map((x) => x.id), ['e2', 'e1']);
      });

      test('HEAD answers headers without a body', async () => {
        const res = await call(base, '/api/endpoints/query/logs.all?project=alpha', { method: 'HEAD' });
        assert.equal(res.status, 200);
        assert.equal(await res.text(), '');
        assert.ok(Number(res.headers.get('content-length')) > 0);
      });

      test('caching disabled: a row inserted a moment ago shows up', async () => {
        const first = await call(base, '/api/endpoints/query/logs.all?project=gamma');
        assert.deepEqual(await first.json(), { result: [] });
        assert.match(first.headers.get('cache-status') ?? '', /fwd=bypass/);
        await insertRows(store, 'edge_logs', [edgeRow('g1', T0, 'gamma', '/rest/v1/x')]);
        const second = await call(base, '/api/endpoints/query/logs.all?project=gamma');
        const body = (await second.json()) as { result: { id: string }[] };
        assert.deepEqual(body.result.map((x) => x.id), ['g1']);
      });
    });

    describe('usage.api-counts', () => {
      for (const interval of ['hourly', 'daily', 'minutely'] as const) {
        test(`${interval}: per-bucket counts, UTC buckets ascending, integers`, async () => {
          const res = await call(base, `/api/endpoints/query/usage.api-counts?interval=${interval}&project=${encodeURIComponent('alpha\\.example\\.co')}`);
          assert.equal(res.status, 200);
          const body = (await res.json()) as { result: UsageRow[] };
          assert.deepEqual(body.result, expectedUsage(usageRows, now, interval, /alpha\.example\.co/));
          assert.ok(body.result.length > 0);
          for (const row of body.result) assert.ok(Number.isInteger(row.total_rest_requests));
        });
      }

      test('project is a regular expression over the url', async () => {
        const res = await call(base, `/api/endpoints/query/${USAGE_ID}?interval=daily&project=${encodeURIComponent('^https://(alpha|beta)\\.example\\.co/')}`);
        const body = (await res.json()) as { result: UsageRow[] };
        assert.deepEqual(body.result, expectedUsage(usageRows, now, 'daily', /^https:\/\/(alpha|beta)\.example\.co\//));
      });

      test('a pattern that matches nothing returns no rows', async () => {
        const res = await call(base, '/api/endpoints/query/usage.api-counts?interval=hourly&project=zzz-none');
        assert.deepEqual(await res.json(), { result: [] });
      });
    });

    describe('caching (usage.api-counts: 900 s, warmed every 300 s)', () => {
      const usage = (project: string, extra = '') => `/api/endpoints/query/usage.api-counts?interval=daily&project=${project}${extra}`;

      test('miss, then hit with Age and ttl; ETag and Server-Timing on both', async () => {
        const first = await call(base, usage('c1'));
        assert.equal(first.status, 200);
        assert.match(first.headers.get('cache-status')!, /^endpoints; fwd=miss; stored; ttl=900$/);
        assert.equal(first.headers.get('age'), null);
        assert.match(first.headers.get('server-timing')!, /^db;dur=\d+(\.\d+)?, total;dur=/);
        const body = await first.text();
        clock.t += 42_000;
        const second = await call(base, usage('c1'));
        assert.match(second.headers.get('cache-status')!, /^endpoints; hit; ttl=858$/);
        assert.equal(second.headers.get('age'), '42');
        // A hit's values are reused from a memo (respond.ts): still this hit's own TTL and timing.
        assert.match(second.headers.get('server-timing')!, /^db;dur=0, total;dur=\d+\.\d\d$/);
        clock.t += 1_000;
        const third = await call(base, usage('c1'));
        assert.deepEqual([third.headers.get('cache-status'), third.headers.get('age')], ['endpoints; hit; ttl=857', '43']);
        assert.equal(third.headers.get('content-length'), String(Buffer.byteLength(body)));
        await third.arrayBuffer();
        assert.equal(second.headers.get('etag'), first.headers.get('etag'));
        assert.equal(await second.text(), body);
      });

      test('id and name share an entry; parameter order does not split it', async () => {
        await call(base, usage('c2'));
        for (const path of [
          `/api/endpoints/query/${USAGE_ID}?interval=daily&project=c2`,
          '/api/endpoints/query/usage.api-counts?project=c2&interval=daily',
        ]) {
          const res = await call(base, path);
          assert.match(res.headers.get('cache-status')!, /; hit;/, path);
        }
      });

      test('redacted and plain results are cached apart', async () => {
        await call(base, usage('c3'));
        const redacted = await call(base, usage('c3'), { headers: { 'LF-ENDPOINT-REDACT-PII': 'true' } });
        assert.match(redacted.headers.get('cache-status')!, /fwd=miss/);
        const again = await call(base, usage('c3'), { headers: { 'LF-ENDPOINT-REDACT-PII': 'TRUE' } });
        assert.match(again.headers.get('cache-status')!, /; hit;/);
      });

      test('50 concurrent misses on one key run one database query', async () => {
        const before = service.cache.stats();
        const answers = await Promise.all(Array.from({ length: 50 }, () => call(base, usage('c4'))));
        assert.ok(answers.every((r) => r.status === 200));
        const after = service.cache.stats();
        // One load started (a miss); the other 49 joined it or hit the entry it stored.
        assert.deepEqual([after.misses - before.misses, after.refreshes - before.refreshes], [1, 0]);
        assert.equal(after.hits - before.hits + after.coalesced - before.coalesced, 49);
        await Promise.all(answers.map((r) => r.text()));
      });

      test('an entry older than its TTL is never served', async () => {
        await call(base, usage('c5'));
        clock.t += 900_000;
        const res = await call(base, usage('c5'));
        assert.match(res.headers.get('cache-status')!, /fwd=miss/);
      });

      test('If-None-Match with the current ETag gives 304 and no body', async () => {
        const first = await call(base, usage('c6'));
        const etag = first.headers.get('etag')!;
        const res = await call(base, usage('c6'), { headers: { 'If-None-Match': etag } });
        assert.equal(res.status, 304);
        assert.equal(await res.text(), '');
        assert.equal(res.headers.get('etag'), etag);
        const other = await call(base, usage('c6'), { headers: { 'If-None-Match': '"something-else"' } });
        assert.equal(other.status, 200);
      });

      test('errors are not cached', async () => {
        const bad = await call(base, usage('(c7'));
        assert.equal(bad.status, 400);
        assert.equal(bad.headers.get('cache-status'), null);
      });
    });

    describe('PII redaction', () => {
      test('the header redacts IPs and e-mails at any depth; keys untouched; without it nothing changes', async () => {
        await insertRows(store, 'edge_logs', [
          edgeRow('pii1', T0, 'pii', '/auth/v1/token', {
            event_message: 'login alice@example.com from 203.0.113.7 via [2001:db8::1]:443',
            metadata: { request: { headers: { 'x-forwarded-for': '198.51.100.2, ::ffff:192.0.2.1', 'alice@example.com': 'key kept' } }, response: { status_code: 200 }, tags: ['bob@example.org', 7] },
          }),
        ]);
        const plain = (await (await call(base, '/api/endpoints/query/logs.all?project=pii')).json()) as { result: { event_message: string }[] };
        assert.equal(plain.result[0]!.event_message, 'login alice@example.com from 203.0.113.7 via [2001:db8::1]:443');
        for (const value of ['true', 'TRUE', ' True ']) {
          const res = await call(base, '/api/endpoints/query/logs.all?project=pii', { headers: { 'LF-ENDPOINT-REDACT-PII': value } });
          const row = ((await res.json()) as { result: { id: string; timestamp: string; event_message: string; metadata: Record<string, any> }[] }).result[0]!;
          assert.equal(row.event_message, 'login REDACTED from REDACTED via REDACTED');
          assert.deepEqual(row.metadata.request.headers, { 'x-forwarded-for': 'REDACTED, REDACTED', 'alice@example.com': 'key kept' });
          assert.deepEqual(row.metadata.tags, ['REDACTED', 7]);
          assert.equal(row.timestamp, T0);
        }
        const off = await call(base, '/api/endpoints/query/logs.all?project=pii', { headers: { 'LF-ENDPOINT-REDACT-PII': 'false' } });
        assert.match(((await off.json()) as { result: { event_message: string }[] }).result[0]!.event_message, /alice@example\.com/);
      });
    });

    describe('sandboxed sql over the stored CTEs', () => {
      const sandboxed = (sql: string, params: Record<string, string> = { project: 'alpha' }, target = 'logs.all', headers: Record<string, string> = {}) =>
        call(base, `/api/endpoints/query/${target}`, { method: 'POST', body: JSON.stringify({ ...params, sql }), headers: { 'Content-Type': 'application/json', ...headers } });
      // The tables and row counts, read with PostgreSQL's catalogs (ClickHouse: its caller session is read-only, test/clickhouse.test.ts).
      const snapshot = async () => {
        if (factory.lacks?.postgresql) return '';
        const tables = await store.admin(`select table_schema || '.' || table_name as t from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema') order by 1`);
        const counts = await store.admin(`select (select count(*) from logs.edge_logs)::int as edge, (select count(*) from logs.auth_logs)::int as auth, (select count(*) from logs.postgres_logs)::int as pg`);
        return JSON.stringify([(tables as { rows: unknown[] }).rows, (counts as { rows: unknown[] }).rows]);
      };

      test('stored parameters still bind: the caller reads only the project\'s rows', async () => {
        const res = await sandboxed('select count(*) as n, max(timestamp) as latest from edge_logs');
        assert.equal(res.status, 200);
        assert.deepEqual(await res.json(), { result: [{ n: 5, latest: '2026-11-21T12:00:00.123456Z' }] });
        const beta = await sandboxed('select id from edge_logs', { project: 'beta' });
        assert.deepEqual(await beta.json(), { result: [{ id: 'b1' }] });
        const viaQuery = await call(base, `/api/endpoints/query/logs.all?project=alpha&sql=${encodeURIComponent('select id from postgres_logs')}`);
        assert.deepEqual(await viaQuery.json(), { result: [{ id: 'p1' }] });
      });

      test('the caller\'s own WITH sees the stored CTEs', async () => {
        const res = await sandboxed(`with mine as (select id from edge_logs where timestamp <= '${T0}') select id from mine order by id`);
        assert.deepEqual(await res.json(), { result: [{ id: 'e1' }, { id: 'e2' }] });
      });

      for (const [label, sql] of ALLOWED) {
        const refused = factory.refusesSql?.[label];
        test(`legitimate: ${label}${refused ? ` (refused by name on ${factory.name})` : ''}`, async () => {
          const res = await sandboxed(sql);
          const body = (await res.json()) as { result?: unknown[]; error?: unknown };
          if (refused) {
            assert.equal(res.status, 400, JSON.stringify(body));
            assert.match(JSON.stringify(body), refused);
            return;
          }
          assert.equal(res.status, 200, JSON.stringify(body));
          assert.ok(Array.isArray(body.result));
        });
      }

      test('hostile statements are all rejected with invalid_sql and the database is unchanged', async () => {
        const before = await snapshot();
        // Over HTTP an empty or blank sql counts as absent (docs/http-api.md) and runs the stored statement.
        const hostile = REJECTED.filter(([, sql]) => sql.trim() !== '');
        assert.ok(hostile.length >= 40);
        for (const [label, sql] of hostile) {
          const res = await sandboxed(sql);
          const body = (await res.json()) as { error?: { code: string } };
          assert.equal(res.status, 400, label);
          assert.equal(body.error?.code, 'invalid_sql', label);
        }
        assert.equal(await snapshot(), before);
        assert.equal((await call(base, '/health')).status, 200);
      });

      const runtime: [string, string, RegExp][] = [
        ['division by zero', 'select 1 / 0 as x', /division by zero/],
        ['bad cast', "select 'abc'::int as x", /invalid input syntax/],
        ['more than one row from a scalar subquery', 'select (select id from edge_logs) as x', /more than one row/],
      ];
      for (const [label, sql, message] of runtime) {
        test(`runtime error in caller SQL is query_error: ${label}`, async () => {
          const res = await sandboxed(sql);
          assert.equal(res.status, 400);
          const body = (await res.json()) as { error: { code: string; message: string } };
          assert.equal(body.error.code, 'query_error');
          assert.match(body.error.message, message);
        });
      }

      test('max rows holds for caller SQL: a self-join of 22,500 rows returns 1000 and says it was cut', async () => {
        const res = await sandboxed('select a.id as a, b.id as b from edge_logs a cross join edge_logs b', { project: 'bulk' });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-result-truncated'), 'true');
        assert.equal(((await res.json()) as { result: unknown[] }).result.length, 1000);
      });

      test('sql is part of the cache key of a cached stored query', async () => {
        const a = await sandboxed('select count(*) as n from requests', { interval: 'daily', project: 'alpha\\.example\\.co' }, 'usage.api-counts');
        const b = await sandboxed('select count(*) + 1000 as n from requests', { interval: 'daily', project: 'alpha\\.example\\.co' }, 'usage.api-counts');
        const na = ((await a.json()) as { result: { n: number }[] }).result[0]!.n;
        assert.equal(((await b.json()) as { result: { n: number }[] }).result[0]!.n, na + 1000);
        assert.equal(na, expectedUsage(usageRows, now, 'daily', /alpha\.example\.co/).length === 0 ? 0 : usageRows.filter((r) => r.project === 'alpha' && r.ago <= 7 * 86400e3).length);
        const again = await sandboxed('select count(*) as n from requests', { interval: 'daily', project: 'alpha\\.example\\.co' }, 'usage.api-counts');
        assert.match(again.headers.get('cache-status')!, /; hit;/);
      });

      describe('a stored query with sandboxing disabled and redaction on', { skip: factory.lacks?.postgresql }, () => {
        let plain: Service;
        before(async () => {
          plain = await startTestService(store, { QUERIES_DIR: fileURLToPath(new URL('../fixtures/queries/', import.meta.url)) });
        });
        after(() => plain.close());

        test('sql gives sandbox_disabled', async () => {
          const res = await call(plain.url, `/api/endpoints/query/plain.echo?value=x&sql=${encodeURIComponent('select 1')}`);
          assert.equal(res.status, 400);
          assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'sandbox_disabled');
        });

        // Regression: a value that fails a cast in the stored SQL (22P02) answered 500 internal.
        test('a parameter the stored SQL casts, given a value the database refuses: 400 invalid_parameter naming it', async () => {
          const res = await call(plain.url, '/api/endpoints/query/plain.cast?limit=abc');
          assert.equal(res.status, 400);
          const { error } = (await res.json()) as { error: { code: string; param: string; message: string } };
          assert.equal(error.code, 'invalid_parameter');
          assert.equal(error.param, 'limit');
          assert.match(error.message, /^Parameter "limit" has a value the stored query cannot use: invalid input syntax for type integer: "abc"$/);
          // Regression: a negative LIMIT (SQLSTATE 2201W) quotes no value and answered without "param".
          const negative = await call(plain.url, '/api/endpoints/query/plain.cast?limit=-1');
          assert.equal(negative.status, 400);
          const { error: neg } = (await negative.json()) as { error: { code: string; param: string; message: string } };
          assert.deepEqual([neg.code, neg.param], ['invalid_parameter', 'limit']);
          assert.match(neg.message, /^Parameter "limit" has a value the stored query cannot use: LIMIT must not be negative$/);
          const typed = await call(plain.url, '/api/endpoints/query/plain.cast?limit=2&offset=9');
          assert.equal(typed.status, 400);
          assert.equal(((await typed.json()) as { error: { message: string } }).error.message, 'Parameter "offset" must be an integer from 0 to 5, got 9.');
          const ok = await call(plain.url, '/api/endpoints/query/plain.cast?limit=2&offset=3');
          assert.deepEqual(await ok.json(), { result: [{ n: 4 }, { n: 5 }] });
        });

        test('max rows cuts the stored statement; the header cannot switch stored redaction off', async () => {
          const res = await call(plain.url, '/api/endpoints/query/plain.echo?value=mail%20alice@example.com', { headers: { 'LF-ENDPOINT-REDACT-PII': 'false' } });
          assert.equal(res.status, 200);
          assert.equal(res.headers.get('x-result-truncated'), 'true');
          assert.deepEqual(await res.json(), { result: [{ value: 'mail REDACTED', n: 1 }, { value: 'mail REDACTED', n: 2 }] });
        });
      });
    });

    describe('errors', () => {
      const cases: { name: string; path: string; init?: RequestInit & { headers?: Record<string, string> }; status: number; code: string; param?: string }[] = [
        { name: 'missing project', path: '/api/endpoints/query/logs.all', status: 400, code: 'missing_parameter', param: 'project' },
        { name: 'empty project', path: '/api/endpoints/query/logs.all?project=', status: 400, code: 'missing_parameter', param: 'project' },
        { name: 'project twice', path: '/api/endpoints/query/logs.all?project=a&project=b', status: 400, code: 'invalid_parameter', param: 'project' },
        { name: 'not a timestamp', path: '/api/endpoints/query/logs.all?project=a&iso_timestamp_start=yesterday', status: 400, code: 'invalid_parameter', param: 'iso_timestamp_start' },
        { name: 'impossible date', path: '/api/endpoints/query/logs.all?project=a&iso_timestamp_end=2026-02-30T00:00:00Z', status: 400, code: 'invalid_parameter', param: 'iso_timestamp_end' },
        { name: 'missing interval', path: '/api/endpoints/query/usage.api-counts?project=a', status: 400, code: 'missing_parameter', param: 'interval' },
        { name: 'unknown interval', path: '/api/endpoints/query/usage.api-counts?interval=weekly&project=a', status: 400, code: 'invalid_parameter', param: 'interval' },
        { name: 'invalid regular expression', path: '/api/endpoints/query/usage.api-counts?interval=hourly&project=(unclosed', status: 400, code: 'invalid_parameter', param: 'project' },
        { name: 'NUL in a value', path: '/api/endpoints/query/logs.all?project=a%00b', status: 400, code: 'invalid_parameter', param: 'project' },
        { name: 'unknown stored query', path: '/api/endpoints/query/logs.none?project=a', status: 404, code: 'not_found' },
        { name: 'unknown parameter', path: '/api/endpoints/query/usage.api-counts?interval=hourly&project=a&projct=b', status: 400, code: 'unknown_parameter', param: 'projct' },
        { name: 'an offset whose + arrived as a space', path: '/api/endpoints/query/logs.all?project=a&iso_timestamp_start=2026-11-21T10:00:00+01:00', status: 400, code: 'invalid_parameter', param: 'iso_timestamp_start' },
        { name: 'names are case-sensitive', path: '/api/endpoints/query/LOGS.ALL?project=a', status: 404, code: 'not_found' },
        { name: 'bad percent-encoding in the name', path: '/api/endpoints/query/%E0%A4%A?project=a', status: 404, code: 'not_found' },
        { name: 'unknown path', path: '/nope', status: 404, code: 'not_found' },
        { name: 'no token', path: '/api/endpoints/query/logs.all?project=a', init: { headers: { 'X-API-KEY': '' } }, status: 401, code: 'unauthorized' },
        { name: 'wrong token', path: '/api/endpoints/query/logs.all?project=a', init: { headers: { 'X-API-KEY': 'wrong-token-0123456789' } }, status: 401, code: 'unauthorized' },
        { name: '401 comes before 404', path: '/api/endpoints/query/does-not-exist', init: { headers: { 'X-API-KEY': '' } }, status: 401, code: 'unauthorized' },
        { name: 'DELETE', path: '/api/endpoints/query/logs.all', init: { method: 'DELETE' }, status: 405, code: 'method_not_allowed' },
        { name: 'PUT on /health', path: '/health', init: { method: 'PUT' }, status: 405, code: 'method_not_allowed' },
        { name: 'invalid JSON body', path: '/api/endpoints/query/logs.all', init: { method: 'POST', body: '{"project":' }, status: 400, code: 'invalid_parameter' },
        { name: 'JSON array body', path: '/api/endpoints/query/logs.all', init: { method: 'POST', body: '["project"]' }, status: 400, code: 'invalid_parameter' },
        { name: 'non-string body value', path: '/api/endpoints/query/logs.all', init: { method: 'POST', body: '{"project": 5}' }, status: 400, code: 'invalid_parameter', param: 'project' },
        { name: 'body too large', path: '/api/endpoints/query/logs.all', init: { method: 'POST', body: JSON.stringify({ project: 'x'.repeat(300 * 1024) }) }, status: 413, code: 'payload_too_large' },
        { name: 'URL too long', path: `/api/endpoints/query/logs.all?project=${'x'.repeat(15 * 1024)}&y=${'y'.repeat(2 * 1024)}`, status: 414, code: 'uri_too_long' },
      ];
      for (const c of cases) {
        test(`${c.name} → ${c.status} ${c.code}`, async () => {
          const res = await call(base, c.path, c.init);
          assert.equal(res.status, c.status);
          const body = (await res.json()) as { error: { code: string; message: string; param?: string } };
          assert.equal(body.error.code, c.code);
          assert.equal(typeof body.error.message, 'string');
          assert.equal(body.error.param, c.param);
          assert.ok(res.headers.get('x-request-id'));
          if (c.status === 401) assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
          if (c.status === 405) assert.ok(res.headers.get('allow'));
        });
      }

      test('a 404 for a stored query names the closest one and where the list is; nothing close, no guess', async () => {
        const near = (await (await call(base, '/api/endpoints/query/usage.api-count?interval=daily&project=a')).json()) as { error: { message: string } };
        assert.equal(near.error.message, 'No stored query with that id or name. Did you mean usage.api-counts? GET /api/endpoints lists the stored queries this token may call.');
        const far = (await (await call(base, '/api/endpoints/query/zzz')).json()) as { error: { message: string } };
        assert.equal(far.error.message, 'No stored query with that id or name. GET /api/endpoints lists the stored queries this token may call.');
      });

      test('X-Request-Id: a sane one is echoed; a missing or unfit one is replaced by a fresh UUID v4', async () => {
        const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
        const cases: { sent: string | undefined; echoed: boolean }[] = [
          { sent: 'abc-123_x.y:z', echoed: true },
          { sent: 'a'.repeat(128), echoed: true },
          { sent: undefined, echoed: false },
          { sent: '', echoed: false },
          { sent: 'a'.repeat(129), echoed: false },
          { sent: 'has space', echoed: false },
          { sent: 'quote"d', echoed: false },
          { sent: 'semi;colon', echoed: false },
        ];
        const fresh = new Set<string>();
        for (const c of cases) {
          for (const path of ['/api/endpoints/query/logs.all?project=alpha', '/api/endpoints/query/usage.api-counts?interval=daily&project=rid', '/api/endpoints/query/nope']) {
            const res = await call(base, path, c.sent === undefined ? {} : { headers: { 'X-Request-Id': c.sent } });
            await res.arrayBuffer();
            const id = res.headers.get('x-request-id')!;
            if (c.echoed) assert.equal(id, c.sent, `${path} echoes ${c.sent}`);
            else {
              assert.match(id, UUID_V4, `${path} with ${JSON.stringify(c.sent)}`);
              fresh.add(id);
            }
          }
        }
        assert.equal(fresh.size, 6 * 3, 'every replaced id is new');
      });

      test('Authorization: Bearer is accepted', async () => {
        const res = await fetch(`${base}/api/endpoints/query/logs.all?project=alpha`, { headers: { Authorization: `Bearer ${TOKEN}` } });
        assert.equal(res.status, 200);
      });
    });

    describe('other routes', () => {
      test('/health and /ready', async () => {
        assert.deepEqual(await (await fetch(`${base}/health`)).json(), { status: 'ok' });
        const ready = await fetch(`${base}/ready`);
        assert.equal(ready.status, 200);
        assert.deepEqual(await ready.json(), { status: 'ready', engine: factory.name });
      });

      test('OPTIONS preflight allows the API headers', async () => {
        const res = await fetch(`${base}/api/endpoints/query/logs.all`, { method: 'OPTIONS' });
        assert.equal(res.status, 204);
        assert.equal(res.headers.get('access-control-allow-origin'), '*');
        assert.match(res.headers.get('access-control-allow-headers') ?? '', /X-API-KEY.*Authorization.*Content-Type.*LF-ENDPOINT-REDACT-PII/);
      });
    });
  });
}
