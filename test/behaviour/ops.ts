/**
 * Operability over HTTP, on both engines: metrics, request logs, the listing, the OpenAPI document,
 * scoped tokens, CORS with a fixed origin, and the socket limits that cut slow or idle clients off.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { QUERIES_DIR } from '../../src/process/config.ts';
import { sessionSettings } from '../../src/store/session-settings.ts';
import { SCHEMA, TEST_STATEMENT_TIMEOUT_MS, type EngineFactory, type TestStore } from '../support/engines.ts';
import { edgeRow, insertRows } from '../support/fixtures.ts';
import { checkOpenApi31 } from '../support/openapi-check.ts';
import { untilClose } from '../support/raw-http.ts';
import { scrape, startOpsService, waitFor, type OpsService } from '../support/ops.ts';
import { call, LOGS_ALL_ID, TOKEN } from '../support/service.ts';
import { tempDir } from '../support/temp-dir.ts';

const SCOPED = 'scoped-token-logs-only-0123';
const HASHED = 'hashed-token-usage-only-0123';
const WRONG = 'wrong-token-0123456789abcdef';
const METRICS_TOKEN = 'metrics-token-0123456789';
const SECRET_VALUE = 'secret-project-value-7f3a';
const ORIGIN = 'https://dash.example';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

type Json = Record<string, any>;

/** The token file under test: one scoped plain token, one scoped hashed entry (the file holds no secret for it). */
function tokenFile(): string {
  const file = join(tempDir('ops-tokens-'), 'tokens');
  writeFileSync(file, `# scoped tokens\n${SCOPED} logs.all\nsha256:${sha256(HASHED)} usage.api-counts\n`);
  assert.ok(!readFileSync(file, 'utf8').includes(HASHED));
  return file;
}

/** Write `chunks` to a raw connection, one every `everyMs` while it stays open; resolve with what came back once it closes. */
function rawExchange(port: number, chunks: string[], everyMs: number): Promise<{ data: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let data = '';
    let next = 0;
    let timer: NodeJS.Timeout | undefined;
    const send = () => {
      if (next < chunks.length && !socket.destroyed) socket.write(chunks[next++]!);
      if (next < chunks.length) timer = setTimeout(send, everyMs);
    };
    socket.on('connect', send);
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('error', () => {}); // a reset after the server's answer is still a close
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ data, closedAfterMs: Date.now() - started });
    });
    // Safety net so a regression fails the assertion instead of hanging the suite.
    setTimeout(() => {
      socket.destroy();
      reject(new Error('the server never closed the connection'));
    }, 8_000).unref();
  });
}

const delta = (after: Map<string, number>, before: Map<string, number>, key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);

