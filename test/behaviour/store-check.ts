/**
 * The store is checked, not trusted, on both engines: a log store that lacks what a stored query
 * reads (the rollup, a column) answers /ready 503 and that stored query's calls 503
 * store_not_ready naming what is missing and the command that fixes it, never a 500; once fixed,
 * the same running service answers 200. (Privileges: test/pg-store-check.test.ts, PostgreSQL only,
 * since the embedded store has a single superuser.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applySchema } from '../../src/store/schema.ts';
import type { Service } from '../../src/service.ts';
import { SCHEMA, type EngineFactory, type TestStore } from '../support/engines.ts';
import { waitFor } from '../support/ops.ts';
import { call, startTestService } from '../support/service.ts';

type Json = Record<string, any>;

/**
 * Wait (a stored query is probed at most once a second) until `path` answers `status`, with an
 * error message matching `message` when given; return its body.
 */
export async function untilStatus(url: string, path: string, status: number, message?: RegExp): Promise<Json> {
  let body: Json = {};
  await waitFor(`${path} to answer ${status}${message ? ` ${message}` : ''}`, async () => {
    const res = await call(url, path);
    body = (await res.json()) as Json;
    return res.status === status && (message === undefined || message.test(String(body.error?.message)));
  }, 5_000, 100);
  return body;
}

// usage.api-counts is cached: each step asks with a pattern of its own so no cached answer hides the store.
const usage = (pattern: string) => `/api/endpoints/query/usage.api-counts?interval=daily&project=${encodeURIComponent(pattern)}`;
const LOGS = '/api/endpoints/query/logs.all?project=default';

export function storeCheckBehaviour(factory: EngineFactory): void {
  describe(`store check on ${factory.name}`, () => {
    let store: TestStore;
    let svc: Service;

    before(async () => {
      store = await factory.open();
      svc = await startTestService(store);
    });
    after(async () => {
      await svc?.close();
      await store?.teardown();
    });

    test('a store without the rollup: /ready and usage.api-counts answer 503 store_not_ready naming the table and the fix; 200 once the schema is applied, without a restart', async () => {
      assert.equal((await call(svc.url, usage('before'))).status, 200);
      await store.admin(`drop table ${SCHEMA}.edge_request_counts cascade`);

      const res = await call(svc.url, usage('missing'));
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '5');
      const { error } = (await res.json()) as Json;
      assert.equal(error.code, 'store_not_ready');
      assert.match(error.message, /usage\.api-counts: relation "edge_request_counts" does not exist/);
      assert.match(error.message, /node dist\/main\.js schema/);

      const ready = await untilStatus(svc.url, '/ready', 503);
      assert.equal(ready.error.code, 'store_not_ready');
      assert.match(ready.error.message, /edge_request_counts/);
      // logs.all reads none of it: it keeps answering.
      assert.equal((await call(svc.url, LOGS)).status, 200);

      await applySchema(store.admin, SCHEMA);
      assert.equal((await untilStatus(svc.url, '/ready', 200)).status, 'ready');
      assert.equal((await call(svc.url, usage('fixed'))).status, 200);
    });

    test('a missing column: logs.all answers 503 naming it, also with caller sql over that CTE; a caller\'s own unknown column stays 400', async () => {
      await store.admin(`alter table ${SCHEMA}.postgres_logs drop column project`);
      const res = await call(svc.url, LOGS);
      assert.equal(res.status, 503);
      const { error } = (await res.json()) as Json;
      assert.equal(error.code, 'store_not_ready');
      assert.match(error.message, /logs\.all: column (?:\w+\.)?"?project"? does not exist/);

      const sql = encodeURIComponent('select count(*) as n from postgres_logs');
      assert.equal((await call(svc.url, `${LOGS}&sql=${sql}`)).status, 503);

      await store.admin(`alter table ${SCHEMA}.postgres_logs add column project text`);
      await untilStatus(svc.url, '/ready', 200);
      assert.equal((await call(svc.url, LOGS)).status, 200);
      const typo = await call(svc.url, `${LOGS}&sql=${encodeURIComponent('select nope from edge_logs')}`);
      assert.equal(typo.status, 400);
      assert.equal(((await typo.json()) as Json).error.code, 'query_error');
    });
  });
}
