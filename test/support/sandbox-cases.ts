/**
 * Caller SQL for the sandbox: statements that must be rejected and statements that must run, over
 * the CTEs edge_logs, postgres_logs and auth_logs. Shared by the unit test (test/sandbox.test.ts) and
 * the HTTP suite, which runs them against both engines.
 */
import { MAX_SQL_BYTES } from '../../src/sql/sandbox/allow-lists.ts';

export type Rejected = [label: string, sql: string, message?: RegExp];

const ONE_STATEMENT = /exactly one statement/;
const NOT_SELECT = /must be a SELECT/;
const NOT_CTE = /is not one of the stored query's CTEs/;
const QUALIFIED = /schema-qualified/;
const FUNCTION = /function .* is not allowed/;

export const REJECTED: Rejected[] = [
  // more than one statement, however disguised
  ['two statements', 'select 1; drop table edge_logs', ONE_STATEMENT],
  ['line comment then statement', 'select 1 --\n; delete from edge_logs', ONE_STATEMENT],
  ['dollar quote closed before the second statement', 'select $x$ ; $x$; drop table edge_logs', ONE_STATEMENT],
  ['a second SELECT on catalogs', 'select * from edge_logs; select * from pg_class', ONE_STATEMENT],
  ['escaping the subquery', '1) x; drop table y; select (1', /syntax error/],
  ['unbalanced close paren', 'select 1) as s, pg_class --', /syntax error/],
  ['unterminated string', "select 'abc", /unterminated/],
  // not a SELECT
  ['insert', "insert into edge_logs (id) values ('x')", NOT_SELECT],
  ['update', "update edge_logs set id = 'x'", NOT_SELECT],
  ['delete', 'delete from edge_logs', NOT_SELECT],
  ['merge', 'merge into edge_logs t using auth_logs s on t.id = s.id when matched then delete', NOT_SELECT],
  ['explain', 'explain select 1', NOT_SELECT],
  ['copy', "copy edge_logs to '/tmp/x'", NOT_SELECT],
  ['set', 'set search_path = pg_catalog', NOT_SELECT],
  ['show', 'show data_directory', NOT_SELECT],
  ['do block', 'do $$ begin perform 1; end $$', NOT_SELECT],
  ['call', 'call some_proc()', NOT_SELECT],
  ['top-level VALUES', 'values (1)', /VALUES list/],
  // relations that are not CTEs in scope
  ['unknown table', 'select * from edge_logs_real', NOT_CTE],
  ['schema-qualified log table', 'select * from logs.edge_logs', QUALIFIED],
  ['schema-qualified catalog', 'select * from pg_catalog.pg_class', QUALIFIED],
  ['catalog-qualified', 'select * from postgres.logs.edge_logs', QUALIFIED],
  ['catalog table', 'select * from pg_class', NOT_CTE],
  ['union with pg_authid', 'select id from edge_logs union select rolpassword from pg_authid', NOT_CTE],
  ['parenthesised union arm', '(select id from edge_logs) union (select usename from pg_user)', NOT_CTE],
  ['join to a real table', 'select e.id from edge_logs e join pg_roles r on true', NOT_CTE],
  ['scalar subquery in select list', 'select id, (select passwd from pg_shadow limit 1) from edge_logs', NOT_CTE],
  ['exists', 'select id from edge_logs where exists (select from pg_roles)', NOT_CTE],
  ['in (subquery)', 'select id from edge_logs where id in (select usename from pg_user)', NOT_CTE],
  ['lateral subquery', 'select * from edge_logs e, lateral (select * from pg_stat_activity) a', NOT_CTE],
  ['subquery in where comparison', "select * from edge_logs where id = 'x' or 1 = (select 1 from pg_class)", NOT_CTE],
  ['table command on a catalog', 'table pg_class', NOT_CTE],
  ['CTE named like a table whose body reads a catalog', 'with edge_logs as (select * from pg_class) select * from edge_logs', NOT_CTE],
  ['inner CTE name does not leak outward', 'select (select count(*) from (with pg_class as (select 1) select * from pg_class) a), * from pg_class', NOT_CTE],
  ['non-recursive CTE cannot see a later sibling', 'with a as (select * from b), b as (select 1) select * from a', NOT_CTE],
  ['unicode-escaped identifier', 'select * from U&"pg_cl\\0061ss"', /"pg_class" is not one of/],
  ['quoted identifier, upper case', 'select * from "PG_CLASS"', NOT_CTE],
  ['quoted identifier', 'select * from "pg_class"', NOT_CTE],
  ['quoted CTE name in the wrong case', 'select * from "EDGE_LOGS"', NOT_CTE],
  // forbidden clauses and constructs
  ['data-modifying CTE (delete)', 'with x as (delete from edge_logs returning *) select * from x', /data-modifying CTE/],
  ['data-modifying CTE (insert)', "with x as (insert into edge_logs (id) values ('a') returning *) select 1", /data-modifying CTE/],
  ['select into', 'select * into evil from edge_logs', /INTO/],
  ['for update', 'select * from edge_logs for update', /FOR UPDATE/],
  ['for share', 'select * from edge_logs for share', /FOR UPDATE/],
  ['locking inside a subquery', 'select * from (select * from edge_logs for no key update) s', /FOR UPDATE/],
  ['xmltable', "select * from xmltable('/a' passing '<a/>' columns x int path 'x')", /XMLTABLE/],
  ['xml expression', 'select xmlelement(name a)', /XML/],
  ['tablesample', 'select * from edge_logs tablesample system (10)', /TABLESAMPLE/],
  ['SQL/JSON constructor', "select json_object('a': 1)", /JsonObjectConstructor is not allowed/],
  // functions outside the allow-list
  ['pg_sleep', 'select pg_sleep(10)', FUNCTION],
  ['pg_sleep schema-qualified', 'select pg_catalog.pg_sleep(1)', FUNCTION],
  ['allowed name in another schema', "select public.lower('x')", FUNCTION],
  ['pg_read_file', "select pg_read_file('/etc/passwd')", FUNCTION],
  ['pg_ls_dir', "select pg_ls_dir('.')", FUNCTION],
  ['lo_import', "select lo_import('/etc/passwd')", FUNCTION],
  ['lo_export', "select lo_export(1, '/tmp/x')", FUNCTION],
  ['dblink in FROM', "select * from dblink('host=evil', 'select 1') as t(a int)", FUNCTION],
  ['dblink_exec', "select dblink_exec('drop table x')", FUNCTION],
  ['current_setting', "select current_setting('data_directory')", FUNCTION],
  ['set_config', "select set_config('search_path', 'pg_catalog', false)", FUNCTION],
  ['query_to_xml', "select query_to_xml('select * from pg_authid', true, true, '')", FUNCTION],
  ['table_to_xml', "select table_to_xml('pg_authid', true, true, '')", FUNCTION],
  ['cursor_to_xml', "select cursor_to_xml('c', 1, true, true, '')", FUNCTION],
  ['xpath', "select xpath('/a', '<a/>')", FUNCTION],
  ['version', 'select version()', FUNCTION],
  ['pg_terminate_backend', 'select pg_terminate_backend(1)', FUNCTION],
  ['txid_current', 'select txid_current()', FUNCTION],
  ['nextval', "select nextval('s')", FUNCTION],
  ['pg_advisory_lock', 'select pg_advisory_lock(1)', FUNCTION],
  ['inet_client_addr', 'select inet_client_addr()', FUNCTION],
  ['pg_notify', "select pg_notify('c', 'x')", FUNCTION],
  ['forbidden function inside ROWS FROM', 'select * from rows from (generate_series(1, 2), pg_sleep(1)) as t(a, b)', FUNCTION],
  ['forbidden function inside an aggregate filter', 'select count(*) filter (where pg_sleep(1) is null) from edge_logs', FUNCTION],
  ['collation for (pg_collation_for)', "select collation for ('a')", FUNCTION],
  ['system_user', 'select system_user', FUNCTION],
  ['function-style cast to a type', "select regclass('pg_class')", FUNCTION],
  // casts that look up catalogs or reveal schema
  ['regclass cast', "select 'pg_class'::regclass", /type regclass is not allowed/],
  ['qualified regclass cast', "select 'pg_authid'::pg_catalog.regclass::oid", /type pg_catalog.regclass/],
  ['regproc via CAST', "select cast('now' as regproc)", /type regproc/],
  ['typed literal regnamespace', "select regnamespace 'pg_catalog'", /type regnamespace/],
  ['row type of a catalog', 'select null::pg_authid', /type pg_authid/],
  ['row type of a CTE name', "select * from jsonb_populate_record(null::edge_logs, '{}')", /not allowed/],
  // session information
  ['current_user', 'select current_user', /CURRENT_USER is not allowed/],
  ['session_user', 'select session_user', /SESSION_USER is not allowed/],
  ['current_schema', 'select current_schema', /CURRENT_SCHEMA is not allowed/],
  // parameters
  ['$1 parameter', 'select id from edge_logs where id = $1', /parameters \(\$n\)/],
  ['@name parameter', 'select * from edge_logs where id = @project', /parameters \(@project\)/],
  ['qualified operator', 'select 1 operator(public.+) 1', /operator public\.\+/],
  ['qualified operator in ORDER BY … USING', 'select id from edge_logs order by id using operator(public.<)', /operator public\.</],
  ['qualified operator before ANY (subquery)', "select 'a' operator(public.=) any (select id from edge_logs)", /operator public\.=/],
  // size and shape
  ['empty', '', /empty/],
  ['blank', '   \n\t', /empty/],
  ['NUL character hiding a second statement', 'select 1\u0000; drop table edge_logs', /NUL character at character 9/],
  ['only a comment', '-- nothing here', /no statement/],
  ['only a semicolon', ';', ONE_STATEMENT],
  ['over 64 KiB', `select '${'x'.repeat(MAX_SQL_BYTES)}'`, /too long/],
  ['10,000 nested parentheses', `select ${'('.repeat(10_000)}1${')'.repeat(10_000)}`, /nested too deeply/],
  ['30,000-term operator chain', `select 1${'+1'.repeat(30_000)}`, /too complex/],
  ['2,000 NOTs (deep tree, few tokens)', `select ${'not '.repeat(2_000)}true`, /nested too deeply/],
];

