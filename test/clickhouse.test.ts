/**
 * The embedded ClickHouse (chdb) against the embedded PostgreSQL (PGlite) on the same rows: both
 * stored queries, every parameter combination, byte for byte, in both response shapes; ClickHouse's
 * own failure modes (RE2, timeouts, a caller who leaves) as the service's errors. The behavioural
 * suite runs on chdb in test/chdb.test.ts (and on a server in test/clickhouse-server.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ClickHouseClient } from '@clickhouse/client';
import { clickhouseClient, openChdb, openClickHouse } from '../src/store/clickhouse/open-clickhouse.ts';
import { queryUserProblems } from '../src/store/clickhouse/query-user.ts';
import { readConfig } from '../src/process/config.ts';
import { createLogger } from '../src/process/logger.ts';
import { createServer } from 'node:net';
import { insertRows as insertClickHouse } from '../src/store/clickhouse/clickhouse-admin.ts';
import { DEMO_PROJECTS, generateDemoLogs, insertDemoLogs, type DemoLogs } from '../src/store/demo/demo-data.ts';
import { LOG_TABLES } from '../src/store/schema.ts';
import type { ResponseShape } from '../src/store/values/response-shape.ts';
import type { Service } from '../src/service.ts';
import { chdbMissing, pgliteFactory, SCHEMA, TEST_STATEMENT_TIMEOUT_MS, type TestStore } from './support/engines.ts';
import { call, startTestService } from './support/service.ts';
import { containerLines, vectorBatches } from './fixtures/vector-replay.ts';
import { INGEST_TOKEN, post } from './behaviour/ingest.ts';
import { queriesWithSlow, slowPath } from './support/slow-queries.ts';
import { runLoad } from '../scripts/lib/load-driver.ts';
import { readFileSync } from 'node:fs';
import { ALLOWED } from './support/sandbox-cases.ts';
import { TRANSLATED } from './support/bigquery-cases.ts';
import { OTHER_REAL_QUERIES } from './fixtures/other-real-queries.ts';
import { mutatedQueries } from './support/studio-mutations.ts';
import { agreement, DIFFERS_ON_CLICKHOUSE, ESCAPES, HOSTILE_TO_CLICKHOUSE, ORDERED_BY_MEASURE, REFUSED_ON_CLICKHOUSE } from './support/clickhouse-caller-cases.ts';
import { tempDir } from './support/temp-dir.ts';

const STUDIO_QUERIES = (JSON.parse(readFileSync(new URL('./fixtures/studio-queries.json', import.meta.url), 'utf8')) as { queries: { name: string; endpoint: string; params: Record<string, string>; sql?: string | null }[] }).queries;

const DATA_DIR = tempDir('chdb-test-');
/** Declared skip: without chdb (installed on demand) this file reports itself skipped, never green. */
const noChdb = await chdbMissing();
/** chdb's connection module, for a session of this test's own; a variable, so the type check does not need chdb. */
const CHDB_CONNECTION: string = 'chdb/connection';

/** Rows both stores hold: demo rows plus the cases where engines tend to differ. */
function fixture(): DemoLogs {
  const logs = generateDemoLogs({ rows: 3000, seed: 29, now: new Date(Date.now() - 30 * 60_000) });
  const ms = new Date(Date.now() - 10 * 60_000).toISOString().slice(0, 23);
  const tie = `${ms}123Z`;
  const add = (table: keyof DemoLogs, id: string, timestamp: string, project: string | null, metadata: string, message = 'm') => {
    const t = logs[table];
    t.id.push(id);
    t.timestamp.push(timestamp);
    t.project.push(project);
    t.metadata.push(metadata);
    t.event_message.push(message);
  };
  // Equal timestamps: ties come in id order on both engines.
  for (const id of ['tie-b', 'tie-a', 'tie-c']) add('edge_logs', id, tie, 'default', `{"request":{"url":"https://default.example.co/rest/v1/t?id=${id}","path":"/rest/v1/t"}}`);
  // JSON that text stores and jsonb print differently unless normalised: key order, spacing, nulls,
  // empty objects, escapes, big and exponent numbers, a repeated key.
  add('edge_logs', 'json-1', `${ms}124Z`, 'default', '{"z":1,"a":null,"e":{},"s":"\\u00e9\\n\\"","big":123456789012345678901234567890,"x":1e2,"y":1.50,"a":[]}');
  // Sources whose project is in metadata: a row with none is no project's.
  add('function_logs', 'fn-none', tie, null, '{"level":"info"}');
  add('function_logs', 'fn-num', tie, null, '{"project_ref":12345}');
  return logs;
}

