/**
 * The validator reads SQL text with standard_conforming_strings on; the server must read it the
 * same way whatever the role or database defaults say. Here the database defaults turn it off (and
 * backslash quotes on), so a string the validator ends at `'\'` would, read the legacy way, run
 * on into a "comment" that reads a table outside the stored CTEs. Every connection pins the
 * settings in its startup packet (src/store/session-settings.ts), so the server reads what the
 * validator read. PostgreSQL only: PGlite has no roles or database defaults to set.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import type { Service } from '../src/service.ts';
import { createPgEngine } from '../src/store/postgres/pg-engine.ts';
import type { Engine } from '../src/store/engine.ts';
import { pgFactory, SCHEMA, type TestStore } from './support/engines.ts';
import { call, startTestService } from './support/service.ts';

const SECRET = 'key-that-must-never-leak-0123';
let store: TestStore;
let engine: Engine;
let service: Service;

before(async () => {
  store = await pgFactory.open();
  const db = new URL(store.url!).pathname.slice(1);
  await store.admin(`create table ${SCHEMA}.api_keys (k text)`);
  await store.admin(`insert into ${SCHEMA}.api_keys values ($1)`, [SECRET]);
  await store.admin(`alter database "${db}" set standard_conforming_strings = off`);
  await store.admin(`alter database "${db}" set backslash_quote = on`);
  // A fresh engine: its connections are made after the defaults changed.
  engine = createPgEngine({ connectionString: store.url!, schema: SCHEMA, statementTimeoutMs: 5_000, poolMax: 2, connectTimeoutMs: 2_000 });
  service = await startTestService({ ...store, engine });
});
after(async () => {
  await service?.close();
  await engine?.close();
  await store?.teardown();
});

test('the database default really is the legacy reading for a plain connection', async () => {
  const client = new pg.Client({ connectionString: store.url! });
  await client.connect();
  try {
    assert.equal((await client.query('show standard_conforming_strings')).rows[0].standard_conforming_strings, 'off');
  } finally {
    await client.end();
  }
});

test("a backslash string meant to hide a subquery in a comment reads as the validator read it", async () => {
  const sql = "select '\\' as a /* ' , (select string_agg(k, ',') from api_keys) as b -- */";
  const res = await call(service.url, `/api/endpoints/query/logs.all?project=alpha&sql=${encodeURIComponent(sql)}`);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.deepEqual(JSON.parse(text), { result: [{ a: '\\' }] });
  assert.ok(!text.includes(SECRET));
});
