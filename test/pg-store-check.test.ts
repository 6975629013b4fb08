/**
 * The store check on real PostgreSQL with the service reading as a role of its own, as the README
 * sets it up: a store made by hand from the documented columns (the nine tables, no rollup), then
 * the schema applied without the grant on the new rollup tables, then the grant. Each state is
 * answered as it is (503 store_not_ready naming the table or the GRANT, never 500), and the same
 * running service answers 200 once the store is right.
 * Regression: the hidden contract suites built the store this way and got 500 internal on every
 * usage.api-counts interval while /ready said ready.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { after, before, describe, test } from 'node:test';
import type { Service } from '../src/service.ts';
import { LOG_TABLES, applySchema } from '../src/store/schema.ts';
import { createPgEngine } from '../src/store/postgres/pg-engine.ts';
import type { Engine } from '../src/store/engine.ts';
import { createDatabase, startPostgres, type PgServer } from '../scripts/lib/pg-server.ts';
import { untilStatus } from './behaviour/store-check.ts';
import { call, startTestService } from './support/service.ts';

const ROLE = 'endpoints_reader';
const INTERVALS = ['hourly', 'daily', 'minutely'];
type Json = Record<string, any>;

describe('store check with a read-only role on PostgreSQL', () => {
  let server: PgServer;
  let admin: pg.Pool;
  let engine: Engine;
  let svc: Service;

  before(async () => {
    server = await startPostgres();
    const url = await createDatabase(server, `store_check_${process.pid}`);
    admin = new pg.Pool({ connectionString: url, max: 2 });
    // The store as the README's columns describe it, made by hand: no rollup, no triggers.
    await admin.query('create schema logs');
    for (const table of LOG_TABLES) {
      await admin.query(`create table logs.${table} (id text primary key, timestamp timestamptz not null,
        event_message text not null default '', project text, metadata jsonb not null default '{}')`);
    }
    await admin.query(`drop role if exists ${ROLE}`);
    await admin.query(`create role ${ROLE} login password 'reader-password'`);
    await admin.query(`grant usage on schema logs to ${ROLE}; grant select on all tables in schema logs to ${ROLE}`);
    const reader = new URL(url);
    reader.username = ROLE;
    reader.password = 'reader-password';
    engine = createPgEngine({ connectionString: reader.href, schema: 'logs', statementTimeoutMs: 15_000, poolMax: 3, connectTimeoutMs: 2_000 });
    svc = await startTestService({ engine, admin: (sql, params) => admin.query(sql, params as unknown[] | undefined), teardown: async () => {} });
  });
  after(async () => {
    await svc?.close();
    await engine?.close();
    await admin?.query(`drop owned by ${ROLE}`).catch(() => {});
    await admin?.end();
  });

  test('no rollup: every usage.api-counts interval is 503 naming the missing table and the schema command; logs.all answers', async () => {
    for (const interval of INTERVALS) {
      const res = await call(svc.url, `/api/endpoints/query/usage.api-counts?interval=${interval}&project=.`);
      assert.equal(res.status, 503, interval);
      const { error } = (await res.json()) as Json;
      assert.equal(error.code, 'store_not_ready');
      assert.match(error.message, /relation "edge_request_(?:urls|counts)" does not exist/);
      assert.match(error.message, /node dist\/main\.js schema/);
    }
    const ready = await untilStatus(svc.url, '/ready', 503);
    assert.match(ready.error.message, /usage\.api-counts: relation/);
    assert.doesNotMatch(ready.error.message, /logs\.all/);
    assert.equal((await call(svc.url, '/api/endpoints/query/logs.all?project=default')).status, 200);
  });

  test('schema applied without the grant on the rollup: 503 naming the GRANT for this role; the grant makes it 200', async () => {
    await applySchema((sql, params) => admin.query(sql, params as unknown[] | undefined), 'logs');
    const ready = await untilStatus(svc.url, '/ready', 503, /permission denied/);
    assert.match(ready.error.message, /permission denied for table edge_request_(?:urls|counts)/);
    assert.match(ready.error.message, new RegExp(`grant select on all tables in schema logs to "${ROLE}"`));
    const res = await call(svc.url, '/api/endpoints/query/usage.api-counts?interval=daily&project=grant');
    assert.equal(res.status, 503);
    assert.equal(((await res.json()) as Json).error.code, 'store_not_ready');

    await admin.query(`grant select on all tables in schema logs to ${ROLE}`);
    await untilStatus(svc.url, '/ready', 200);
    for (const interval of INTERVALS) {
      assert.equal((await call(svc.url, `/api/endpoints/query/usage.api-counts?interval=${interval}&project=granted`)).status, 200, interval);
    }
  });

  test('a revoked grant on a table only caller sql reads: /ready 503, and that caller sql 503 rather than a 400 or 500', async () => {
    await admin.query(`revoke select on logs.pgbouncer_logs from ${ROLE}`);
    const ready = await untilStatus(svc.url, '/ready', 503, /pgbouncer_logs/);
    assert.match(ready.error.message, /logs\.all: .*permission denied for table pgbouncer_logs/);
    const sql = encodeURIComponent('select count(*) as n from pgbouncer_logs');
    const res = await call(svc.url, `/api/endpoints/query/logs.all?project=default&sql=${sql}`);
    assert.equal(res.status, 503);
    await admin.query(`grant select on logs.pgbouncer_logs to ${ROLE}`);
    await untilStatus(svc.url, '/ready', 200);
    assert.equal((await call(svc.url, `/api/endpoints/query/logs.all?project=default&sql=${sql}`)).status, 200);
  });
});
