import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { DefinitionError, loadRegistry } from '../../src/query/registry.ts';
import { loadSqlParser, type SqlParser } from '../../src/sql/sandbox/sql-parser.ts';
import { QUERIES_DIR } from '../../src/process/config.ts';
import { tempDir } from '../support/temp-dir.ts';

let parser: SqlParser;
before(async () => {
  parser = await loadSqlParser();
});

test('the shipped stored queries load with their specified settings', () => {
  const r = loadRegistry(QUERIES_DIR, parser);
  const logs = r.lookup('logs.all')!;
  const usage = r.lookup('usage.api-counts')!;
  assert.equal(logs.id, 'dbfa1333-137e-484c-a48a-ab8e074edc7c');
  assert.equal(usage.id, '5bcef039-51e9-4b34-b532-b1b3b908833d');
  assert.deepEqual([logs.maxRows, logs.cachingSeconds, logs.cacheWarmingSeconds, logs.sandboxing, logs.redactPii], [1000, null, null, true, false]);
  assert.deepEqual([usage.maxRows, usage.cachingSeconds, usage.cacheWarmingSeconds, usage.sandboxing, usage.redactPii], [1000, 900, 300, true, false]);
  assert.deepEqual(logs.bindOrder, ['project', 'iso_timestamp_start', 'iso_timestamp_end']);
  // Compiled once here so requests only look them up.
  assert.deepEqual([logs.cachePolicy, usage.cachePolicy], [{ cached: false }, { cached: true, ttlMs: 900_000, warmIntervalMs: 300_000 }]);
  assert.deepEqual([logs.rowLimit.maxRows, usage.rowLimit.maxRows], [1000, 1000]);
  assert.deepEqual(logs.rowLimit.cap([1, 2, 3]), { rows: [1, 2, 3], truncated: false });
  assert.deepEqual([logs.regexParam, usage.regexParam], [undefined, 'project']);
  assert.deepEqual(logs.sandbox?.cteNames.slice(0, 2), ['edge_logs', 'postgres_logs']);
  assert.deepEqual(usage.sandbox?.cteNames, ['window_spec', 'requests', 'rolled_up', 'window_urls', 'matching_urls', 'counted']);
  assert.equal(r.lookup(logs.id.toUpperCase()), logs);
  assert.equal(r.lookup('LOGS.ALL'), undefined);
  assert.ok(!logs.boundSql.includes('@'), 'every @param is bound');
  // PostgreSQL folds `(@p is null or …)` itself when it plans a call with its values: one statement.
  const call = logs.statementFor({ project: 'p', iso_timestamp_start: null, iso_timestamp_end: null });
  assert.deepEqual(call, { sql: logs.rowLimit.wrap(logs.boundSql), params: ['p', null, null] });
  assert.ok(Object.isFrozen(logs) && Object.isFrozen(r.all));
});

const GOOD = { id: '11111111-2222-3333-4444-555555555555', name: 'a.b', maxRows: 10, cachingSeconds: null, cacheWarmingSeconds: null, sandboxing: false, redactPii: false, params: { p: { type: 'string', required: true } } };

