/**
 * Logflare's ingest API on both engines: Supabase's Vector traffic replayed exactly (each of the
 * seven sinks of its vector.yml, real container lines through their remaps) turns into rows that
 * `logs.all` and Studio's own calls return; a hostile table of bodies and tokens; the edge rollup
 * kept exact under ingest; ingest off by default; Studio's Log Drains page answered.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { type EngineFactory, type TestStore } from '../support/engines.ts';
import { scrape, startOpsService, waitFor, type OpsService } from '../support/ops.ts';
import { call, TOKEN } from '../support/service.ts';
import { expectedUsage, type UsageInput } from '../support/usage-reference.ts';
import { containerLines, vectorBatches, VECTOR_ROUTES } from '../fixtures/vector-replay.ts';

export const INGEST_TOKEN = 'ingest-token-0123456789abcdef';
type Json = Record<string, any>;

const STUDIO = (JSON.parse(readFileSync(new URL('../fixtures/studio-queries.json', import.meta.url), 'utf8')) as { queries: { name: string; endpoint: string; params: Record<string, string>; sql?: string }[] }).queries;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** POST a batch as Vector's http sink does (or with the given overrides). */
export function post(base: string, source: string, body: string | Buffer, headers: Record<string, string> = {}, query = ''): Promise<Response> {
  return fetch(`${base}/api/logs?source_name=${encodeURIComponent(source)}${query}`, {
    method: 'POST',
    headers: { 'x-api-key': INGEST_TOKEN, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
}

async function rowsOf(store: TestStore, table: string, where = 'true'): Promise<Json[]> {
  const r = (await store.admin(`select id, to_char(timestamp at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as ts, event_message, project, metadata::text as metadata from logs.${table} where ${where} order by timestamp, id`)) as { rows: Json[] };
  return r.rows.map((row) => ({ ...row, metadata: JSON.parse(row.metadata) }));
}

export function ingestBehaviour(factory: EngineFactory): void {
  describe(`ingest on ${factory.name}`, () => {
    let store: TestStore;
    let svc: OpsService;
    let base: string;
    const at = new Date(Date.now() - 10 * 60_000);

    before(async () => {
      store = await factory.open();
      svc = await startOpsService(store, { INGEST_TOKENS: INGEST_TOKEN, COMPAT: 'logflare' });
      base = svc.url;
    });
    after(async () => {
      await svc?.close();
      await store?.teardown();
    });

    test('Vector replayed: each of vector.yml\'s seven sinks posts its batch and is answered 200 {"message":"Logged!"}; the rows are as Logflare stores them', async () => {
      const batches = vectorBatches(containerLines(at));
      assert.deepEqual(batches.map((b) => b.events.length), [2, 1, 1, 1, 1, 1, 1]);
      for (const { route, events } of batches) {
        // Older vector.yml copies pass the key as api_key in the URI instead of the header.
        const viaQuery = route.sourceName === 'gotrue.logs.prod';
        const res = await post(base, route.sourceName, JSON.stringify(events), viaQuery ? { 'x-api-key': '' } : {}, viaQuery ? `&api_key=${INGEST_TOKEN}` : '');
        assert.equal(res.status, 200, `${route.sourceName}: ${await res.clone().text()}`);
        assert.deepEqual(await res.json(), { message: 'Logged!' });
      }
      const ns = (s: number) => `${new Date(at.getTime() + s * 1000).toISOString().slice(0, 19)}.123456Z`;
      const whole = (s: number) => `${new Date(at.getTime() + s * 1000).toISOString().slice(0, 19)}.000000Z`;

      const edge = await rowsOf(store, 'edge_logs');
      assert.equal(edge.length, 2);
      for (const r of edge) assert.match(r.id, UUID_V4);
      assert.deepEqual(edge.map((r) => [r.ts, r.project]), [[whole(1), 'default'], [whole(2), 'default']]);
      // Kong's null referer is cleaned away, as Logflare's MetadataCleaner does; no URL (stock Kong events have none).
      assert.deepEqual(edge[0]!.metadata, { request: { headers: { user_agent: 'Dart/3.5 (dart:io)', cf_connecting_ip: '172.19.0.1' }, method: 'GET', path: '/rest/v1/todos?select=*&id=eq.123', protocol: 'HTTP/1.1' }, response: { status_code: 200 } });
      assert.deepEqual(edge[1]!.metadata, { request: { method: 'GET', path: '/auth/v1/health', protocol: 'HTTP/1.1', host: 'localhost:8000', headers: { cf_connecting_ip: '172.19.0.1' } }, response: { status_code: 200 } });
      assert.match(edge[1]!.event_message, /connect\(\) failed/);

      const [auth] = await rowsOf(store, 'auth_logs');
      // Docker's nanoseconds truncated to microseconds (Logflare truncates; PostgreSQL would round).
      assert.equal(auth!.ts, ns(3));
      assert.equal(auth!.metadata.path, '/token');
      assert.equal(auth!.metadata.status, 200);
      assert.equal(auth!.metadata.level, 'info');
      assert.match(auth!.event_message, /^\{"component":"api"/);

      const [rest] = await rowsOf(store, 'postgrest_logs');
      assert.deepEqual([rest!.ts, rest!.project, rest!.metadata], [ns(4), 'default', {}]);
      const [realtime] = await rowsOf(store, 'realtime_logs');
      assert.deepEqual([realtime!.event_message, realtime!.project, realtime!.metadata], ['Realtime tenant default connected', null, { project: 'default', external_id: 'default', level: 'info' }]);
      const [storage] = await rowsOf(store, 'storage_logs');
      assert.equal(storage!.event_message, 'GET | 200 | 172.19.0.1 | req-2k | /bucket/avatars | Dart/3.5');
      assert.deepEqual(storage!.metadata.context, [{ host: 'e0c4f1a2b3c4', pid: 1 }]);
      const [fn] = await rowsOf(store, 'function_edge_logs');
      assert.deepEqual([fn!.project, fn!.metadata], [null, { project_ref: 'default' }]);
      const [db] = await rowsOf(store, 'postgres_logs');
      assert.deepEqual(db!.metadata, { host: 'db-default', parsed: { timestamp: `${ns(8).slice(0, 26)}789Z`.replace('.123456789Z', '.123456789Z'), error_severity: 'LOG' } });
    });

    test("Studio's own calls and logs.all read the ingested rows back", async () => {
      const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
      const ingested = new Map<string, string[]>();
      for (const route of VECTOR_ROUTES) ingested.set(route.table, (await rowsOf(store, route.table)).map((r) => r.id));
      let read = 0;
      for (const c of STUDIO) {
        const params: Record<string, string> = {};
        for (const [k, v] of Object.entries(c.params)) params[k] = v.replace('{{now-1h}}', iso(3_600_000));
        if (c.sql) params.sql = c.sql.replace('{{now-7h}}', iso(7 * 3_600_000)).replace(/\{\{(\w+) row id\}\}/, (_, s: string) => ingested.get(s)?.[0] ?? '');
        const res = await call(base, `/api/endpoints/query/${c.endpoint}?${new URLSearchParams(params)}`);
        const body = (await res.json()) as Json;
        assert.equal(res.status, 200, `${c.name}: ${JSON.stringify(body)}`);
        // A source's own log page (no search or filter) lists exactly what was ingested into it.
        const source = /^previewer list (\w+): [^,+]*(?:page|invocations)/.exec(c.name)?.[1];
        if (source !== undefined && !/search|filter/.test(c.name) && ingested.has(source)) {
          const ids = (body.result as Json[]).map((r) => r.id);
          assert.deepEqual([...ids].sort(), [...ingested.get(source)!].sort(), c.name);
          read++;
        }
      }
      assert.ok(read >= 5, `the log pages of the ingested sources read their rows (${read})`);
      const logs = (await (await call(base, '/api/endpoints/query/logs.all?project=default')).json()) as Json;
      assert.deepEqual((logs.result as Json[]).map((r) => r.id).sort(), [...ingested.get('edge_logs')!].sort());
    });

    test('batches from one event to ~10 MB; a resent batch with ids stores nothing twice', async () => {
      const one = await post(base, 'edge_logs', JSON.stringify({ id: 'single-1', event_message: 'one', project: 'p10', timestamp: at.toISOString() }));
      assert.equal(one.status, 200);
      const big = Array.from({ length: 11_000 }, (_, i) => ({
        id: `big-${i}`,
        project: 'p10',
        timestamp: new Date(at.getTime() + i).toISOString(),
        event_message: `GET | 200 | 203.0.113.9 | https://p10.example.co/rest/v1/t?id=eq.${i} | ${'x'.repeat(400)}`,
        metadata: { request: { url: `https://p10.example.co/rest/v1/t?id=eq.${i}`, path: '/rest/v1/t', method: 'GET', headers: { 'x-forwarded-for': '203.0.113.9', user_agent: 'y'.repeat(200) } }, response: { status_code: 200 } },
      }));
      const body = JSON.stringify(big);
      assert.ok(body.length > 9_000_000 && body.length < 12_000_000, `${body.length} bytes`);
      assert.equal((await post(base, 'cloudflare.logs.prod', body)).status, 200);
      const again = await post(base, 'cloudflare.logs.prod', body);
      assert.equal(again.status, 200);
      const [count] = (await store.admin(`select count(*)::int as n from logs.edge_logs where project = 'p10'`) as { rows: { n: number }[] }).rows;
      assert.equal(count!.n, 11_001);
      const m = await scrape(base, { 'X-API-KEY': TOKEN });
      assert.equal(m.get('endpoints_ingest_events_total{source="edge_logs",outcome="duplicate"}'), 11_000);
    });

    describe('hostile input: a clear 4xx for what can never be stored, the rest of the batch kept', () => {
      const deep = (n: number): Json => (n === 0 ? { leaf: true } : { d: deep(n - 1) });
      const cases: { name: string; body: () => string | Buffer; headers?: Record<string, string>; source?: string; query?: string; status: number; code?: string; stored?: number }[] = [
        { name: 'a gzip bomb (100 MB of zeros) stops at the decompressed limit', body: () => gzipSync(Buffer.alloc(100_000_000, 0x20)), headers: { 'content-encoding': 'gzip' }, status: 413, code: 'payload_too_large' },
        { name: '12 MB + 1 byte', body: () => `[${' '.repeat(11_999_999)}]`, status: 413, code: 'payload_too_large' },
        { name: 'exactly 12 MB is accepted', body: () => `[${' '.repeat(11_999_998)}]`, status: 200 },
        { name: 'nesting deeper than 64 rejects that event only', body: () => JSON.stringify([{ event_message: 'deep', metadata: deep(70) }, { id: 'h-shallow', event_message: 'ok', metadata: deep(10) }]), status: 406, code: 'events_rejected', stored: 1 },
        { name: 'NUL and lone surrogates in strings and keys are stored as U+FFFD', body: () => '[{"id":"h-nul","event_message":"a\\u0000b\\ud800c","metadata":{"k\\u0000\\udc00":"v\\u0000"}}]', status: 200, stored: 1 },
        { name: '1 MB strings', body: () => JSON.stringify([{ id: 'h-big', event_message: 'm'.repeat(1_000_000), metadata: { v: 'v'.repeat(1_000_000) } }]), status: 200, stored: 1 },
        { name: 'wrong types: a number, an array event, metadata as a string; the good one stored', body: () => JSON.stringify([7, [1], { metadata: 'x' }, { id: 'h-good', event_message: 1.5, timestamp: 'now' }]), status: 406, code: 'events_rejected', stored: 1 },
        { name: 'duplicate ids inside a batch are stored once', body: () => JSON.stringify([{ id: 'h-dup' }, { id: 'h-dup' }, { id: 'h-dup' }]), status: 200, stored: 1 },
        { name: 'an access token may not ingest', body: () => '[]', headers: { 'x-api-key': TOKEN }, status: 403, code: 'forbidden' },
        { name: 'no token', body: () => '[]', headers: { 'x-api-key': '' }, status: 401, code: 'unauthorized' },
        { name: 'a wrong token', body: () => '[]', headers: { 'x-api-key': 'not-a-token-0123456789' }, status: 401, code: 'unauthorized' },
        { name: 'an unknown source (names are case-sensitive)', body: () => '[]', source: 'postgrest.logs.prod', status: 404, code: 'not_found' },
        { name: 'no source_name', body: () => '[]', source: '', status: 400, code: 'missing_parameter' },
        { name: 'source_name twice', body: () => '[]', query: '&source_name=edge_logs', status: 400, code: 'invalid_parameter' },
        { name: 'text/plain', body: () => '[]', headers: { 'content-type': 'text/plain' }, status: 415, code: 'unsupported_media_type' },
        { name: 'brotli', body: () => '[]', headers: { 'content-encoding': 'br' }, status: 415, code: 'unsupported_media_type' },
        { name: 'gzip that is not gzip', body: () => 'not gzip', headers: { 'content-encoding': 'gzip' }, status: 400, code: 'invalid_body' },
        { name: 'not JSON', body: () => '[{"a":', status: 400, code: 'invalid_body' },
        { name: 'a JSON string', body: () => '"hello"', status: 400, code: 'invalid_body' },
        { name: 'batch that is not an array', body: () => '{"batch":{}}', status: 400, code: 'invalid_body' },
        { name: 'an empty array', body: () => '[]', status: 200, stored: 0 },
        { name: 'no content type, {"batch": [...]}', body: () => '{"batch":[{"id":"h-batch"}]}', headers: { 'content-type': '' }, status: 200, stored: 1 },
        // Regression: a batch whose only event was dropped answered 200 Logged!, and nobody could tell.
        { name: 'an event over an hour in the future is dropped, and the answer says so', body: () => JSON.stringify([{ id: 'h-future', timestamp: new Date(Date.now() + 2 * 3_600_000).toISOString() }, { id: 'h-now' }]), status: 406, code: 'events_rejected', stored: 1 },
      ];
      for (const c of cases) {
        test(`${c.name} → ${c.status}${c.code ? ` ${c.code}` : ''}`, async () => {
          const before = ((await store.admin('select count(*)::int as n from logs.function_logs')) as { rows: { n: number }[] }).rows[0]!.n;
          const res = await post(base, c.source ?? 'deno-subhosting-events', c.body(), c.headers, c.query);
          const body = (await res.json()) as Json;
          assert.equal(res.status, c.status, JSON.stringify(body).slice(0, 500));
          if (c.code) assert.equal(body.error.code, c.code);
          // Regression: a wrong ingest token was told an *access* token is required.
          if (c.code === 'unauthorized') assert.match(body.error.message, /ingest token is required/);
          if (c.status === 200) assert.deepEqual(body, { message: 'Logged!' } as Json);
          if (c.code === 'events_rejected') assert.equal(body.error.stored, c.stored);
          const now = ((await store.admin('select count(*)::int as n from logs.function_logs')) as { rows: { n: number }[] }).rows[0]!.n;
          assert.equal(now - before, c.stored ?? 0);
        });
      }

      test('what the hostile bodies stored reads back as stored: U+FFFD for NUL and lone surrogates, numbers as text, bad timestamps as the time of ingest', async () => {
        const [nul] = await rowsOf(store, 'function_logs', `id = 'h-nul'`);
        assert.equal(nul!.event_message, 'a\uFFFDb\uFFFDc');
        assert.deepEqual(nul!.metadata, { ['_k' + '_'.repeat(6)]: 'v\uFFFD' });
        const [good] = await rowsOf(store, 'function_logs', `id = 'h-good'`);
        assert.equal(good!.event_message, '1.5');
        assert.ok(Math.abs(Date.parse(good!.ts) - Date.now()) < 120_000, good!.ts);
        const m = await scrape(base, { 'X-API-KEY': TOKEN });
        assert.ok((m.get('endpoints_ingest_events_total{source="function_logs",outcome="dropped"}') ?? 0) >= 1);
        assert.ok((m.get('endpoints_ingest_events_total{source="function_logs",outcome="rejected"}') ?? 0) >= 4);
      });

      test('concurrent batches into one table: every event stored once', async () => {
        const batches = Array.from({ length: 8 }, (_, b) => JSON.stringify(Array.from({ length: 250 }, (_, i) => ({ id: `c-${b}-${i}`, event_message: 'c', project: 'conc' }))));
        const answers = await Promise.all(batches.map((body) => post(base, 'auth_logs', body)));
        for (const res of answers) assert.equal(res.status, 200);
        const [n] = ((await store.admin(`select count(*)::int as n from logs.auth_logs where project = 'conc'`)) as { rows: { n: number }[] }).rows;
        assert.equal(n!.n, 2000);
      });
    });

    test('timestamps by Logflare\'s rules: integers by digit count, offsets honoured, digits past six truncated', async () => {
      const cases: [unknown, string][] = [
        [1764136800123456789, '2025-11-26T06:00:00.123457Z'],
        [1764136800123456, '2025-11-26T06:00:00.123456Z'],
        [1764136800123, '2025-11-26T06:00:00.123000Z'],
        [1764136800, '2025-11-26T06:00:00.000000Z'],
        ['2025-11-26T07:30:00.9999999+01:30', '2025-11-26T06:00:00.999999Z'],
        ['2025-11-26T06:00:00Z', '2025-11-26T06:00:00.000000Z'],
      ];
      const events = cases.map(([timestamp], i) => ({ id: `ts-${i}`, timestamp, project: 'ts' }));
      assert.equal((await post(base, 'pgbouncer.logs.prod', JSON.stringify(events))).status, 200);
      const rows = await rowsOf(store, 'pgbouncer_logs', `project = 'ts'`);
      assert.deepEqual(Object.fromEntries(rows.map((r) => [r.id, r.ts])), Object.fromEntries(cases.map(([, ts], i) => [`ts-${i}`, ts])));
    });

    test('the edge rollup stays exact under ingest: usage.api-counts equals the reference count of what was stored', async () => {
      const now = Date.now();
      const inputs: UsageInput[] = [];
      const events = Array.from({ length: 600 }, (_, i) => {
        const ts = now - (i % 97) * 3_600_000 - i * 1000;
        const path = ['/rest/v1/a', '/storage/v1/b', '/auth/v1/c', '/realtime/v1/d', '/graphql/v1'][i % 5]!;
        const url = `https://roll${i % 3}.example.co${path}?i=${i % 7}`;
        inputs.push({ ts, url, path });
        return { timestamp: new Date(ts).toISOString(), project: 'roll', event_message: 'r', metadata: { request: { url, path, method: 'GET' }, response: { status_code: 200 } } };
      });
      for (let i = 0; i < events.length; i += 150) assert.equal((await post(base, 'cloudflare.logs.prod', JSON.stringify(events.slice(i, i + 150)))).status, 200);
      for (const interval of ['daily', 'hourly', 'minutely'] as const) {
        const res = await call(base, `/api/endpoints/query/usage.api-counts?interval=${interval}&project=${encodeURIComponent('roll[01]\\.example')}`);
        const got = ((await res.json()) as Json).result as Json[];
        assert.deepEqual(got, expectedUsage(inputs, now, interval, /roll[01]\.example/), interval);
      }
    });

    test("Studio's Log Drains page: no drains, the nine sources; creating one is 501", async () => {
      const bearer = { Authorization: `Bearer ${TOKEN}`, 'X-API-KEY': '' };
      const drains = await call(base, '/api/backends?metadata%5Btype%5D=log-drain', { headers: bearer });
      assert.equal(drains.status, 200);
      assert.deepEqual(await drains.json(), []);
      const sources = (await (await call(base, '/api/sources', { headers: bearer })).json()) as Json[];
      assert.deepEqual(sources.map((s) => s.name), ['cloudflare.logs.prod', 'postgres.logs', 'deno-relay-logs', 'deno-subhosting-events', 'gotrue.logs.prod', 'realtime.logs.prod', 'storage.logs.prod.2', 'postgREST.logs.prod', 'pgbouncer.logs.prod']);
      for (const s of sources) assert.match(s.token, UUID_V4);
      const create = await call(base, '/api/backends', { method: 'POST', headers: bearer, body: JSON.stringify({ name: 'd', type: 'webhook' }) });
      assert.equal(create.status, 501);
      assert.equal(((await create.json()) as Json).error.code, 'not_implemented');
      assert.equal((await call(base, '/api/backends')).status, 200);
      assert.equal((await call(base, '/api/backends', { headers: { 'X-API-KEY': INGEST_TOKEN } })).status, 403);
    });

    test('an ingest token cannot query', async () => {
      const res = await call(base, '/api/endpoints/query/logs.all?project=default', { headers: { 'X-API-KEY': INGEST_TOKEN } });
      assert.equal(res.status, 403);
    });
  });

  describe(`ingest off on ${factory.name}`, () => {
    let store: TestStore;
    let svc: OpsService;
    before(async () => {
      store = await factory.open();
      svc = await startOpsService(store);
    });
    after(async () => {
      await svc?.close();
      await store?.teardown();
    });

    test('without INGEST_TOKENS the ingest routes answer 404 and the first batch logs one warning; nothing is written', async () => {
      for (const path of ['/api/logs', '/logs', '/api/events']) {
        const res = await fetch(`${svc.url}${path}?source_name=postgres.logs`, { method: 'POST', headers: { 'x-api-key': INGEST_TOKEN, 'content-type': 'application/json' }, body: '[{"id":"off"}]' });
        assert.equal(res.status, 404, path);
      }
      await waitFor('the warning', () => svc.logs.some((l) => l.level === 'warn'), 2_000);
      assert.equal(svc.logs.filter((l) => l.level === 'warn' && /ingest is off/.test(String(l.msg))).length, 1);
      assert.equal(((await store.admin('select count(*)::int as n from logs.postgres_logs')) as { rows: { n: number }[] }).rows[0]!.n, 0);
      assert.equal((await fetch(`${svc.url}/api/logs`)).status, 405);
      // Logflare's management routes are only for its clients.
      assert.equal((await call(svc.url, '/api/backends')).status, 404);
    });
  });
}
