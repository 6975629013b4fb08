/**
 * Caller sql printed for ClickHouse (src/sql/clickhouse/): what is printed with PostgreSQL's
 * meaning, and what is refused by name and position, never guessed. The answers themselves are
 * compared with PostgreSQL's in test/clickhouse.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { join } from 'node:path';
import { loadSqlParser } from '../../src/sql/sandbox/sql-parser.ts';
import { loadRegistry } from '../../src/query/registry.ts';
import { composeSandboxed } from '../../src/sql/sandbox/compose.ts';
import { PRINTED_FUNCTIONS } from '../../src/sql/clickhouse/emit-functions.ts';
import { ALLOWED_FUNCTIONS } from '../../src/sql/sandbox/allow-lists.ts';
import { HttpError } from '../../src/shared/errors.ts';

const parser = await loadSqlParser();
const registry = loadRegistry(join(import.meta.dirname, '../../sql/queries'), parser, null, 'clickhouse', 'logs');
const logs = registry.lookup('logs.all')!;
const print = (sql: string): string => composeSandboxed(logs.sandbox!, sql).sql;
const refusal = (sql: string): string => {
  try {
    print(sql);
  } catch (err) {
    assert.ok(err instanceof HttpError, String(err));
    return err.message;
  }
  return assert.fail(`printed: ${sql}`);
};

test('every function the printer knows is one the sandbox allows', () => {
  assert.deepEqual([...PRINTED_FUNCTIONS].filter((f) => !ALLOWED_FUNCTIONS.has(f)), []);
  assert.ok(PRINTED_FUNCTIONS.size >= 100, `${PRINTED_FUNCTIONS.size} printed`);
});

const REFUSED: readonly (readonly [sql: string, message: RegExp])[] = [
  ['select generate_series(1, 3) as g', /function generate_series\(\) is not supported on the ClickHouse engine at character 8/],
  ['select * from generate_series(1, 3) as g(i)', /a function in FROM other than unnest of one array is not supported/],
  ['with recursive n(i) as (select 1 union all select i + 1 from n where i < 3) select i from n', /WITH RECURSIVE is not supported/],
  ["select greatest(metadata, metadata) as g from edge_logs", /GREATEST of jsonb is not supported on the ClickHouse engine at character 8/],
  ['select row(1, 2) as r', /RowExpr is not supported/],
  ['select id collate "en_US" as i from edge_logs', /COLLATE "en_US" is not supported/],
  ["select '{1}'::int[] as a", /a cast from unknown to int\[\] is not supported/],
  ['select 1.5::numeric(10, 2) as n', /the type numeric with a modifier is not supported/],
  ["select timestamp at time zone 'Europe/Paris' as t from edge_logs", /a time zone other than UTC is not supported/],
  ["select id from edge_logs where metadata -> 'a' > metadata -> 'b'", /> on JSON values is not supported/],
  ["select metadata -> event_message as x from edge_logs", /a JSON key that is not a constant is not supported/],
  ["select metadata #> '{a,0}' as x from edge_logs", /a numeric step in a JSON path is not supported/],
  ['select id from edge_logs e, lateral (select 1 as x) l', /LATERAL is not supported/],
  ['select distinct on (id) id from edge_logs', /DISTINCT ON is not supported/],
  ["select to_char(timestamp, 'FMDD') as y from edge_logs", /the to_char pattern at "FMDD" is not supported/],
  ["select to_char(timestamp, 'MON') as y from edge_logs", /the to_char pattern MON is not supported/],
  ["select to_char(length(id), '999') as y from edge_logs", /to_char of int is not supported/],
  ['select id from edge_logs limit 1 + 1', /LIMIT or OFFSET that is not an integer constant/],
  ["select id from edge_logs where id = 'x' intersect all select id from auth_logs", /INTERSECT ALL is not supported/],
  ['select nosuch from edge_logs', /column "nosuch" does not exist at character 8/],
  ['select e.id from edge_logs e join auth_logs a on true join postgres_logs e on true', /table name "e" specified more than once/],
  ["select 'abc'::int as x", /invalid input syntax for type integer: "abc"/],
];

test('refused by name and position, never printed as a guess', () => {
  for (const [sql, message] of REFUSED) assert.match(refusal(sql), message, sql);
});

test('printed with PostgreSQL\'s meaning: JSON paths, division, NULLS, escapes, qualified columns, renamed CTEs, only the CTEs read', () => {
  const json = print("select metadata -> 'request' ->> 'method' as m from edge_logs");
  assert.match(json, /JSONExtractString\(`edge_logs`\.`metadata`, 'request', 'method'\)/);
  assert.match(print('select count(*) / 2 as h from edge_logs'), /intDiv\(count\(\), \(2 \+ throwIf\(2 = 0, 'division by zero'\)\)\)/);
  assert.match(print('select id from edge_logs order by timestamp desc'), /ORDER BY `edge_logs`\.`timestamp` DESC NULLS FIRST/);
  assert.match(print('select id from edge_logs order by timestamp'), /ASC NULLS LAST/);
  assert.match(print("select 'a\\b''c' as s"), /'a\\\\b\\'c' AS `s`/);
  assert.match(print("select lower(event_message) as event_message from edge_logs where event_message = 'x'"), /WHERE \(`edge_logs`\.`event_message` = 'x'\)/);
  const renamed = print("with edge_logs as (select * from edge_logs where id <> 'x') select count(*) as n from edge_logs");
  assert.match(renamed, /WITH `caller_cte_1` AS \(.*FROM edge_logs AS `edge_logs`/);
  assert.match(renamed, /FROM caller_cte_1 AS `edge_logs`/);
  // Only the stored CTE read is sent: ClickHouse analyses every CTE it is given.
  assert.match(print('select id from auth_logs'), /^with\nauth_logs as \(/);
  assert.doesNotMatch(print('select id from auth_logs'), /edge_logs as \(/);
  // A record test on a stored CTE's metadata reads the kinds map computed at insert, not the document.
  assert.match(print("select count(*) as n from edge_logs where jsonb_typeof(metadata -> 'request') = 'object'"), /if\(mapContains\(`edge_logs`\.`metadata_kinds`, 'request'\), `edge_logs`\.`metadata_kinds`\['request'\] = 'object', NULL\)/);
  assert.match(print("select count(*) as n from (select metadata from edge_logs) s where jsonb_typeof(metadata -> 'request') = 'object'"), /JSONType\(`s`\.`metadata`, 'request'\)/);
  // Booleans answer as booleans, not ClickHouse's 0 and 1.
  assert.match(print('select id = id as same from edge_logs'), /toBool\(/);
});

test('a caller\'s sql, refused or printed, never carries ClickHouse syntax through: the printed text is the service\'s', () => {
  const printed = print("select id, event_message from edge_logs where event_message like '%; SETTINGS readonly = 0 FORMAT TSV --%'");
  // The caller's text survives only inside a string literal.
  assert.equal(printed.split("'%; SETTINGS readonly = 0 FORMAT TSV --%'").length, 2);
  assert.doesNotMatch(printed.replace(/'(?:[^'\\]|\\.)*'/g, "''"), /SETTINGS|FORMAT|OUTFILE|;/);
});
