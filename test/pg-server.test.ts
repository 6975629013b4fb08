// The test database harness itself: real PostgreSQL 15, outage (stop/start) on the same port, isolation, cleanup.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createDatabase, startPostgres, type PgServer } from '../scripts/lib/pg-server.ts';

let server: PgServer;

before(async () => {
  const t0 = performance.now();
  server = await startPostgres();
  console.log(`pg-server: started in ${Math.round(performance.now() - t0)} ms (${server.url})`);
});

after(async () => {
  await server?.destroy();
});

/** Run `sql` on a fresh connection; return its rows. */
async function query(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

async function queryOne(url: string, sql: string): Promise<Record<string, unknown>> {
  const [row] = await query(url, sql);
  assert.ok(row, `no row from ${sql}`);
  return row;
}

test('serves queries, and a stop/start outage keeps port and data', async () => {
  const { version } = await queryOne(server.url, 'select version() as version');
  if (!server.external) assert.match(String(version), /PostgreSQL 15/);

  if (server.external) {
    await assert.rejects(server.stop(), /outage simulation needs the throwaway server/);
    await assert.rejects(server.start(), /outage simulation needs the throwaway server/);
    return;
  }

  const url = await createDatabase(server, 'pg_server_outage');
  await query(url, 'create table survives (n int); insert into survives values (42)');
  await server.stop();
  await assert.rejects(queryOne(server.url, 'select 1'), /ECONNREFUSED/);
  await server.start();
  assert.deepEqual(await queryOne(url, 'select n from survives'), { n: 42 });
});

test('createDatabase gives a fresh database each time', async () => {
  const url = await createDatabase(server, 'pg_server_fresh');
  assert.equal((await queryOne(url, 'select current_database() as db')).db, 'pg_server_fresh');
  await query(url, 'create table leftover (n int)');
  await createDatabase(server, 'pg_server_fresh');
  const { count } = await queryOne(url, "select count(*)::int as count from pg_tables where tablename = 'leftover'");
  assert.equal(count, 0);
  await assert.rejects(createDatabase(server, 'bad"name'), /invalid name/);
});

test('destroy removes the throwaway cluster', async () => {
  const own = await startPostgres();
  await own.destroy();
  await own.destroy(); // idempotent
  if (own.dataDir) assert.equal(existsSync(own.dataDir), false);
});