/** The operability suite against one engine; run-behaviour.ts runs it per engine. */
export function opsBehaviour(factory: EngineFactory): void {
  describe(`operability on ${factory.name}`, () => {
    let store: TestStore;
    let svc: OpsService;
    let base: string;

    before(async () => {
      store = await factory.open();
      await insertRows(store, 'edge_logs', [edgeRow('o1', '2026-11-20T12:00:00.000000Z', 'alpha', '/rest/v1/todos'), edgeRow('o2', '2026-11-20T12:00:01.000000Z', SECRET_VALUE, '/rest/v1/todos')]);
      svc = await startOpsService(store, {
        ACCESS_TOKENS_FILE: tokenFile(),
        CORS_ORIGIN: ORIGIN,
        HEADERS_TIMEOUT_MS: '500',
        REQUEST_TIMEOUT_MS: '1000',
        KEEP_ALIVE_TIMEOUT_MS: '300',
      });
      base = svc.url;
    });
    after(async () => {
      await svc?.close();
      await store?.teardown();
    });

    describe('metrics', () => {
      test('by default an unscoped access token reads it (no token, a wrong or a scoped one: 401); Prometheus text; figures move with requests', async () => {
        for (const headers of [{}, { 'X-API-KEY': WRONG }, { 'X-API-KEY': SCOPED }] as Record<string, string>[]) {
          const refused = await fetch(`${base}/metrics`, { headers });
          assert.equal(refused.status, 401, JSON.stringify(headers));
          // Nothing about the stored queries in the refusal.
          assert.doesNotMatch(await refused.text(), /logs\.all|usage/);
        }
        const res = await fetch(`${base}/metrics`, { headers: { 'X-API-KEY': TOKEN } });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
        const before = await scrape(base);
        assert.equal((await call(base, '/api/endpoints/query/logs.all?project=alpha')).status, 200);
        assert.equal((await call(base, '/api/endpoints/query/logs.all')).status, 400);
        assert.equal((await call(base, '/api/endpoints/query/usage.api-counts?interval=daily&project=m1')).status, 200);
        assert.equal((await call(base, '/api/endpoints/query/usage.api-counts?interval=daily&project=m1')).status, 200);
        assert.equal((await call(base, '/api/endpoints/query/logs.all?project=a', { headers: { 'X-API-KEY': WRONG } })).status, 401);
        assert.equal((await call(base, '/api/endpoints/query/logs.nonexistent')).status, 404);
        // The request line and metrics are written when the response closes, just after the client has it.
        let after = new Map<string, number>();
        await waitFor('request metrics', async () => {
          after = await scrape(base);
          return delta(after, before, 'endpoints_http_requests_total{route="query",query="",status="404"}') === 1;
        }, 2_000);
        assert.equal(delta(after, before, 'endpoints_http_requests_total{route="query",query="logs.all",status="200"}'), 1);
        assert.equal(delta(after, before, 'endpoints_http_requests_total{route="query",query="logs.all",status="400"}'), 1);
        assert.equal(delta(after, before, 'endpoints_http_requests_total{route="query",query="usage.api-counts",status="200"}'), 2);
        // Unauthenticated and unknown names are counted without a stored query: labels never carry what callers typed.
        assert.equal(delta(after, before, 'endpoints_http_requests_total{route="query",query="",status="401"}'), 1);
        assert.ok(![...after.keys()].some((k) => k.includes('nonexistent')));
        assert.equal(delta(after, before, 'endpoints_http_request_duration_seconds_count{route="query",query="logs.all"}'), 2);
        assert.equal(delta(after, before, 'endpoints_http_request_duration_seconds_bucket{route="query",query="usage.api-counts",le="+Inf"}'), 2);
        assert.equal(delta(after, before, 'endpoints_cache_hits_total'), 1);
        // logs.all has caching disabled: it bypasses the cache and is no miss.
        assert.equal(delta(after, before, 'endpoints_cache_misses_total'), 1);
        assert.equal(delta(after, before, 'endpoints_db_queries_total{outcome="ok"}'), 2);
        assert.equal(delta(after, before, 'endpoints_db_query_duration_seconds_count'), 2);
        assert.ok(after.get('endpoints_cache_entries')! >= 1);
        assert.ok(after.get('endpoints_cache_bytes')! > 0);
        assert.equal(after.get('endpoints_db_pool_max'), svc.engine.poolStats!().max);
        // Every statement gave its connection back. Waited for, not read once: the start-up store
        // check runs its probes in the background and may still hold a connection at this moment
        // (seen once in CI); a connection that is never released never reaches 0.
        await waitFor('pool connections released', async () => (await scrape(base)).get('endpoints_db_pool_connections{state="in_use"}') === 0, 2_000);
        assert.equal(after.get('endpoints_db_pool_waiting'), 0);
        // Regression guard: answers written whole at once (the hit, the errors) are released without a close listener.
        assert.equal(after.get('endpoints_http_requests_in_flight'), 1, 'only the scrape itself is in flight');
      });

      test('METRICS_TOKEN protects /metrics; access tokens do not open it', async () => {
        const guarded = await startOpsService(store, { METRICS_TOKEN });
        try {
          const refused: Record<string, string>[] = [{}, { 'X-API-KEY': TOKEN }, { Authorization: `Bearer ${WRONG}` }];
          for (const headers of refused) {
            const res = await fetch(`${guarded.url}/metrics`, { headers });
            assert.equal(res.status, 401, JSON.stringify(headers));
            assert.equal(((await res.json()) as Json).error.code, 'unauthorized');
            assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
          }
          const accepted: Record<string, string>[] = [{ Authorization: `Bearer ${METRICS_TOKEN}` }, { 'X-API-KEY': METRICS_TOKEN }];
          for (const headers of accepted) {
            const res = await fetch(`${guarded.url}/metrics`, { headers });
            assert.equal(res.status, 200);
            assert.match(await res.text(), /^# HELP endpoints_http_requests_total /m);
          }
        } finally {
          await guarded.close();
        }
      });
    });

    describe('request log', () => {
      test('one JSON line per request with the contract fields; never a token or a parameter value', async () => {
        const from = svc.logs.length;
        const ok = await call(base, `/api/endpoints/query/logs.all?project=${SECRET_VALUE}`, { headers: { 'X-Request-Id': 'log-test-1' } });
        assert.equal(ok.status, 200);
        assert.equal(((await ok.json()) as Json).result.length, 1);
        const post = await call(base, '/api/endpoints/query/logs.all', { method: 'POST', body: JSON.stringify({ project: SECRET_VALUE }), headers: { Authorization: `Bearer ${TOKEN}`, 'X-API-KEY': '' } });
        assert.equal(post.status, 200);
        const missing = await call(base, '/api/endpoints/query/usage.api-counts?project=' + SECRET_VALUE, { headers: { 'X-Request-Id': 'log-test-2' } });
        assert.equal(missing.status, 400);
        assert.equal((await call(base, `/api/endpoints/query/logs.all?project=${SECRET_VALUE}`, { headers: { 'X-API-KEY': WRONG } })).status, 401);
        assert.equal((await call(base, `/api/endpoints/query/logs.all?project=${SECRET_VALUE}`, { headers: { 'X-API-KEY': SCOPED } })).status, 200);
        await waitFor('five request lines', () => svc.logs.slice(from).filter((l) => l.msg === 'request').length >= 5, 2_000);

        const lines = svc.logs.slice(from).filter((l) => l.msg === 'request');
        const first = lines.find((l) => l.request_id === 'log-test-1')!;
        assert.deepEqual(Object.keys(first).sort(), ['cache', 'client', 'duration_ms', 'level', 'method', 'msg', 'path', 'query', 'request_id', 'rows', 'status', 'time'].sort());
        assert.equal(first.level, 'info');
        assert.match(String(first.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.equal(first.method, 'GET');
        assert.equal(first.path, '/api/endpoints/query/logs.all');
        assert.equal(first.query, 'logs.all');
        assert.equal(first.status, 200);
        assert.equal(typeof first.duration_ms, 'number');
        assert.equal(first.rows, 1);
        assert.equal(first.cache, 'bypass');
        assert.match(String(first.client), /127\.0\.0\.1$/);
        const failed = lines.find((l) => l.request_id === 'log-test-2')!;
        assert.deepEqual([failed.status, failed.code, failed.query, failed.rows], [400, 'missing_parameter', 'usage.api-counts', undefined]);
        const denied = lines.find((l) => l.status === 401)!;
        assert.deepEqual([denied.code, denied.query], ['unauthorized', undefined]);
        assert.ok(lines.some((l) => l.method === 'POST' && l.status === 200));

        // Regression: the cached path once answered before the log record got its rows and cache status.
        const cached = await call(base, '/api/endpoints/query/usage.api-counts?interval=daily&project=log-cached', { headers: { 'X-Request-Id': 'log-test-3' } });
        assert.equal(cached.status, 200);
        await waitFor('the cached call\'s request line', () => svc.logs.some((l) => l.request_id === 'log-test-3'), 2_000);
        const cachedLine = svc.logs.find((l) => l.request_id === 'log-test-3')!;
        assert.deepEqual([cachedLine.query, cachedLine.cache, typeof cachedLine.rows], ['usage.api-counts', 'miss', 'number']);
        // A hit is answered synchronously and settled without waiting for its close: still one full line.
        const hit = await call(base, '/api/endpoints/query/usage.api-counts?interval=daily&project=log-cached');
        assert.match(hit.headers.get('cache-status')!, /^endpoints; hit; /);
        await hit.arrayBuffer();
        const hitId = hit.headers.get('x-request-id')!;
        await waitFor('the hit\'s request line', () => svc.logs.some((l) => l.request_id === hitId), 2_000);
        const hitLine = svc.logs.find((l) => l.request_id === hitId)!;
        assert.deepEqual([hitLine.status, hitLine.query, hitLine.cache, hitLine.rows], [200, 'usage.api-counts', 'hit', cachedLine.rows]);
        assert.equal(typeof hitLine.duration_ms, 'number');

        const all = svc.rawLogs.join('\n');
        for (const secret of [TOKEN, WRONG, SCOPED, SECRET_VALUE]) assert.ok(!all.includes(secret), `the log must not contain ${secret}`);
      });
    });

    describe('pipelined requests', () => {
      test('answers come in order, and each request is logged and released once, hits queued behind a slower answer included', async () => {
        // Node answers pipelined requests in order: a hit behind an uncached call is written only
        // after it, so it cannot be settled inside the handler (handler.ts) and waits for its close.
        const usage = '/api/endpoints/query/usage.api-counts?interval=daily&project=pipe';
        assert.equal((await call(base, usage)).status, 200);
        const request = (path: string, id: string, last = false) =>
          `GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${TOKEN}\r\nX-Request-Id: ${id}\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;
        const ids = ['pipe-1', 'pipe-2', 'pipe-3', 'pipe-4'];
        const bytes = request('/api/endpoints/query/logs.all?project=alpha', ids[0]!) + request(usage, ids[1]!) + request(usage, ids[2]!) + request('/nope', ids[3]!, true);
        const responses = await untilClose(Number(new URL(base).port), bytes);
        assert.deepEqual(responses.map((r) => [r.status, r.headers['x-request-id']]), [[200, 'pipe-1'], [200, 'pipe-2'], [200, 'pipe-3'], [404, 'pipe-4']]);
        assert.match(responses[1]!.headers['cache-status']!, /^endpoints; hit; /);
        await waitFor('the four request lines', () => ids.every((id) => svc.logs.some((l) => l.request_id === id)), 2_000);
        const lines = ids.map((id) => svc.logs.filter((l) => l.request_id === id));
        assert.deepEqual(lines.map((l) => l.length), [1, 1, 1, 1]);
        assert.deepEqual(lines.map(([l]) => [l!.status, l!.cache]), [[200, 'bypass'], [200, 'hit'], [200, 'hit'], [404, undefined]]);
        assert.equal((await scrape(base)).get('endpoints_http_requests_in_flight'), 1, 'only the scrape itself is in flight');
      });

      // A hit waits for the end of its turn (answer-batch.ts): its client may be gone by then.
      test('clients that reset right after sending a cached request: each request logged once, with 200 or 499, and all released', async () => {
        const usage = '/api/endpoints/query/usage.api-counts?interval=daily&project=reset';
        assert.equal((await call(base, usage)).status, 200);
        const ids = Array.from({ length: 40 }, (_, i) => `reset-${i}`);
        for (const id of ids) {
          await new Promise<void>((resolve) => {
            const socket = connect(Number(new URL(base).port), '127.0.0.1', () => {
              socket.write(`GET ${usage} HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${TOKEN}\r\nX-Request-Id: ${id}\r\n\r\n`, () => socket.resetAndDestroy());
            });
            socket.on('error', () => {});
            socket.on('close', () => resolve());
          });
        }
        await waitFor('the request lines', () => ids.every((id) => svc.logs.some((l) => l.request_id === id)), 2_000);
        for (const id of ids) {
          const lines = svc.logs.filter((l) => l.request_id === id);
          assert.equal(lines.length, 1, id);
          assert.ok(lines[0]!.status === 200 || lines[0]!.status === 499, `${id}: ${String(lines[0]!.status)}`);
        }
        assert.equal((await scrape(base)).get('endpoints_http_requests_in_flight'), 1, 'only the scrape itself is in flight');
      });

      // Regression: a hit is written at the end of its event-loop turn (answer-batch.ts), and the
      // 400 for bad bytes read in the same turn went out first, in place of the hit's answer.
      test('bad bytes after requests: their answers first (hits, uncached calls, pipelined), then the 400; inside a request body: the 400 alone', async () => {
        const usage = '/api/endpoints/query/usage.api-counts?interval=daily&project=garbage';
        assert.equal((await call(base, usage)).status, 200);
        const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${TOKEN}\r\n\r\n`;
        const cases = [
          { name: 'a hit, then bad bytes', bytes: `${get(usage)}NOT HTTP AT ALL\r\n\r\n`, statuses: [200, 400], cache: /^endpoints; hit; / },
          { name: 'an uncached call, then bad bytes', bytes: `${get('/api/endpoints/query/logs.all?project=alpha')}NOT HTTP AT ALL\r\n\r\n`, statuses: [200, 400], cache: /^endpoints; fwd=bypass$/ },
          {
            // node is done with a written answer only after its 'finish': the 400 must wait for the queued ones too.
            name: 'two hits, an uncached call and a hit pipelined, then bad bytes',
            bytes: `${get(usage)}${get(usage)}${get('/api/endpoints/query/logs.all?project=alpha')}${get(usage)}NOT HTTP AT ALL\r\n\r\n`,
            statuses: [200, 200, 200, 200, 400],
            cache: /^endpoints; hit; /,
          },
          {
            name: 'bad chunk framing in a POST body',
            bytes: `POST /api/endpoints/query/logs.all?project=alpha HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nxx\r\n`,
            statuses: [400],
            cache: null,
          },
        ];
        for (const { name, bytes, statuses, cache } of cases) {
          const responses = await untilClose(Number(new URL(base).port), bytes);
          assert.deepEqual(responses.map((r) => r.status), statuses, name);
          if (cache !== null) {
            assert.match(responses[0]!.headers['cache-status']!, cache, name);
            assert.ok(Array.isArray((JSON.parse(responses[0]!.body.toString('utf8')) as { result: unknown }).result), name);
          }
          assert.equal((JSON.parse(responses.at(-1)!.body.toString('utf8')) as Json).error.code, 'bad_request', name);
        }
        await waitFor('every request released', async () => (await scrape(base)).get('endpoints_http_requests_in_flight') === 1, 2_000);
      });
    });

    describe('listing', () => {
      const definition = (name: string) => JSON.parse(readFileSync(join(QUERIES_DIR, `${name}.json`), 'utf8')) as Json;

      test('GET /api/endpoints lists each stored query with id, name, description, settings and declared parameters', async () => {
        const res = await call(base, '/api/endpoints');
        assert.equal(res.status, 200);
        const { result } = (await res.json()) as { result: Json[] };
        assert.deepEqual(result.map((q) => q.name), ['logs.all', 'usage.api-counts']);
        for (const q of result) {
          const def = definition(q.name);
          assert.deepEqual(q, {
            id: def.id,
            name: def.name,
            description: def.description,
            path: `/api/endpoints/query/${def.name}`,
            // rowsPerCall: SPEC 2.5.5, logs.all's statement limit of 100 is the effective bound; usage.api-counts has none.
            settings: { maxRows: def.maxRows, rowsPerCall: ({ 'logs.all': 100, 'usage.api-counts': 1000 } as Json)[def.name], cachingSeconds: def.cachingSeconds, cacheWarmingSeconds: def.cacheWarmingSeconds, sandboxing: def.sandboxing, redactPii: def.redactPii },
            // logflareValues are accepted (and listed among values) only with COMPAT=logflare.
            parameters: Object.entries(def.params as Json).map(([name, { logflareValues: _, ...spec }]) => ({ name, ...spec })),
            columns: def.columns,
          });
        }
        assert.deepEqual(result[1]!.parameters[0].values, ['hourly', 'daily', 'minutely']);
      });

      test('a scoped token lists only what it may call; no token gets 401', async () => {
        const names = async (headers: Record<string, string>) => ((await (await call(base, '/api/endpoints', { headers })).json()) as { result: Json[] }).result.map((q) => q.name);
        assert.deepEqual(await names({ 'X-API-KEY': SCOPED }), ['logs.all']);
        assert.deepEqual(await names({ 'X-API-KEY': '', Authorization: `Bearer ${HASHED}` }), ['usage.api-counts']);
        const res = await call(base, '/api/endpoints', { headers: { 'X-API-KEY': '' } });
        assert.equal(res.status, 401);
        assert.equal(((await res.json()) as Json).error.code, 'unauthorized');
      });
    });

    describe('openapi', () => {
      test('GET /openapi.json: a valid OpenAPI 3.1 document with every stored query; scoped to the token; 401 without one', async () => {
        const res = await call(base, '/openapi.json');
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
        const doc = (await res.json()) as Json;
        assert.deepEqual(checkOpenApi31(doc), []);
        for (const q of svc.registry.all) assert.ok(doc.paths[`/api/endpoints/query/${q.name}`]?.get, q.name);
        const scoped = (await (await call(base, '/openapi.json', { headers: { 'X-API-KEY': SCOPED } })).json()) as Json;
        assert.deepEqual(Object.keys(scoped.paths).filter((p) => p.includes('/query/')), ['/api/endpoints/query/logs.all']);
        assert.equal((await call(base, '/openapi.json', { headers: { 'X-API-KEY': '' } })).status, 401);
        // Formats are described: the format parameter, and CSV and NDJSON beside JSON.
        const ok = doc.paths['/api/endpoints/query/logs.all'].get.responses['200'].content;
        assert.deepEqual(Object.keys(ok), ['application/json', 'text/csv', 'application/x-ndjson']);
        assert.ok(doc.components.parameters.Format.schema.enum.includes('csv'));
      });

      test('PUBLIC_DOCS=on: /openapi.json answers without a token, with every stored query', async () => {
        const open = await startOpsService(store, { PUBLIC_DOCS: 'on' });
        try {
          const res = await fetch(`${open.url}/openapi.json`);
          assert.equal(res.status, 200);
          const doc = (await res.json()) as Json;
          assert.deepEqual(checkOpenApi31(doc), []);
          for (const q of open.registry.all) assert.ok(doc.paths[`/api/endpoints/query/${q.name}`]?.get, q.name);
          // Only the document: the stored queries themselves still need a token.
          assert.equal((await fetch(`${open.url}/api/endpoints/query/logs.all?project=alpha`)).status, 401);
        } finally {
          await open.close();
        }
      });
    });

    describe('scoped tokens', () => {
      const status = async (path: string, token: string) => {
        const res = await call(base, path, { headers: { 'X-API-KEY': token } });
        const body = (await res.json()) as Json;
        return [res.status, body.error?.code ?? 'ok'];
      };

      test('a scoped token calls its stored queries (by name or id) and gets 403 forbidden for the others', async () => {
        assert.deepEqual(await status('/api/endpoints/query/logs.all?project=alpha', SCOPED), [200, 'ok']);
        assert.deepEqual(await status(`/api/endpoints/query/${LOGS_ALL_ID}?project=alpha`, SCOPED), [200, 'ok']);
        assert.deepEqual(await status('/api/endpoints/query/usage.api-counts?interval=daily&project=x', SCOPED), [403, 'forbidden']);
        assert.deepEqual(await status('/api/endpoints/query/usage.api-counts?interval=daily&project=x', HASHED), [200, 'ok']);
        assert.deepEqual(await status('/api/endpoints/query/logs.all?project=alpha', HASHED), [403, 'forbidden']);
        // The unscoped token from ACCESS_TOKENS keeps working beside the file.
        assert.deepEqual(await status('/api/endpoints/query/usage.api-counts?interval=daily&project=x', TOKEN), [200, 'ok']);
      });

      test('403 is checked before parameters; unknown stored query is 404 for a valid token and 401 for a bad one', async () => {
        assert.deepEqual(await status('/api/endpoints/query/usage.api-counts', SCOPED), [403, 'forbidden']);
        assert.deepEqual(await status('/api/endpoints/query/logs.unknown', SCOPED), [404, 'not_found']);
        assert.deepEqual(await status('/api/endpoints/query/logs.unknown', WRONG), [401, 'unauthorized']);
        // The file's hash is not itself a token.
        assert.deepEqual(await status('/api/endpoints/query/usage.api-counts?interval=daily&project=x', `sha256:${sha256(HASHED)}`), [401, 'unauthorized']);
      });
    });

    describe('CORS with a fixed origin', () => {
      test('preflight and answers carry CORS_ORIGIN and Vary: Origin, errors included', async () => {
        const pre = await fetch(`${base}/api/endpoints/query/logs.all`, { method: 'OPTIONS', headers: { Origin: ORIGIN, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' } });
        assert.equal(pre.status, 204);
        assert.equal(pre.headers.get('access-control-allow-origin'), ORIGIN);
        assert.match(pre.headers.get('vary') ?? '', /Origin/);
        assert.match(pre.headers.get('access-control-allow-methods') ?? '', /GET.*POST/);
        assert.match(pre.headers.get('access-control-allow-headers') ?? '', /X-API-KEY.*Authorization.*Content-Type.*LF-ENDPOINT-REDACT-PII/);
        const listPre = await fetch(`${base}/api/endpoints`, { method: 'OPTIONS', headers: { Origin: ORIGIN } });
        assert.equal(listPre.status, 204);
        assert.equal(listPre.headers.get('access-control-allow-origin'), ORIGIN);
        const ok = await call(base, '/api/endpoints/query/logs.all?project=alpha', { headers: { Origin: ORIGIN } });
        assert.equal(ok.status, 200);
        assert.equal(ok.headers.get('access-control-allow-origin'), ORIGIN);
        assert.match(ok.headers.get('access-control-expose-headers') ?? '', /X-Request-Id.*Cache-Status/);
        const denied = await call(base, '/api/endpoints/query/logs.all', { headers: { Origin: ORIGIN, 'X-API-KEY': '' } });
        assert.equal(denied.status, 401);
        assert.equal(denied.headers.get('access-control-allow-origin'), ORIGIN);
      });
    });

    describe('socket limits', () => {
      test('a client sending its headers slowly is cut off with 408 after HEADERS_TIMEOUT_MS', async () => {
        const before = await scrape(base);
        // One header line every 200 ms would take 6 s in all; the server must not wait for it.
        const chunks = ['GET /health HTTP/1.1\r\n', ...Array.from({ length: 30 }, (_, i) => `X-Slow-${i}: ${i}\r\n`), '\r\n'];
        const { data, closedAfterMs } = await rawExchange(svc.port, chunks, 200);
        assert.match(data, /^HTTP\/1\.1 408 /);
        assert.ok(closedAfterMs < 2_000, `cut off after ${closedAfterMs} ms`);
        assert.ok(closedAfterMs >= 400, `not before the timeout (${closedAfterMs} ms)`);
        const after = await scrape(base);
        assert.equal(delta(after, before, 'endpoints_http_rejected_total{reason="timeout"}'), 1);
      });

      test('a client that stops sending its body is cut off after REQUEST_TIMEOUT_MS', async () => {
        const head = `POST /api/endpoints/query/logs.all HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"proj`;
        const { closedAfterMs } = await rawExchange(svc.port, [head], 0);
        assert.ok(closedAfterMs < 2_500, `cut off after ${closedAfterMs} ms`);
        assert.ok(closedAfterMs >= 900, `not before the timeout (${closedAfterMs} ms)`);
      });

      test('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
        const { data, closedAfterMs } = await rawExchange(svc.port, ['GET /health HTTP/1.1\r\nHost: x\r\n\r\n'], 0);
        assert.match(data, /^HTTP\/1\.1 200 /);
        assert.match(data, /\r\nConnection: keep-alive\r\n/i);
        // node:http adds a fixed 1 s buffer to keepAliveTimeout before it closes the socket.
        assert.ok(closedAfterMs >= 250 && closedAfterMs < 2_500, `closed after ${closedAfterMs} ms`);
      });
    });

    describe('engine sessions', { skip: factory.lacks?.postgresql }, () => {
      // jit among them: on, PostgreSQL spent 925 ms of a 2.3 s usage.api-counts daily refresh (10M
      // edge rows) compiling it. pg_settings.setting is in the setting's base unit (ms), as written.
      test('every statement runs with the pinned session settings (read-only, UTC, no JIT, the parser\'s string rules)', async () => {
        const expected = sessionSettings(SCHEMA, TEST_STATEMENT_TIMEOUT_MS);
        const rows = await store.engine.query('select name, setting from pg_settings where name = any($1::text[])', [`{${expected.map(([name]) => name).join(',')}}`]);
        const actual = new Map(rows.map((r) => [String(r.name).toLowerCase(), String(r.setting)]));
        for (const [name, value] of expected) assert.equal(actual.get(name.toLowerCase()), value, name);
        assert.equal(actual.get('jit'), 'off');
      });
    });
  });
}