interface Pair {
  pg: Service;
  ch: Service;
}

describe('the embedded ClickHouse answers byte for byte as the embedded PostgreSQL', { skip: noChdb ?? false }, () => {
  const stores: TestStore[] = [];
  const services: Service[] = [];
  let chAdmin: ClickHouseClient;
  const pairs = new Map<ResponseShape, Pair>();

  before(async () => {
    const logs = fixture();
    for (const shape of ['standard', 'logflare'] as const) {
      const pg = await pgliteFactory.open({ responseShape: shape });
      await insertDemoLogs(pg.admin, SCHEMA, logs);
      const ch = await openChdb({ path: DATA_DIR, removeOnClose: false, schema: SCHEMA, retentionDays: null, seedRows: 0, statementTimeoutMs: TEST_STATEMENT_TIMEOUT_MS, maxResultBytes: 64 * 1024 * 1024, responseShape: shape });
      if (shape === 'standard') {
        chAdmin = ch.admin;
        for (const table of LOG_TABLES) await insertClickHouse(ch.admin, SCHEMA, table, logs[table]);
      }
      const chStore: TestStore = { engine: ch.engine, admin: () => Promise.reject(new Error('ClickHouse fixtures go through insertRows')), ...(ch.writer ? { writer: ch.writer } : {}), teardown: () => ch.engine.close() };
      stores.push(pg, chStore);
      const env: Record<string, string> = shape === 'logflare' ? { COMPAT: 'logflare' } : {};
      const pair = { pg: await startTestService(pg, env), ch: await startTestService(chStore, env) };
      services.push(pair.pg, pair.ch);
      pairs.set(shape, pair);
    }
  });
  after(async () => {
    for (const s of services) await s.close();
    for (const s of stores) await s.teardown();
  });

  const both = async (shape: ResponseShape, path: string): Promise<[string, string, number, number]> => {
    const { pg, ch } = pairs.get(shape)!;
    const [a, b] = await Promise.all([call(pg.url, path), call(ch.url, path)]);
    return [await a.text(), await b.text(), a.status, b.status];
  };

  const range = (hoursAgo: number) => encodeURIComponent(new Date(Date.now() - hoursAgo * 3_600_000).toISOString());
  const logsCalls: string[] = [];
  for (const project of [...DEMO_PROJECTS, 'nobody', '12345']) {
    for (const window of ['', `&iso_timestamp_start=${range(30)}`, `&iso_timestamp_end=${range(20)}`, `&iso_timestamp_start=${range(100)}&iso_timestamp_end=${range(2)}`, '&iso_timestamp_start=&iso_timestamp_end=']) {
      logsCalls.push(`/api/endpoints/query/logs.all?project=${project}${window}`);
    }
  }
  const usageCalls: string[] = [];
  for (const interval of ['hourly', 'daily', 'minutely']) {
    for (const pattern of ['default', '.', 'acme', '^https://acme-prod\\.', 'nothing-matches', 'id=tie-[ab]']) {
      usageCalls.push(`/api/endpoints/query/usage.api-counts?interval=${interval}&project=${encodeURIComponent(pattern)}`);
    }
  }
  for (const interval of ['1hr', '1day', '7day']) usageCalls.push(`/api/endpoints/query/usage.api-counts?interval=${interval}&project=default`);

  for (const shape of ['standard', 'logflare'] as const) {
    test(`${shape} shape: logs.all, ${logsCalls.length} parameter combinations: the same bytes`, async () => {
      let rows = 0;
      for (const path of logsCalls) {
        const [pg, ch, ps, cs] = await both(shape, path);
        assert.equal(cs, ps, path);
        assert.equal(ch, pg, path);
        rows += (JSON.parse(pg) as { result: unknown[] }).result.length;
      }
      assert.ok(rows > 500, `the calls returned rows (${rows})`);
    });
    test(`${shape} shape: usage.api-counts, ${usageCalls.filter((c) => shape === 'logflare' || !/1hr|1day|7day/.test(c)).length} parameter combinations: the same bytes`, async () => {
      let buckets = 0;
      for (const path of usageCalls) {
        if (shape === 'standard' && /1hr|1day|7day/.test(path)) continue;
        const [pg, ch, ps, cs] = await both(shape, path);
        assert.equal(cs, ps, path);
        assert.equal(ch, pg, path);
        buckets += (JSON.parse(pg) as { result: unknown[] }).result.length;
      }
      assert.ok(buckets > 50, `the calls returned buckets (${buckets})`);
    });
  }

  test('ties of equal timestamps come in id order, newest first; JSON text as jsonb prints it', async () => {
    const [pg, ch] = await both('standard', '/api/endpoints/query/logs.all?project=default');
    assert.equal(ch, pg);
    const ids = (JSON.parse(ch) as { result: { id: string }[] }).result.map((r) => r.id).filter((id) => id.startsWith('tie-') || id === 'json-1');
    assert.deepEqual(ids, ['json-1', 'tie-c', 'tie-b', 'tie-a']);
    assert.ok(ch.includes('"metadata":{"a": [], "e": {}, "s": "é\\n\\"", "x": 100, "y": 1.50, "z": 1, "big": 123456789012345678901234567890}'), ch.slice(0, 300));
  });

  /** Caller sql cases run on both engines: each answers alike, or is declared refused or different. */
  const callerSqlTable = (title: string, shape: ResponseShape, cases: readonly (readonly [label: string, path: string])[], minimum: number) =>
    test(title, async (t) => {
      const outcomes = new Map<string, number>();
      const failures: string[] = [];
      for (const [label, path] of cases) {
        const { pg, ch } = pairs.get(shape)!;
        const [a, b] = await Promise.all([call(pg.url, path), call(ch.url, path)]);
        const [pgAnswer, chAnswer] = [{ status: a.status, text: await a.text() }, { status: b.status, text: await b.text() }];
        assert.ok(chAnswer.status < 500, `${label}: ClickHouse answered ${chAnswer.status}: ${chAnswer.text.slice(0, 300)}`);
        const refused = REFUSED_ON_CLICKHOUSE[label];
        let outcome: string;
        if (refused !== undefined) {
          assert.equal(chAnswer.status, 400, `${label} is declared refused on ClickHouse: ${chAnswer.text.slice(0, 300)}`);
          assert.match(chAnswer.text, refused, label);
          assert.match(chAnswer.text, /"invalid_sql"/, label);
          outcome = 'refused (declared)';
        } else if (DIFFERS_ON_CLICKHOUSE[label] !== undefined) {
          outcome = 'differs (declared)';
        } else {
          outcome = agreement(pgAnswer, chAnswer, 1000, ORDERED_BY_MEASURE[label]);
          if (!['same', 'same rows', 'same count', 'same error', 'both refuse', 'same measure'].includes(outcome)) failures.push(`${label}: ${outcome}`);
        }
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
      t.diagnostic(JSON.stringify(Object.fromEntries(outcomes)));
      assert.deepEqual(failures, []);
      assert.ok((outcomes.get('same') ?? 0) >= minimum, `at least ${minimum} byte-identical answers: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    });

  const logsSql = (sql: string) => `/api/endpoints/query/logs.all?project=default&sql=${encodeURIComponent(sql)}`;
  /** Each statement answers 200 on both engines, with the same bytes. */
  const sameAnswers = async (sqls: readonly string[]) => {
    for (const sql of sqls) {
      const [pg, ch, ps, cs] = await both('standard', logsSql(sql));
      assert.equal(ps, 200, `${sql}: ${pg.slice(0, 300)}`);
      assert.equal(cs, 200, `${sql}: ${ch.slice(0, 300)}`);
      assert.equal(ch, pg, sql);
    }
  };
  callerSqlTable('caller sql, the sandbox table (PostgreSQL dialect): the same answer on ClickHouse, or refused there by name as declared', 'standard', ALLOWED.map(([label, sql]) => [label, logsSql(sql)] as const), 15);
  callerSqlTable('caller sql, the BigQuery translation table (COMPAT=logflare): the same answer on ClickHouse, or refused there by name as declared', 'logflare', TRANSLATED.map(([bq]) => [bq, logsSql(bq)] as const), 100);
  const iso = (ms: number) => new Date(Date.now() - ms).toISOString();
  const studioCalls = STUDIO_QUERIES.filter((c) => typeof c.sql === "string").map((c) => {
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(c.params)) params[k] = v.replace('{{now-1h}}', iso(3_600_000));
    params.sql = c.sql!.replace('{{now-7h}}', iso(7 * 3_600_000)).replace(/\{\{(\w+) row id\}\}/, 'tie-a');
    return [c.name, `/api/endpoints/query/${c.endpoint}?${new URLSearchParams(params)}`] as const;
  });
  callerSqlTable(`Studio's ${studioCalls.length} sql calls and ${OTHER_REAL_QUERIES.length} other real queries (Logflare shape): the same answer on ClickHouse`, 'logflare', [...studioCalls, ...OTHER_REAL_QUERIES.map((q) => [q.name, logsSql(q.sql)] as const)], 20);

  test('300 mutated Studio queries (cut, doubled, spliced): never a 5xx on ClickHouse, and every 200 is PostgreSQL\'s answer', async (t) => {
    const outcomes = new Map<string, number>();
    for (const sql of mutatedQueries(studioCalls.length > 0 ? STUDIO_QUERIES.flatMap((c) => (c.sql ? [c.sql] : [])) : [], 300)) {
      const path = logsSql(sql);
      const { pg, ch } = pairs.get('logflare')!;
      const [a, b] = await Promise.all([call(pg.url, path), call(ch.url, path)]);
      const [pgAnswer, chAnswer] = [{ status: a.status, text: await a.text() }, { status: b.status, text: await b.text() }];
      assert.ok(chAnswer.status === 200 || chAnswer.status === 400, `${chAnswer.status} for ${JSON.stringify(sql)}: ${chAnswer.text.slice(0, 300)}`);
      let outcome = chAnswer.status === 200 ? agreement(pgAnswer, chAnswer, 1000) : pgAnswer.status === 200 ? 'refused on ClickHouse only' : 'refused on both';
      if (chAnswer.status === 200 && !outcome.startsWith('same')) assert.fail(`${JSON.stringify(sql)}: ${outcome}`);
      if (outcome === 'refused on ClickHouse only') assert.match(chAnswer.text, /not supported on the ClickHouse engine|query_error/, sql);
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    t.diagnostic(JSON.stringify(Object.fromEntries(outcomes)));
    // Most mutations break the text (both refuse); the ones that parse must answer alike.
    assert.ok((outcomes.get('same') ?? 0) + (outcomes.get('same rows') ?? 0) >= 5, JSON.stringify(Object.fromEntries(outcomes)));
  });

  test('caller sql on ClickHouse: ordered answers in the same order, JSON printed as jsonb prints it, the columns typed as PostgreSQL types them', async () => {
    await sameAnswers([
      'select id, timestamp, metadata from edge_logs order by timestamp desc, id limit 20',
      "select id, metadata -> 'request' as request, metadata #> '{request,headers}' as headers from edge_logs order by timestamp, id",
      "select count(*) as n, count(*) / 7 as q, count(*)::numeric / 7 as r, avg(length(event_message)) as a from edge_logs",
      "select date_trunc('hour', timestamp) as h, count(*) as n from edge_logs group by 1 order by 1 desc nulls last",
      "select id, (metadata -> 'request' ->> 'path') || '?' as p, metadata -> 'request' ->> 'url' ~ 'id=tie-[ab]' as ab from edge_logs where id like 't%' order by id",
    ]);
  });

  test('caller sql on ClickHouse: the functions, windows and joins printed beyond the tables above answer as on PostgreSQL', async () => {
    await sameAnswers([
      "select initcap('hello wORLD-x') as i, concat_ws('-', 'a', null, 'b', 2) as c, regexp_count('aXbXc', 'X') as r, mod(17, 5) as m, div(17, 5) as d, num_nulls(1, null, null) as nn, num_nonnulls(1, null) as n1",
      "select id, first_value(id) over (order by timestamp, id) as f, last_value(id) over (order by timestamp, id rows between unbounded preceding and unbounded following) as l, ntile(3) over (order by timestamp, id) as t, percent_rank() over (order by timestamp, id) as pr, cume_dist() over (order by timestamp, id) as cd from edge_logs where id like 't%' order by id",
      "select sum(length(id)) over (order by timestamp, id rows between 1 preceding and current row) as s from edge_logs where id like 't%' order by timestamp, id",
      "select stddev(length(id)) as sd, var_samp(length(id)) as v, stddev_pop(length(id)) as sp from edge_logs where id = 'tie-a'",
      "select percentile_disc(0.5) within group (order by length(event_message)) as p, percentile_cont(0.9) within group (order by length(event_message)) as c from edge_logs",
      "select e.id, count(*) as n from edge_logs e join edge_logs f using (id) group by e.id order by e.id limit 5",
      "select jsonb_array_length('[1, [2], {}]'::jsonb) as n, jsonb_array_length(metadata -> 'missing') as z, metadata ->> 'missing' as m from edge_logs where id = 'tie-a'",
      "select to_char(timestamp, 'YYYY-MM-DD HH24:MI:SS.US \"at\" HH12 AM, Mon TZH:TZM (100%)') as f, to_char(current_date, 'Mon DD') as d from edge_logs where id like 'tie%' order by id",
      "select string_agg(id, '|' order by timestamp desc, id) as a, string_agg(event_message, ', ' order by length(id), id) as b, string_agg(null::text, ',') as n from edge_logs where id like 't%' or id like 'j%'",
      "select greatest(1, null, 3) as g, least(2.5, null) as l, greatest(null::int, null) as n, greatest('b', 'a') as t, id collate \"C\" as c from edge_logs where id like 'tie%' order by id collate \"C\" desc",
      "select jsonb_build_array(id, 1, true, null, metadata -> 'request' -> 'path', jsonb_build_object('k', 'v')) as a, jsonb_build_array() as e, jsonb_build_object('n', null::text, 'i', length(id)) as o from edge_logs where id like 'tie%' order by id",
      "select to_timestamp(1700000000.5) as t, date_trunc('day', timestamp) as d, extract(epoch from timestamp) as e from edge_logs where id = 'tie-a'",
      "select id from edge_logs where timestamp > now() - interval '1 day' and id in (select id from edge_logs where id like 'tie%') order by id desc",
      "select count(*) filter (where metadata -> 'request' ->> 'path' like '/rest%') as rest, count(distinct metadata -> 'request' ->> 'path') as paths from edge_logs",
      "select id, metadata @> '{\"request\": {\"path\": \"/rest/v1/t\"}}' as t from edge_logs where id like 'tie%' order by id",
      // Read from the metadata_kinds map, not the document: the same answer, absent keys NULL.
      "select id, jsonb_typeof(metadata -> 'request') as t, jsonb_typeof(metadata -> 'nope') as n, jsonb_typeof(metadata -> 'request') = 'object' as o, jsonb_typeof(metadata -> 'nope') <> 'string' as x from edge_logs where id like 'tie%' or id like 'fn%' order by id",
      "select id, jsonb_typeof(metadata -> 'level') as l, jsonb_typeof(metadata -> 'project_ref') = 'number' as n from function_logs order by id limit 20",
      // Were refused (issue 43): `^` on integers (PostgreSQL's float8 power), `#` (XOR), string_agg
      // ordered by text descending, NULL keys where PostgreSQL puts them (last ascending, first descending).
      "select 2 ^ 10 as p, 2 ^ -2 as n, (-2) ^ 3 as c, length(id) ^ 2 as l, 5 # 3 as x, length(id) # 7 as y, -6 # 1 as z, power(2, 3) as r from edge_logs where id = 'tie-a'",
      // array_agg, ordered, NULLs kept, indexed and counted (an array is not a result column there); of no rows NULL.
      "select (array_agg(id order by timestamp desc, id))[1] as newest, (array_agg(id order by id desc))[2] as second, cardinality(array_agg(metadata ->> 'nope')) as with_nulls, (array_agg(metadata ->> 'nope' order by id))[1] as first_null, (array_agg(length(id) order by id))[3] as third, (array_agg(id))[99] as past from edge_logs where id like 't%'",
      "select cardinality(array_agg(id)) as n, (array_agg(id order by id))[1] as f from edge_logs where id = 'none'",
      "select string_agg(id, ',' order by id desc) as d, string_agg(id, ',' order by id) as a, string_agg(id, ';' order by metadata ->> 'nope' desc, id desc) as n, string_agg(id, ';' order by metadata ->> 'nope', length(id) desc, id) as m, string_agg(id, ';' order by case when id = 'tie-b' then null else id end desc) as f from edge_logs where id like 't%' or id like 'j%'",
    ]);
  });

  test('every stored CTE a caller can read has the same columns and rows on both engines (the dialect files agree)', async () => {
    for (const name of ['logs.all', 'usage.api-counts']) {
      const q = pairs.get('standard')!.ch.registry.lookup(name)!;
      const params = name === 'logs.all' ? 'project=default' : `interval=daily&project=${encodeURIComponent('default')}`;
      for (const cte of q.sandbox!.cteNames) {
        const sql = `select * from ${cte} order by 1, 2 limit 50`;
        const [pg, ch, ps, cs] = await both('standard', `/api/endpoints/query/${name}?${params}&sql=${encodeURIComponent(sql)}`);
        assert.equal(ps, 200, `${name} ${cte}: ${pg.slice(0, 300)}`);
        assert.equal(cs, 200, `${name} ${cte}: ${ch.slice(0, 300)}`);
        assert.equal(ch, pg, `${name} ${cte}`);
      }
    }
  });

  test('caller sql on ClickHouse: PostgreSQL\'s errors, not ClickHouse\'s answers (division by zero, a bad cast, RE2, a scalar subquery of two rows)', async () => {
    for (const [sql, message] of [
      ['select count(*) / 0 as x from edge_logs', /division by zero|ILLEGAL_DIVISION|Division by zero/i],
      ['select 1.5 / 0 as x from edge_logs', /division by zero/i],
      ["select 'x'::int as x", /as an integer|invalid input/i],
      ["select event_message::bool as b from edge_logs", /boolean/i],
      ["select id from edge_logs where event_message ~ '(a)\\1'", /regular expression|regexp|RE2|compile/i],
      ['select (select id from edge_logs) as x', /more than one row/i],
      ['select 3000000000::int as x', /integer out of range/],
      ["select '70000'::smallint as x", /out of range for type smallint/],
      ['select 0 ^ -1 as x', /zero raised to a negative power is undefined/],
      ['select (-8) ^ (length(id) / 2.0) as x from edge_logs where id = \'tie-a\'', /not supported on the ClickHouse engine/],
      ['select power(2, 0.5) as x', /power of numeric is not supported on the ClickHouse engine/],
    ] as const) {
      const res = await call(pairs.get('standard')!.ch.url, logsSql(sql));
      const text = await res.text();
      assert.equal(res.status, 400, `${sql}: ${text}`);
      assert.match(text, message, sql);
    }
  });

  test('caller sql aimed at ClickHouse itself (table functions, system tables, INTO OUTFILE, SETTINGS, FORMAT, several statements, escapes, introspection): refused before anything reaches ClickHouse', async () => {
    const ch = stores[1]!;
    let sent = 0;
    const counting: TestStore = { ...ch, engine: { ...ch.engine, query: (...args: Parameters<typeof ch.engine.query>) => { sent++; return ch.engine.query(...args); } } };
    const svc = await startTestService(counting);
    services.push(svc);
    for (const [label, sql, message] of HOSTILE_TO_CLICKHOUSE) {
      const before = sent;
      const res = await call(svc.url, logsSql(sql));
      const text = await res.text();
      assert.equal(res.status, 400, `${label}: ${text}`);
      assert.match(text, /"invalid_sql"/, label);
      assert.match(text, message, `${label}: ${text}`);
      assert.equal(sent, before, `${label}: nothing is sent to ClickHouse`);
    }
  });

  test('literals and names ClickHouse reads differently (backslashes, quotes, backticks, LIKE escapes): the same answer as PostgreSQL', async () => {
    await sameAnswers(ESCAPES);
  });

  test('with the sandbox bypassed, the caller session itself refuses table functions, writes and settings (readonly = 1)', async () => {
    const engine = stores[1]!.engine;
    for (const sql of [
      "SELECT * FROM file('/etc/passwd', 'LineAsString')",
      "SELECT * FROM url('http://127.0.0.1:9/x', 'CSV', 'a String')",
      `INSERT INTO ${SCHEMA}.edge_logs (id, timestamp, event_message, metadata) VALUES ('evil', now64(6), 'm', '{}')`,
      `CREATE TABLE ${SCHEMA}.evil (x UInt8) ENGINE = Memory`,
      'SELECT 1 SETTINGS readonly = 0',
    ]) {
      await assert.rejects(engine.query(sql, [], { stored: false }), (err: { code?: string; message?: string }) => {
        assert.equal(err.code, '25006', `${sql}: ${err.message}`);
        return true;
      }, sql);
    }
    // The service's own statements still run on the engine, and the caller session still reads.
    assert.deepEqual(await engine.query('SELECT 1 AS one', [], { stored: false }), [{ one: 1 }]);
    assert.deepEqual(await engine.query(`SELECT count() AS n FROM ${SCHEMA}.edge_logs WHERE id = 'evil'`, []), [{ n: 0 }]);
  });

  test('the start-up check of a server\'s query user: a user who can write or read system.users is named, a read-only one passes', async () => {
    const problems = await queryUserProblems(chAdmin, SCHEMA);
    assert.ok(problems.includes(`it can insert into ${SCHEMA}.edge_logs`), JSON.stringify(problems));
    assert.ok(problems.includes(`it can create tables in ${SCHEMA}`), JSON.stringify(problems));
    const left = (await chAdmin.query({ query: `SELECT count() AS n FROM system.tables WHERE database = '${SCHEMA}' AND name LIKE 'sqe_probe_%'`, format: 'JSON' }).then((r) => r.json<{ n: string | number }>())).data;
    assert.equal(Number(left[0]!.n), 0, 'the probe table is gone');
    const { createChdbConnection } = (await import(CHDB_CONNECTION)) as { createChdbConnection: (o: { path: string }) => unknown };
    const readOnly = clickhouseClient({ connection: createChdbConnection({ path: DATA_DIR }) } as never);
    await readOnly.query({ query: 'SELECT 1', format: 'JSON', clickhouse_settings: { readonly: '1' } }).then((r) => r.text());
    assert.deepEqual(await queryUserProblems(readOnly, SCHEMA), []);
    await readOnly.close();
  });

  // After the caller sql tables, which compare both stores' rows: ingest adds rows with ids of each engine's making.
  test('Vector\'s batches through the ingest endpoint: the same rows on both engines (ids aside: ingest makes them up), and a resent batch is stored once on ClickHouse', async () => {
    const at = new Date(Date.now() - 5 * 60_000);
    const env = { INGEST_TOKENS: INGEST_TOKEN, COMPAT: 'logflare' };
    const pg = await startTestService(stores[0]!, env);
    const ch = await startTestService(stores[1]!, env);
    services.push(pg, ch);
    const batches = vectorBatches(containerLines(at));
    for (const { route, events } of batches) {
      for (const base of [pg.url, ch.url]) {
        const res = await post(base, route.sourceName, JSON.stringify(events));
        assert.equal(res.status, 200, `${route.sourceName}: ${await res.clone().text()}`);
      }
    }
    const count = async (table: string) => Number(((await (await chAdmin.query({ query: `SELECT count() AS n FROM ${SCHEMA}.${table}`, format: 'JSON' })).json()) as { data: { n: string }[] }).data[0]!.n);
    const edgeBefore = await count('edge_logs');
    // Vector retries a batch it got no answer for: the same body again.
    const edge = batches.find((b) => b.route.sourceName.includes('cloudflare') || b.events.length === 2)!;
    assert.equal((await post(ch.url, edge.route.sourceName, JSON.stringify(edge.events))).status, 200);
    assert.equal(await count('edge_logs'), edgeBefore, 'the resent batch was not stored again');
    // What ClickHouse's TabSeparated input escapes (clickhouse-admin.ts logLine): tabs, line breaks,
    // backslashes and `\N` (its NULL) in every column, stored as they were sent.
    const awkward = 'line one\n\tline two \\ \\N \r end';
    for (const project of ['default', '\\N']) {
      const events = [{ id: `tsv-${project}`, project, event_message: awkward, timestamp: new Date(at.getTime() + 1).toISOString(), metadata: { note: awkward, [awkward]: 1, request: { url: `https://x.example.co/a?q=${awkward}`, path: '/rest/v1/x' } } }];
      for (const base of [pg.url, ch.url]) assert.equal((await post(base, edge.route.sourceName, JSON.stringify(events))).status, 200);
    }
    const withoutIds = (text: string) => text.replace(/"id":"[0-9a-f-]{36}"/g, '"id":"…"');
    for (const project of ['default', '\\N']) {
      const path = `/api/endpoints/query/logs.all?project=${encodeURIComponent(project)}&iso_timestamp_start=${encodeURIComponent(new Date(at.getTime() - 1000).toISOString())}`;
      const [a, b] = await Promise.all([call(pg.url, path), call(ch.url, path)]);
      const [pgText, chText] = [await a.text(), await b.text()];
      assert.ok((JSON.parse(pgText) as { result: unknown[] }).result.length >= (project === 'default' ? 3 : 1), pgText.slice(0, 200));
      assert.ok(pgText.includes(JSON.stringify(awkward)), pgText.slice(0, 300));
      assert.equal(withoutIds(chText), withoutIds(pgText));
    }
  });

  test('a pattern RE2 cannot compile is 400 invalid_parameter naming the parameter, as PostgreSQL\'s is', async () => {
    const res = await call(pairs.get('standard')!.ch.url, `/api/endpoints/query/usage.api-counts?interval=daily&project=${encodeURIComponent('(a)\\1')}`);
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'invalid_parameter');
    assert.match(body.error.message, /Parameter "project" is not a valid regular expression/);
  });

  test('chdb runs one statement at a time: a token flooding it with slow statements does not hold up another token (fair queue)', async () => {
    const OTHER = 'other-token-chdb-0123456789';
    const env = { ACCESS_TOKENS: `test-token-0123456789abcdef,${OTHER}`, QUERIES_DIR: queriesWithSlow() };
    const svc = await startTestService(stores[1]!, env);
    services.push(svc);
    let flooding = true;
    // Eight clients of one token, each call 200 ms inside the engine: 1.6 s of work queued at any time.
    const flood = runLoad({ url: svc.url, token: 'test-token-0123456789abcdef', concurrency: 8, until: () => !flooding, next: (i) => ({ label: 'slow', method: 'GET', path: slowPath(0.2, i) }) });
    await new Promise((r) => setTimeout(r, 300));
    const other = await runLoad({ url: svc.url, token: OTHER, concurrency: 1, requests: 10, next: () => ({ label: 'logs', method: 'GET', path: '/api/endpoints/query/logs.all?project=default' }) });
    flooding = false;
    const slow = await flood;
    console.log(`chdb fair queue: flooding token (c=8, 200 ms statements) p50 ${slow.p50Ms.toFixed(0)} ms; other token (logs.all, c=1) p50 ${other.p50Ms.toFixed(0)} ms, p99 ${other.p99Ms.toFixed(0)} ms`);
    assert.deepEqual(other.byStatus, { 200: 10 });
    assert.deepEqual(Object.keys(slow.byStatus), ['200']);
    // First in line after the statement running now (≤ 200 ms), never behind the flood's queue.
    assert.ok(other.p99Ms < 800, `other token p99 ${other.p99Ms.toFixed(0)} ms (flood p50 ${slow.p50Ms.toFixed(0)} ms)`);
    assert.ok(slow.p50Ms > 600, `the flood did queue (p50 ${slow.p50Ms.toFixed(0)} ms)`);
  });

  test('past MAX_RESULT_BYTES: result_too_large, as on PostgreSQL, and the next statement answers cleanly', async () => {
    const small = await openChdb({ path: DATA_DIR, removeOnClose: false, schema: SCHEMA, retentionDays: null, seedRows: 0, statementTimeoutMs: TEST_STATEMENT_TIMEOUT_MS, maxResultBytes: 4096, responseShape: 'standard' });
    try {
      await assert.rejects(small.engine.query("SELECT repeat('x', 100) AS s FROM numbers(1000)", []), (err: { code?: string }) => err.code === 'RESULT_TOO_LARGE');
      assert.deepEqual(await small.engine.query('SELECT 1 AS one', []), [{ one: 1 }]);
    } finally {
      await small.engine.close();
    }
  });

  test('a statement past its timeout stops with 57014 (the service\'s 504), and the engine answers the next one', async () => {
    const engine = stores[1]!.engine;
    await assert.rejects(engine.query('SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) % 7 = 1', [], { timeoutMs: 300 }), (err: { code?: string }) => err.code === '57014');
    const rows = await engine.query('SELECT {p1:String} AS v', ['still here']);
    assert.deepEqual(rows, [{ v: 'still here' }]);
  });

  test('a caller who leaves mid-statement: the statement is killed (gone from system.processes)', async () => {
    const engine = stores[1]!.engine;
    const gone = new AbortController();
    const running = engine.query('SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) % 7 = 1', [], { signal: gone.signal });
    await new Promise((r) => setTimeout(r, 300));
    const processes = async () => ((await (await chAdmin.query({ query: "SELECT count() AS n FROM system.processes WHERE query LIKE '%numbers(100000000000)%' AND query NOT LIKE '%system.processes%'", format: 'JSON' })).json()) as { data: { n: string | number }[] }).data[0]!.n;
    assert.equal(Number(await processes()), 1, 'running before the caller leaves');
    const started = Date.now();
    gone.abort();
    await assert.rejects(running);
    assert.ok(Date.now() - started < 5_000, 'the caller was released promptly');
    let n = 1;
    for (let i = 0; i < 40 && n > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      n = Number(await processes());
    }
    assert.equal(n, 0, 'the statement was stopped');
  });
});

describe('a ClickHouse server that cannot be reached', () => {
  test('calls answer 503 database_unavailable with Retry-After and /ready is 503, promptly; the client writes nothing of its own', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const config = readConfig({ CLICKHOUSE_URL: `http://127.0.0.1:${port}`, ACCESS_TOKENS: 'test-token-0123456789abcdef' });
    const { engine } = await openClickHouse(config, createLogger('silent'));
    const store: TestStore = { engine, admin: () => Promise.reject(new Error('no admin')), teardown: () => engine.close() };
    const written: string[] = [];
    const stderrWrite = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const svc = await startTestService(store);
      try {
        const started = Date.now();
        const res = await call(svc.url, '/api/endpoints/query/logs.all?project=default');
        assert.equal(res.status, 503);
        assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'database_unavailable');
        assert.ok(res.headers.get('retry-after'));
        assert.equal((await fetch(`${svc.url}/ready`)).status, 503);
        assert.ok(Date.now() - started < 5_000);
      } finally {
        await svc.close();
      }
    } finally {
      process.stderr.write = stderrWrite;
      await store.teardown();
    }
    assert.deepEqual(written.filter((w) => w.includes('@clickhouse/client')), []);
  });
});