export type Allowed = [label: string, sql: string];

export const ALLOWED: Allowed[] = [
  ['group by date_trunc', "select date_trunc('hour', timestamp) as hour, count(*) as n from edge_logs group by 1 order by 1"],
  ['count filter', "select count(*) filter (where metadata->>'level' = 'error') as errors, count(*) as total from postgres_logs"],
  ['window functions', 'select id, row_number() over (order by timestamp desc) as rn, lag(timestamp) over w as prev from edge_logs window w as (order by timestamp)'],
  ['own WITH reading stored CTEs', "with recent as (select * from edge_logs where timestamp > now() - interval '10 years') select count(*) from recent"],
  ['join between two stored CTEs', 'select e.id as edge_id, p.id as pg_id from edge_logs e join postgres_logs p on p.timestamp <= e.timestamp'],
  ['jsonb operators', "select metadata->'request'->>'method' as method, metadata #>> '{response,status_code}' as status, metadata @> '{\"level\":\"info\"}' as info from edge_logs"],
  ['regexp_match', "select regexp_match(event_message, '(\\d+)') as m from edge_logs"],
  ['union between two CTEs', 'select id from edge_logs union all select id from auth_logs'],
  ['percentile_cont within group', 'select percentile_cont(0.5) within group (order by length(event_message)) as median from edge_logs'],
  ['table on a stored CTE', 'table edge_logs'],
  ['comment containing a semicolon', 'select 1 as one /* ; drop table x */'],
  ['dollar-quoted string containing a semicolon', 'select $$; drop table edge_logs$$ as s'],
  ['case expression', "select case when event_message like '%error%' then 'error' else 'ok' end as kind from edge_logs"],
  ['limit and offset', 'select * from edge_logs order by timestamp limit 10 offset 1'],
  ['lateral jsonb_array_elements over a CTE column', "select e.id, x.value from edge_logs e, lateral jsonb_array_elements(coalesce(e.metadata->'items', '[]'::jsonb)) as x(value)"],
  ['SQL-standard syntax (extract, at time zone, substring, trim)', "select extract(epoch from timestamp)::bigint as epoch, timestamp at time zone 'utc' as utc, substring(event_message from 1 for 3) as s, trim(both ' ' from event_message) as t from edge_logs"],
  ['recursive CTE', 'with recursive n(i) as (select 1 union all select i + 1 from n where i < 5) select i from n'],
  ['generate_series in FROM', 'select * from generate_series(1, 3) as g(i)'],
  ['exists and in over CTEs', 'select id from edge_logs where exists (select 1 from auth_logs a where a.id = edge_logs.id) or id in (select id from postgres_logs)'],
  ['trailing semicolon and comment', 'select count(*) as n from edge_logs; -- done'],
  ['trailing line comment without newline', 'select count(*) as n from edge_logs -- no newline'],
  ['own CTE shadowing a stored one reads the stored one', "with edge_logs as (select * from edge_logs where id <> 'nope') select count(*) as n from edge_logs"],
  ['VALUES inside FROM', 'select * from (values (1), (2)) as v(x)'],
  ['non-ASCII text with a trailing semicolon', "select 'héllo wörld ✓' as s, id from edge_logs where event_message <> 'ü';"],
  ['casts to allowed types', "select id::text, '1'::int, 1::bigint, '2026-01-01'::timestamptz, '{}'::jsonb, 1.5::numeric(10,2), 'x'::varchar(3), '{1}'::int[] from edge_logs"],
  ['current_date and localtimestamp', 'select current_date as d, current_timestamp as t, localtimestamp as l'],
  ['pg_catalog-qualified allowed function', "select pg_catalog.lower('X') as l"],
  ['grouping sets and distinct on', 'select distinct on (k) k, n from (select event_message as k, count(*) as n from edge_logs group by grouping sets ((event_message), ())) s order by k, n'],
  ['columns with duplicate names', 'select a.id, b.id from edge_logs a cross join auth_logs b'],
  ['@ used as a number operator, not a parameter', 'select @ -5 as five'],
  ['ORDER BY … USING and = ANY (subquery)', "select id from edge_logs where id = any (select id from auth_logs) order by id using operator(pg_catalog.>)"],
];

