import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PGlite } from '@electric-sql/pglite';
import { HttpError } from '../../src/shared/errors.ts';
import { ALLOWED_FUNCTIONS } from '../../src/sql/sandbox/allow-lists.ts';
import { composeSandboxed } from '../../src/sql/sandbox/compose.ts';
import { loadSqlParser, type SqlParser } from '../../src/sql/sandbox/sql-parser.ts';
import { prepareSandbox } from '../../src/sql/sandbox/stored-statement.ts';
import { ALLOWED, REJECTED } from '../support/sandbox-cases.ts';

// A stored statement as the binder hands it over: @project is already $1. Its CTE bodies read the
// real tables; only the stored statement may do that.
const STORED = `-- three sources, one CTE each
with edge_logs as (
  select id, timestamp, event_message, metadata from edge_logs where project = $1 order by timestamp desc
),
postgres_logs as (select id, timestamp, event_message, metadata from postgres_logs where project = $1),
auth_logs as (select id, timestamp, event_message, metadata from auth_logs where project = $1)
select id, timestamp, event_message, metadata from edge_logs order by timestamp desc limit 100`;

function rejects(sql: string, message?: RegExp): void {
  assert.throws(
    () => composeSandboxed(prepareStored(STORED), sql).sql,
    (err: unknown) => {
      assert.ok(err instanceof HttpError, `expected HttpError, got ${String(err)}`);
      assert.equal(err.code, 'invalid_sql');
      if (message) assert.match(err.message, message);
      return true;
    },
  );
}

let parser: SqlParser;
const prepareStored = (sql: string) => prepareSandbox(parser, sql);

before(async () => {
  parser = await loadSqlParser();
});

describe('sandbox: hostile statements are rejected', () => {
  assert.ok(REJECTED.length >= 45);
  for (const [label, sql, message] of REJECTED) test(label, () => rejects(sql, message));

  test('messages say where, in characters, not UTF-8 bytes', () => {
    rejects('select * from pg_class', /at character 15$/);
    rejects("select 'ééé', * from pg_class", /at character 22$/);
    rejects("select 'ü' frm t", /syntax error at or near "t" at character 16$/);
  });

  test('the parser still works after the hostile inputs', () => {
    assert.match(composeSandboxed(prepareStored(STORED), 'select 1 as one').sql, /select 1 as one/);
  });
});

describe('sandbox: legitimate statements compose and run', () => {
  let db: PGlite;

  before(async () => {
    db = new PGlite();
    for (const table of ['edge_logs', 'postgres_logs', 'auth_logs']) {
      await db.exec(`create table ${table} (id text primary key, timestamp timestamptz not null, event_message text not null default '', project text, metadata jsonb not null default '{}')`);
      await db.exec(`insert into ${table} values
        ('${table}-1', '2026-01-01T10:00:00Z', 'GET /rest 200 error 42', 'proj', '{"level":"info","items":[1,2],"request":{"method":"GET"},"response":{"status_code":200}}'),
        ('${table}-2', '2026-01-01T11:30:00Z', ' ok ', 'proj', '{"level":"error"}'),
        ('${table}-3', '2026-01-01T12:00:00Z', 'someone else', 'other', '{}')`);
    }
  });

  after(async () => {
    await db.close();
  });

  assert.ok(ALLOWED.length >= 15);
  for (const [label, sql] of ALLOWED) {
    test(label, async () => {
      const composed = composeSandboxed(prepareStored(STORED), sql).sql;
      assert.ok(composed.startsWith('-- three sources'), 'the stored WITH clause comes first');
      await db.query(composed, ['proj']);
    });
  }

  test("the caller reads the stored CTEs, so only the project's rows", async () => {
    const result = await db.query<{ n: number }>(composeSandboxed(prepareStored(STORED), 'select count(*)::int as n from edge_logs').sql, ['proj']);
    assert.equal(result.rows[0]?.n, 2);
  });

  test("the caller's ORDER BY survives the wrapper", async () => {
    const result = await db.query<{ id: string }>(composeSandboxed(prepareStored(STORED), 'select id from edge_logs order by timestamp asc').sql, ['proj']);
    assert.deepEqual(result.rows.map((r) => r.id), ['edge_logs-1', 'edge_logs-2']);
  });

  test('a param used only by the dropped final SELECT is still bound', async () => {
    const stored = 'with edge_logs as (select id, timestamp from edge_logs where project = $1) select * from edge_logs limit $2::int';
    assert.deepEqual(prepareStored(stored).orphanParams, [2]);
    const result = await db.query(composeSandboxed(prepareStored(stored), 'select id from edge_logs').sql, ['proj', '5']);
    assert.equal(result.rows.length, 2);
  });
});

describe('sandbox: stored statements', () => {
  test('the template lists the top-level CTEs in order', () => {
    assert.deepEqual(prepareStored(STORED).cteNames, ['edge_logs', 'postgres_logs', 'auth_logs']);
  });

  test('the WITH clause is cut before the final SELECT, keeping column lists and SEARCH clauses', () => {
    const stored = `with recursive t(n) as materialized (select 1 union all select n + 1 from t where n < 3)
      search depth first by n set ord, "Quoted" as not materialized (select $1::text as p)
      (select * from t) union all (select 1, null)`;
    const template = prepareStored(stored);
    assert.deepEqual(template.cteNames, ['t', 'Quoted']);
    assert.match(template.withText, /as not materialized \(select \$1::text as p\)$/);
    assert.match(composeSandboxed(prepareStored(stored), 'select * from "Quoted", t').sql, /\) as sandboxed$/);
  });

  test('a stored statement that is not a WITH … SELECT is a definition error', () => {
    assert.throws(() => prepareStored('select 1'), /must be a SELECT that starts with WITH/);
    assert.throws(() => prepareStored('with a as (select 1) delete from x'), /must be a SELECT/);
    assert.throws(() => prepareStored('with a as (select 1) select 1; select 2'), /one statement/);
  });

  test('the allow-list is read-only and excludes the dangerous families', () => {
    for (const name of ALLOWED_FUNCTIONS) assert.doesNotMatch(name, /^(pg_|lo_|dblink)|current_setting|set_config|_to_xml/);
  });
});
