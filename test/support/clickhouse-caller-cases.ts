/**
 * Caller sql on the ClickHouse engine, against PostgreSQL's answer for the same rows
 * (test/clickhouse.test.ts): which cases of the shared tables (sandbox-cases.ts, bigquery-cases.ts,
 * the real queries) the ClickHouse printer refuses, and why; and how two answers are compared.
 * Everything not listed here must answer on ClickHouse as on PostgreSQL.
 */

/** Cases refused on ClickHouse (400 invalid_sql naming the construct), keyed by label or sql text. */
export const REFUSED_ON_CLICKHOUSE: Readonly<Record<string, RegExp>> = Object.freeze({
  // the sandbox table (labels)
  'regexp_match': /function regexp_match\(\) is not supported on the ClickHouse engine/, // an array or NULL: ClickHouse has no nullable arrays
  'lateral jsonb_array_elements over a CTE column': /a function in FROM/,
  'recursive CTE': /WITH RECURSIVE is not supported/,
  'generate_series in FROM': /a function in FROM/,
  'VALUES inside FROM': /VALUES is not supported/,
  'casts to allowed types': /the type numeric with a modifier is not supported/,
  'grouping sets and distinct on': /GROUPING SETS, ROLLUP and CUBE is not supported/,
  // the BigQuery translation table (sql text): arrays, to_char formats, ordered aggregates, records
  'select json_extract_scalar(event_message, "$[\'a b\'][0]") as a from auth_logs': /a numeric step in a JSON path/,
  'select generate_timestamp_array(timestamp, timestamp_add(timestamp, interval 2 hour), interval 1 hour) as a from edge_logs': /function generate_series\(\)/,
  "select json_extract_array(event_message, '$.tags') as t from auth_logs": /a function in FROM/,
  'select approx_top_count(m.level, 2) as top from edge_logs cross join unnest(metadata) as m': /unnest of an array that reads a column/,
  'select * from edge_logs qualify row_number() over (partition by id order by timestamp desc) = 1 order by timestamp desc limit 5': /the whole row of edge_logs as a value/,
});

/**
 * Cases whose answers differ for a stated reason, checked for what they do promise: a clean answer
 * (200 or a 4xx), never a 5xx.
 */
export const DIFFERS_ON_CLICKHOUSE: Readonly<Record<string, string>> = Object.freeze({
  'current_date and localtimestamp': 'the time of the call: each engine reads its own clock',
  "select m.a || '!' as x from edge_logs cross join unnest(metadata) as m": 'the fixture\'s json-1 row holds a number past 64 bits, which ClickHouse\'s JSON functions cannot read: its members read as absent (docs/clickhouse.md)',
  'select safe_divide(m.a, m.b) as r from edge_logs cross join unnest(metadata) as m': 'the json-1 row again: PostgreSQL fails on its "a": [], ClickHouse reads it as absent',
  'select any_value(event_message) as e from edge_logs': 'ANY_VALUE is any row\'s value (BigQuery\'s words); each engine takes the first of its own row order (array_agg\'s ordered form is compared in test/clickhouse.test.ts)',
  "select string_agg(event_message) as a, string_agg(id, '|' order by id) as b from edge_logs": 'STRING_AGG without ORDER BY joins in each engine\'s own row order (its ordered form is compared in test/clickhouse.test.ts)',
  "select json_query(event_message, '$.metering') as m, json_extract(event_message, '$') as j from auth_logs": 'an object parsed from text keeps its key order, which jsonb sorts: ClickHouse answers that with an error naming it, never with other text',
});

/** Real queries ordered by a measure with ties where LIMIT cuts: their measure column, compared in order. */
export const ORDERED_BY_MEASURE: Readonly<Record<string, string>> = Object.freeze({
  'API report: top routes': 'count',
  'API report: top slow routes': 'avg',
  'Logs Explorer: top paths': 'c',
  'Logs Explorer: storage object requests': 'count',
  'Logs Explorer: storage egress requests': 'count',
  'Logs Explorer: storage top cache misses': 'count',
});

type Json = Record<string, unknown>;

/**
 * How PostgreSQL's and ClickHouse's answers agree: `same` (the same bytes), `same rows` (the same
 * rows in another order: only where the statement leaves order open), `same count` (both cut at max
 * rows from an unordered result), `same error` / `both refuse` (the same 4xx), `same measure` (ties in a declared measure ordered apart), or why not.
 */
