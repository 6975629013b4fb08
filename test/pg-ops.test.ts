/**
 * Operability that needs statements which stay busy, on real PostgreSQL (PGlite cannot be
 * interrupted): a disconnected client's statement is cancelled and its connection freed, pool
 * exhaustion answers 503 quickly, and closing the service drains in-flight requests within its bound.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import pg from 'pg';
import { after, before, describe, test } from 'node:test';
import { pgFactory, type TestStore } from './support/engines.ts';
import { activeSleeps, scrape, startOpsService, waitFor, type OpsService } from './support/ops.ts';
import { SLOW_QUERIES_DIR } from './support/slow-queries.ts';
import { call } from './support/service.ts';

const slow = (seconds: number) => `/api/endpoints/query/test.slow?seconds=${seconds}`;

/** Count reads of pg's deprecated `Client.activeQuery` (each one prints its DeprecationWarning, once a process) until restored. */
function countActiveQueryReads(): { count: number; restore(): void } {
  const proto = pg.Client.prototype as object;
  const own = Object.getOwnPropertyDescriptor(proto, 'activeQuery')!;
  const reads = { count: 0, restore: () => Object.defineProperty(proto, 'activeQuery', own) };
  Object.defineProperty(proto, 'activeQuery', {
    ...own,
    get(this: unknown) {
      reads.count++;
      return own.get!.call(this);
    },
  });
  return reads;
}

/** A pool's connections running a statement. */
function inUse(svc: OpsService): number {
  const s = svc.engine.poolStats!();
  return s.total - s.idle;
}

describe('on real PostgreSQL', () => {
  let store: TestStore;

  before(async () => {
    store = await pgFactory.open({ poolMax: 1, connectTimeoutMs: 300 });
  });
  after(async () => {
    await store?.teardown();
  });

  test('a client that goes away has its statement cancelled and its connection returned to the pool', async () => {
    const svc = await startOpsService(store, {}, SLOW_QUERIES_DIR);
    // Regression: the cancel went through pg's Client.cancel, which reads the deprecated
    // Client.activeQuery, and pg 8.23 printed a DeprecationWarning to stderr, outside the JSON log.
    const reads = countActiveQueryReads();
    try {
      const ctl = new AbortController();
      const pending = call(svc.url, slow(5), { signal: ctl.signal }).then(
        () => assert.fail('the aborted request must not answer'),
        (err: Error) => err.name,
      );
      await waitFor('the statement to run', async () => (await activeSleeps(store)) === 1, 3_000);
      assert.equal(inUse(svc), 1);
      await new Promise((r) => setTimeout(r, 200));
      ctl.abort();
      assert.equal(await pending, 'AbortError');
      // Without the cancel, pg_sleep(5) would stay active for seconds more.
      const took = await waitFor('the statement to be cancelled', async () => (await activeSleeps(store)) === 0, 2_000);
      assert.ok(took < 2_000);
      await waitFor('the connection to be released', () => inUse(svc) === 0, 2_000);
      // The connection is healthy afterwards: the next call on the one-connection pool answers.
      const next = await call(svc.url, slow(0));
      assert.equal(next.status, 200);
      assert.deepEqual(await next.json(), { result: [{ seconds: '0', status: 'done' }] });

      await waitFor('the request line', () => svc.logs.some((l) => l.msg === 'request' && l.status === 499), 2_000);
      // Regression: the cancelled statement's 57014 was logged as an error ("request failed",
      // query_timeout, with a stack) for every client that left during an uncached call.
      assert.deepEqual(svc.logs.filter((l) => l.level === 'error'), []);
      const metrics = await scrape(svc.url);
      assert.equal(metrics.get('endpoints_db_queries_total{outcome="cancelled"}'), 1);
      assert.equal(metrics.get('endpoints_http_requests_total{route="query",query="test.slow",status="499"}'), 1);
      assert.equal(reads.count, 0, 'Client.activeQuery read');
    } finally {
      reads.restore();
      await svc.close();
    }
  });

  test('close() lets an in-flight request finish, refuses new connections, then returns', async () => {
    const svc = await startOpsService(store, {}, SLOW_QUERIES_DIR);
    const pending = call(svc.url, slow(1));
    await waitFor('the statement to run', async () => (await activeSleeps(store)) === 1, 3_000);
    const closing = svc.close();
    let closed = false;
    void closing.then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 50));
    await assert.rejects(fetch(`${svc.url}/health`), (err: Error & { cause?: { code?: string } }) => err.cause?.code === 'ECONNREFUSED');
    assert.equal(closed, false, 'close waits for the in-flight request');
    const res = await pending;
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('connection'), 'close');
    assert.deepEqual(await res.json(), { result: [{ seconds: '1', status: 'done' }] });
    await closing;
  });

  test('past DRAIN_TIMEOUT_MS, close() cuts the unfinished request and its statement is cancelled', async () => {
    const svc = await startOpsService(store, { DRAIN_TIMEOUT_MS: '300' }, SLOW_QUERIES_DIR);
    const pending = call(svc.url, slow(5)).then(
      (res) => res.status,
      (err: Error) => err.name,
    );
    await waitFor('the statement to run', async () => (await activeSleeps(store)) === 1, 3_000);
    const started = Date.now();
    await svc.close();
    const took = Date.now() - started;
    assert.ok(took >= 250 && took < 2_000, `closed after ${took} ms`);
    assert.equal(await pending, 'TypeError'); // fetch failed: the connection was cut
    await waitFor('the statement to be cancelled', async () => (await activeSleeps(store)) === 0, 2_000);
    assert.ok(svc.logs.some((l) => l.msg === 'drain timeout: closing connections of unfinished requests'));
  });

  test('a request completed on an open connection after close() began gets 503 with Connection: close', async () => {
    const svc = await startOpsService(store, { DRAIN_TIMEOUT_MS: '3000' }, SLOW_QUERIES_DIR);
    const pending = call(svc.url, slow(1));
    await waitFor('the statement to run', async () => (await activeSleeps(store)) === 1, 3_000);
    // A client halfway through its headers when the drain starts (neither idle nor in flight).
    const socket = connect(svc.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let data = '';
    socket.on('data', (d) => (data += d.toString()));
    const ended = new Promise((r) => socket.once('close', r));
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    await new Promise((r) => setTimeout(r, 50));
    const closing = svc.close();
    await new Promise((r) => setTimeout(r, 50));
    socket.write('\r\n');
    await ended;
    assert.match(data, /^HTTP\/1\.1 503 /);
    assert.match(data, /\r\nConnection: close\r\n/i);
    assert.match(data, /\r\nRetry-After: \d+\r\n/i);
    assert.match(data, /"code":"database_unavailable","message":"The service is shutting down/);
    assert.equal((await pending).status, 200);
    await closing;
  });
});