const BAD: [string, Record<string, unknown>, string, RegExp][] = [
  ['undeclared parameter', GOOD, 'select @p, @q', /undeclared parameter\(s\) @q/],
  ['declared but unused', { ...GOOD, params: { p: { type: 'string', required: true }, x: { type: 'string', required: false } } }, 'select @p', /never used.*x/],
  ['bad id', { ...GOOD, id: 'not-a-uuid' }, 'select @p', /"id"/],
  ['bad name', { ...GOOD, name: 'A B' }, 'select @p', /"name"/],
  ['maxRows zero', { ...GOOD, maxRows: 0 }, 'select @p', /maxRows/],
  ['warming without caching', { ...GOOD, cacheWarmingSeconds: 5 }, 'select @p', /cacheWarmingSeconds/],
  ['redactPii with sandboxing (caller sql could undo it)', { ...GOOD, sandboxing: true, redactPii: true }, 'with a as (select @p as x) select x from a', /redactPii.*sandboxing/],
  ['warming not shorter than caching', { ...GOOD, cachingSeconds: 5, cacheWarmingSeconds: 5 }, 'select @p', /cacheWarmingSeconds/],
  ['unknown param type', { ...GOOD, params: { p: { type: 'int', required: true } } }, 'select @p', /"type"/],
  ['reserved param name', { ...GOOD, params: { sql: { type: 'string', required: true } } }, 'select @sql', /reserved/],
  ['enum without values', { ...GOOD, params: { p: { type: 'enum', required: true, values: [] } } }, 'select @p', /enum/],
  ['unterminated literal', GOOD, "select @p, 'oops", /unterminated/],
  ['positional parameter', GOOD, 'select @p, $1', /positional/],
  ['sandboxing on a statement without WITH', { ...GOOD, sandboxing: true }, 'select @p', /cannot be sandboxed/],
  ['a misspelt field', { ...GOOD, maxRow: 5 }, 'select @p', /: unknown field "maxRow" \(did you mean "maxRows"\?\); the fields are id, name, compat, description, maxRows, /],
  ['a field nothing is close to', { ...GOOD, owner: 'me' }, 'select @p', /: unknown field "owner"; the fields are /],
  ['a column type', { ...GOOD, columns: { n: 'int' } }, 'select @p', /"columns": "n" must be one of string, text, timestamp, integer, number, boolean, object, array, struct, got "int"/],
  ['a compatibility mode there is not', { ...GOOD, compat: 'bigquery' }, 'select @p', /"compat" must be logflare, got "bigquery"/],
  ['sandboxing not a boolean', { ...GOOD, sandboxing: 'yes' }, 'select @p', /"sandboxing" must be true or false, got "yes"/],
  ['id shows its expected form', { ...GOOD, id: 'abc' }, 'select @p', /"id" must be a lowercase UUID such as [0-9a-f-]{36}, got "abc"/],
  ['a table the log store does not have (regression: a typo made /ready say "apply the schema")', GOOD, 'select @p from edge_log', /a\.b\.sql reads "edge_log", which is not a table of the log store \(did you mean edge_logs\?\); it has edge_logs, /],
  ['a table in another schema', GOOD, 'select @p from public.users', /a\.b\.sql reads "public\.users", which is not a table of the log store/],
  ['a statement that does not parse', GOOD, 'select @p from', /a\.b\.sql is not valid SQL: syntax error/],
  ['a misspelt parameter field', { ...GOOD, params: { p: { type: 'integer', required: true, mx: 5 } } }, 'select @p', /parameter "p": unknown field "mx" \(did you mean "max"\?\)/],
];
for (const [name, def, sql, message] of BAD) {
  test(`a bad definition stops start-up naming the file: ${name}`, () => {
    const dir = tempDir('registry-');
    writeFileSync(join(dir, `${String(def.name)}.json`), JSON.stringify(def));
    writeFileSync(join(dir, `${String(def.name)}.sql`), sql);
    assert.throws(() => loadRegistry(dir, parser), (err: unknown) => err instanceof DefinitionError && err.message.includes(dir) && message.test(err.message));
  });
}

test("Studio's analytics names are served only with COMPAT=logflare, on both dialects; a struct column is declared as such", () => {
  assert.deepEqual(loadRegistry(QUERIES_DIR, parser).all.map((q) => q.name), ['logs.all', 'usage.api-counts']);
  for (const dialect of ['postgresql', 'clickhouse'] as const) {
    const names = loadRegistry(QUERIES_DIR, parser, 'logflare', dialect).all.map((q) => q.name);
    assert.deepEqual(names, ['functions.combined-stats', 'logs.all', 'project.metrics', 'service-health', 'usage.api-counts', 'usage.api-requests-count'], dialect);
  }
  const health = loadRegistry(QUERIES_DIR, parser, 'logflare').lookup('service-health')!;
  assert.equal(health.structColumns.length, 10);
  assert.ok(!health.resultColumns.json.has('postgres_logs'), 'a struct is not JSON the engine shapes');
});

test('a table of the store, its own CTEs and the log schema qualified are what a stored statement may read', () => {
  const dir = tempDir('registry-');
  writeFileSync(join(dir, 'a.b.json'), JSON.stringify(GOOD));
  writeFileSync(join(dir, 'a.b.sql'), 'with recent as (select * from logs.edge_logs where project = @p) select r.id from recent r join auth_logs a using (id) join edge_request_counts c on true');
  assert.equal(loadRegistry(dir, parser).all.length, 1);
});