export function agreement(pg: { status: number; text: string }, ch: { status: number; text: string }, maxRows: number, measure?: string): string {
  if (pg.text === ch.text && pg.status === ch.status) return 'same';
  if (pg.status !== ch.status) return `status ${pg.status} vs ${ch.status}: ${ch.text.slice(0, 300)}`;
  if (pg.status !== 200) {
    const code = (t: string) => ((JSON.parse(t) as Json).error as Json | undefined)?.code;
    // A 400 either way: PostgreSQL refused it running, ClickHouse's printer before sending it.
    return code(pg.text) === code(ch.text) ? 'same error' : 'both refuse';
  }
  const rows = (t: string) => (JSON.parse(t) as Json).result as Json[];
  const [a, b] = [rows(pg.text), rows(ch.text)];
  const sorted = (r: Json[]) => r.map((x) => JSON.stringify(x)).sort().join('\n');
  if (a.length === b.length && sorted(a) === sorted(b)) return 'same rows';
  if (a.length === maxRows && b.length === maxRows) return 'same count';
  if (measure !== undefined && a.length === b.length && JSON.stringify(a.map((r) => r[measure])) === JSON.stringify(b.map((r) => r[measure]))) return 'same measure';
  return `rows differ: ${pg.text.slice(0, 200)} vs ${ch.text.slice(0, 200)}`;
}

/**
 * Caller sql aimed at ClickHouse itself (what its own dialect would let through: research in
 * docs/clickhouse.md): each is refused by the PostgreSQL parser or the sandbox before anything is
 * sent, since the service prints the statement and never passes caller text on.
 */
export const HOSTILE_TO_CLICKHOUSE: readonly (readonly [label: string, sql: string, message: RegExp])[] = [
  ['file() table function', "select * from file('/etc/passwd', 'LineAsString')", /function in FROM|not allowed|not supported/],
  ['url() table function', "select * from url('http://127.0.0.1:9/x', 'CSV', 'a String')", /function in FROM|not allowed|not supported/],
  ['remote() table function', "select * from remote('127.0.0.1', system.one)", /function in FROM|not allowed|not supported|syntax error/],
  ['numbers() table function', 'select * from numbers(10)', /function in FROM|not allowed|not supported/],
  ['merge() over every table', "select * from merge(currentDatabase(), '.*')", /function in FROM|not allowed|not supported/],
  ['view() of another table', 'select * from view(select * from system.users)', /syntax error|not allowed|not supported/],
  ['system.users', 'select * from system.users', /schema-qualified/],
  ['system.tables in a subquery', 'select (select count(*) from system.tables) as n', /schema-qualified/],
  ['system.processes by a quoted name', 'select * from "system"."processes"', /schema-qualified/],
  ['the log database by name', 'select * from logs.edge_logs', /schema-qualified/],
  ['unicode-escaped system', 'select * from U&"sys\\0074em".users', /schema-qualified/],
  ['INTO OUTFILE', "select 1 into outfile '/tmp/sqe-outfile'", /syntax error|INTO is not allowed/],
  ['SELECT INTO a table', 'select 1 into evil', /SELECT … INTO is not allowed/],
  ['SETTINGS clause', 'select 1 settings readonly = 0', /syntax error/],
  ['SETTINGS in a subquery', 'select * from (select 1 settings readonly = 0) s', /syntax error/],
  ['FORMAT clause', 'select 1 format TabSeparated', /syntax error/],
  ['two statements', 'select 1; drop table edge_logs', /exactly one statement/],
  ['a statement after a comment', 'select 1 --\n; drop table edge_logs', /exactly one statement/],
  ['ARRAY JOIN', 'select * from edge_logs array join [1, 2] as x', /syntax error/],
  ['dictGet', "select dictGet('d', 'x', 1) as v", /function dictget\(\) is not allowed/i],
  ['currentUser()', 'select currentUser() as u', /function currentuser\(\) is not allowed/i],
  ['getSetting()', "select getSetting('readonly') as r", /function getsetting\(\) is not allowed/i],
  ['version() and hostName()', 'select version() as v, hostName() as h', /function version\(\) is not allowed/i],
  ['sleep()', 'select sleep(3) as s', /function sleep\(\) is not allowed/i],
  ['getServerSetting()', "select getServerSetting('path') as p", /function getserversetting\(\) is not allowed/i],
  ['a backslash ending a literal, then system.users', "select 'a\\' as x, (select 1 from system.users) as y", /schema-qualified/],
  ['a ClickHouse-only escape hiding a second literal', "select 'x\\', (select 1 from system.users)--' as y", /schema-qualified/],
];

/** Caller sql whose literals and names ClickHouse would read differently unless printed: the same answer. */
export const ESCAPES: readonly string[] = [
  "select 'a\\' as one_backslash, 'b\\\\' as two, 'it''s' as quote, 'it''s\\' || 'z' as mixed",
  'select 1 as "x`y", 2 as "a\\b", 3 as "tab\there"',
  "select 'x' like 'x\\%' as escaped_like, 'x%' like 'x\\%' as literal_percent",
];
