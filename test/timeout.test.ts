/**
 * The statement timeout on real PostgreSQL: a caller's runaway statement ends as 504 query_timeout
 * and the connection is usable afterwards. (PGlite cannot interrupt a running statement; see README.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Service } from '../src/service.ts';
import { pgFactory, type TestStore } from './support/engines.ts';
import { call, startTestService } from './support/service.ts';

let store: TestStore;
let service: Service;

before(async () => {
  store = await pgFactory.open({ statementTimeoutMs: 300, poolMax: 1 });
  service = await startTestService(store, { STATEMENT_TIMEOUT_MS: '300' });
});
after(async () => {
  await service?.close();
  await store?.teardown();
});

test('a statement over STATEMENT_TIMEOUT_MS gives 504 query_timeout, and the next call succeeds', async () => {
  const started = Date.now();
  const sql = 'select count(*) as n from generate_series(1, 2000000000) as g';
  const res = await call(service.url, `/api/endpoints/query/logs.all?project=x&sql=${encodeURIComponent(sql)}`);
  assert.equal(res.status, 504);
  assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'query_timeout');
  assert.ok(Date.now() - started < 5_000, 'the timeout fired promptly');
  const next = await call(service.url, '/api/endpoints/query/logs.all?project=x');
  assert.equal(next.status, 200);
});