test('a JSON syntax error in a definition names its line and column', () => {
  const dir = tempDir('registry-');
  writeFileSync(join(dir, 'a.b.json'), '{\n  "id": "11111111-2222-3333-4444-555555555555",\n  "name": "a.b"\n  "maxRows": 10\n}\n');
  writeFileSync(join(dir, 'a.b.sql'), 'select 1');
  assert.throws(() => loadRegistry(dir, parser), /a\.b\.json: not valid JSON at line 4, column 3 \(/);
});

test('each stored query carries its store probes: the statement, and with sandboxing every CTE, planned with no row produced', () => {
  const r = loadRegistry(QUERIES_DIR, parser);
  const logs = r.lookup('logs.all')!;
  assert.equal(logs.probes.length, 3);
  for (const p of logs.probes) assert.match(p.sql, /^select 1 from \(\n[\s\S]*\n\) as store_probe where false$/);
  for (const p of logs.probes.slice(0, 2)) assert.deepEqual(p.params, ['x', '2000-01-01T00:00:00+00:00', '2000-01-01T00:00:00+00:00']);
  // The statement again with every optional parameter left out (null where it is read).
  assert.equal(logs.probes[2]!.sql, logs.probes[0]!.sql);
  assert.deepEqual(logs.probes[2]!.params, ['x', null, null]);
  for (const cte of logs.sandbox!.cteNames) assert.ok(logs.probes[1]!.sql.includes(`select 1 from "${cte}"`), cte);
  assert.deepEqual(r.lookup('usage.api-counts')!.probes[0]!.params, ['hourly', 'x']);
});

test('duplicate names across files are refused', () => {
  const dir = tempDir('registry-');
  writeFileSync(join(dir, 'a.b.json'), JSON.stringify(GOOD));
  writeFileSync(join(dir, 'a.b.sql'), 'select @p');
  writeFileSync(join(dir, 'c.d.json'), JSON.stringify({ ...GOOD, name: 'c.d' }));
  writeFileSync(join(dir, 'c.d.sql'), 'select @p');
  assert.throws(() => loadRegistry(dir, parser), /id 11111111-2222-3333-4444-555555555555 is also used/);
});

test('on ClickHouse: the shipped queries bind {pN:Type} from the declarations, {db} is LOG_SCHEMA, timestamps are sent in ClickHouse\'s form', () => {
  const r = loadRegistry(QUERIES_DIR, parser, null, 'clickhouse', 'my_logs');
  const logs = r.lookup('logs.all')!;
  assert.match(logs.boundSql, /t\.project_key = \{p1:String\}/);
  assert.match(logs.boundSql, /\{p2:Nullable\(DateTime64\(6, 'UTC'\)\)\}/);
  assert.match(logs.boundSql, /from `my_logs`\.edge_logs t/);
  assert.doesNotMatch(logs.boundSql, /@\w|\{db\}/);
  assert.deepEqual(logs.bindValues({ project: 'p', iso_timestamp_start: '2026-11-22T12:15:30.1234567+02:00', iso_timestamp_end: null }), ['p', '2026-11-22 10:15:30.123457', null]);
  // Caller sql is printed for ClickHouse over the stored CTEs, typed from the PostgreSQL statement's.
  assert.deepEqual(logs.sandbox?.cteNames, ['edge_logs', 'postgres_logs', 'function_edge_logs', 'function_logs', 'auth_logs', 'realtime_logs', 'storage_logs', 'postgrest_logs', 'pgbouncer_logs']);
  assert.deepEqual(logs.sandbox?.clickhouse?.ctes.get('edge_logs'), [
    { name: 'id', type: 'text' }, { name: 'timestamp', type: 'timestamptz' }, { name: 'event_message', type: 'text' }, { name: 'metadata', type: 'jsonb' }, { name: 'identifier', type: 'text' },
  ]);
  const usage = r.lookup('usage.api-counts')!;
  assert.deepEqual(usage.sandbox?.clickhouse?.ctes.get('requests'), [{ name: 'timestamp', type: 'timestamptz' }, { name: 'path', type: 'text' }]);
  assert.deepEqual([...logs.resultColumns.json], ['metadata']);
  // Only the CTE the final SELECT reads is sent: ClickHouse analyses every CTE it gets.
  assert.match(logs.boundSql, /^with\nedge_logs as \(/);
  for (const unread of ['postgres_logs', 'auth_logs', 'function_logs', 'pgbouncer_logs']) assert.ok(!logs.boundSql.includes(`${unread} as (`), unread);
  assert.match(r.lookup('usage.api-counts')!.boundSql, /\(select now64\(6, 'UTC'\)\) as anchor,[\s\S]*requests as \(/);
});

test('on ClickHouse a call runs the statement for the optional parameters it gives: the filters of the others folded away, what it gives typed as given', () => {
  const logs = loadRegistry(QUERIES_DIR, parser, null, 'clickhouse', 'logs').lookup('logs.all')!;
  const at = (start: string | null, end: string | null) => logs.statementFor({ project: 'p', iso_timestamp_start: start, iso_timestamp_end: end });
  const none = at(null, null);
  assert.deepEqual(none.params, ['p']);
  assert.match(none.sql, /where t\.project_key = \{p1:String\}\n  order by t\.timestamp desc/);
  const from = at('2026-11-22T12:15:30Z', null);
  assert.deepEqual(from.params, ['p', '2026-11-22 12:15:30.000000']);
  assert.match(from.sql, /and \( t\.timestamp > \{p2:DateTime64\(6, 'UTC'\)\}\)\n  order by/);
  const to = at(null, '2026-11-22T12:15:30Z');
  assert.deepEqual(to.params, ['p', '2026-11-22 12:15:30.000000']);
  assert.match(to.sql, /and \( t\.timestamp <= \{p2:DateTime64\(6, 'UTC'\)\}\)\n  order by/);
  const both = at('2026-11-22T12:15:30Z', '2026-11-23T00:00:00Z');
  assert.deepEqual(both.params, ['p', '2026-11-22 12:15:30.000000', '2026-11-23 00:00:00.000000']);
  for (const c of [none, from, to, both]) {
    assert.doesNotMatch(c.sql, /is null|Nullable|@\w/);
    assert.ok(c.sql.startsWith('select * from (\nwith\nedge_logs as ('), 'held to max rows, with only the CTE it reads');
  }
  // The store check plans each folded statement too (at start-up, with the statement and the CTEs).
  const folded = logs.probes.slice(3);
  assert.equal(folded.length, 4);
  for (const [k, c] of [none, from, to, both].entries()) assert.ok(folded.some((p) => p.sql.includes(c.sql.slice(c.sql.indexOf('with'), c.sql.indexOf(') as limited_result'))) && p.params.length === c.params.length), `shape ${k}`);
});

const CH_BAD: [name: string, files: Record<string, string>, message: RegExp][] = [
  ['no statement for the engine', { 'a.b.sql': 'select @p' }, /missing its statement a\.b\.clickhouse\.sql \(the stored query has no statement for this engine\)/],
  ['files disagree on parameters', { 'a.b.sql': 'with x as (select @p as v) select v from x', 'a.b.clickhouse.sql': 'with x as (select 1 as v) select v from x' }, /a\.b\.clickhouse\.sql uses parameters {2}but a\.b\.sql uses p/],
  ['a backslash ClickHouse would read as an escape', { 'a.b.sql': 'select @p', 'a.b.clickhouse.sql': "select @p, 'a\\'" }, /a backslash is not allowed in a ClickHouse statement/],
  ['a WITH clause without its final SELECT', { 'a.b.sql': 'select @p', 'a.b.clickhouse.sql': 'with x as (select @p)' }, /a\.b\.clickhouse\.sql: the WITH clause has no final SELECT/],
  ['the PostgreSQL statement beside reads a table the log store does not have', { 'a.b.sql': 'select @p from edge_log', 'a.b.clickhouse.sql': 'select @p' }, /a\.b\.sql reads "edge_log", which is not a table of the log store \(did you mean edge_logs\?\)/],
  ['a CTE PostgreSQL does not define', { 'a.b.sql': 'with x as (select @p as v) select v from x', 'a.b.clickhouse.sql': 'with y as (select @p as v) select v from y' }, /a\.b\.clickhouse\.sql defines CTE\(s\) y that a\.b\.sql does not/],
];
for (const [name, files, message] of CH_BAD) {
  test(`on ClickHouse, start-up refuses a stored query: ${name}`, () => {
    const dir = tempDir('registry-');
    writeFileSync(join(dir, 'a.b.json'), JSON.stringify(GOOD));
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    assert.throws(() => loadRegistry(dir, parser, null, 'clickhouse'), (err: unknown) => err instanceof DefinitionError && message.test(err.message));
  });
}
