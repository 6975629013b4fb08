/**
 * `npm run bench -- --engine clickhouse`: the embedded ClickHouse (chdb) beside PostgreSQL on the
 * same rows, in one run (docs/clickhouse.md, "When to use it"), and for the stored queries the same
 * rows on a ClickHouse server over HTTP (clickhouse-local listening: what HTTP costs a call).
 *
 * Both stores get the demo generator's rows (SEED 1, the same `now`, seed-stages.ts' 200 projects:
 * real URL cardinality), grown stage by stage to each
 * `--rows` figure: generated rows up to 1M, then copies made inside each engine, id `<id>.<k>` and
 * the request URL made distinct per copy (`&copy=k`), as seed-stages.ts does for PostgreSQL. At each
 * stage, per query, PostgreSQL and ClickHouse alternate (`--runs` calls each after a warm-up) through
 * the service's own engines and stored statements (uncached: what a cache miss costs, without HTTP);
 * then Studio's log-page sql on both (studioCalls), then each table's size on disk. Ingest is measured through the service (`dist/main.js` as
 * `npm start` runs it, one child per engine), first: Kong events posted as Vector posts them at that
 * rate (full 10 MB batches, VECTOR_BATCH_BYTES), and in 1,000-event requests at concurrency 4.
 *
 *   npm run bench -- --engine clickhouse [--rows 1000000,10000000] [--runs 9]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { readConfig, QUERIES_DIR } from '../../src/process/config.ts';
import { loadRegistry, type Registry } from '../../src/query/registry.ts';
import { bigQueryDialect } from '../../src/sql/bigquery/bigquery-dialect.ts';
import { bindStatement } from '../../src/query/run-query.ts';
import { POSTGRESQL } from '../../src/sql/dialect.ts';
import { loadSqlParser, type SqlParser } from '../../src/sql/sandbox/sql-parser.ts';
import { demoRowCounts, generateDemoTable } from '../../src/store/demo/demo-data.ts';
import type { Engine } from '../../src/store/engine.ts';
import { createPgEngine } from '../../src/store/postgres/pg-engine.ts';
import { applySchema, LOG_TABLES, type LogTable } from '../../src/store/schema.ts';
import { clickhouseClient, connectClickHouseServer, openChdb } from '../../src/store/clickhouse/open-clickhouse.ts';
import { applyClickHouseSchema, insertRows } from '../../src/store/clickhouse/clickhouse-admin.ts';
import { startClickHouse } from '../lib/clickhouse-server.ts';
import { createDatabase, startPostgres } from '../lib/pg-server.ts';
import { median } from '../lib/load-stats.ts';
import { benchDemo, growDemoData, GENERATED_MAX, orderByTime } from './seed-stages.ts';
import { shortName, studioKit } from './studio.ts';
import { startNodeChild } from './child.ts';
import { npmStartFlags } from '../lib/npm-start.ts';

const SCHEMA = 'logs';
const SEED = 1;
const INGEST_TOKEN = 'bench-ingest-token-0123456789';
const ACCESS_TOKEN = 'bench-access-token-0123456789';

interface Options {
  stages: number[];
  runs: number;
  log: (msg: string) => void;
}

interface Figure {
  measure: string;
  rows: number;
  pg: string;
  ch: string;
  /** The same rows on a ClickHouse server over HTTP (clickhouse-local listening), where measured. */
  server?: string;
  target: string;
  met: boolean | null;
}

export async function clickhouseBench(o: Options): Promise<void> {
  const { log } = o;
  const now = new Date();
  const server = await startPostgres();
  const url = await createDatabase(server, 'chbench');
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  await applySchema((sql, params) => (params ? pool.query(sql, [...params]) : pool.query(sql)), SCHEMA);
  const chPath = mkdtempSync(join(tmpdir(), 'chdb-bench-'));
  const ch = await openChdb({ path: chPath, removeOnClose: true, schema: SCHEMA, retentionDays: null, seedRows: 0, statementTimeoutMs: 120_000, maxResultBytes: 64 << 20, responseShape: 'standard' });
  // The same ClickHouse as a server, over HTTP as the service's SELECT-only user: what HTTP costs a call.
  const chServer = await startClickHouse({ databases: SCHEMA });
  const serverAdmin = clickhouseClient({ url: chServer.nodes[0]!.url(), request_timeout: 600_000 });
  await applyClickHouseSchema(serverAdmin, { db: SCHEMA, retentionDays: null, cluster: null });
  const onServer = connectClickHouseServer({
    url: chServer.nodes[0]!.url('endpoints'), ingestUrl: null, db: SCHEMA, poolMax: 2, ingestPoolMax: 1,
    statementTimeoutMs: 30_000, maxResultBytes: 64 << 20, responseShape: 'standard',
  });
  const pgEngine = createPgEngine({ connectionString: url, schema: SCHEMA, statementTimeoutMs: 120_000, poolMax: 2, connectTimeoutMs: 5_000 });
  const parser = await loadSqlParser();
  const registries = { pg: loadRegistry(QUERIES_DIR, parser, null, 'postgresql', SCHEMA), ch: loadRegistry(QUERIES_DIR, parser, null, 'clickhouse', SCHEMA) };
  const figures: Figure[] = [];
  let grown = 0;
  try {
    // First, on a quiet machine: measured after the 10M stage, it met the loads' background work
    // (write-back, autovacuum) and lost a quarter of its rate, which a service's own ingest would not see.
    // The target is for the requests Vector posts at that rate (VECTOR_BATCH_BYTES); small ones are reported.
    for (const [k, { shape, pg: pgRate, ch: chRate }] of (await measureIngest(server, log)).entries()) {
      figures.push({ measure: `ingest through the service, Kong events: ${shape.label} (median of 3 rounds)`, rows: shape.eventsPerRequest * shape.requestsPerRound, pg: `${pgRate.toFixed(0)} events/s`, ch: `${chRate.toFixed(0)} events/s`, target: k === 0 ? '≥ 50,000 events/s' : 'reported', met: k === 0 ? chRate >= 50_000 : null });
    }
    for (const rows of o.stages) {
      let started = performance.now();
      await growDemoData(pool, SCHEMA, { seed: SEED, now }, grown, rows);
      await pool.query('vacuum analyze');
      await orderByTime(pool, SCHEMA);
      const pgLoadS = (performance.now() - started) / 1000;
      started = performance.now();
      await growClickHouse(ch.admin, now, grown, rows);
      await ch.admin.command({ query: `OPTIMIZE TABLE ${SCHEMA}.edge_logs FINAL` });
      await growClickHouse(serverAdmin, now, grown, rows);
      await serverAdmin.command({ query: `OPTIMIZE TABLE ${SCHEMA}.edge_logs FINAL` });
      const chLoadS = (performance.now() - started) / 1000;
      // The loads' writes on disk before anything is timed: gigabytes of dirty pages written back
      // during the measurements slowed both engines 2× in one run.
      await pool.query('checkpoint');
      execFileSync('sync');
      grown = rows;
      const urls = Number(((await ch.admin.query({ query: `SELECT uniqExact(request_url) AS n FROM ${SCHEMA}.edge_logs`, format: 'JSON' }).then((r) => r.json())) as { data: { n: string }[] }).data[0]!.n);
      log(`${rows} edge rows (${urls} distinct request URLs): PostgreSQL loaded in ${pgLoadS.toFixed(0)} s, ClickHouse in ${chLoadS.toFixed(0)} s`);
      const calls: [string, string, Record<string, string>, string, number][] = [
        ['logs.all, no range', 'logs.all', { project: 'default' }, '≤ 10 ms at 10M', 10],
        ['logs.all, last 12 h', 'logs.all', { project: 'default', iso_timestamp_start: new Date(now.getTime() - 12 * 3_600_000).toISOString() }, '≤ 10 ms at 10M', 10],
        ['usage.api-counts hourly', 'usage.api-counts', { project: 'default', interval: 'hourly' }, '≤ 25 ms at 10M', 25],
        ['usage.api-counts minutely', 'usage.api-counts', { project: 'default', interval: 'minutely' }, '≤ 25 ms at 10M', 25],
        ['usage.api-counts daily', 'usage.api-counts', { project: 'default', interval: 'daily' }, '≤ 200 ms at 10M', 200],
      ];
      for (const [label, name, params, target, limit] of calls) {
        const sides = (['pg', 'ch', 'server'] as const).map((side) => {
          const q = registries[side === 'pg' ? 'pg' : 'ch'].lookup(name)!;
          const bound = bindStatement(q, new Map(Object.entries(params).map(([k, v]) => [k, [v]])), null, POSTGRESQL);
          const engine: Engine = side === 'pg' ? pgEngine : side === 'ch' ? ch.engine : onServer.engine;
          return { run: () => engine.query(bound.sql, bound.params, { stored: true, columns: q.resultColumns }) };
        });
        const times: [number[], number[], number[]] = [[], [], []];
        for (let i = 0; i < 2; i++) for (const s of sides) await s.run();
        for (let i = 0; i < o.runs; i++) {
          for (const [k, s] of sides.entries()) {
            const t = performance.now();
            await s.run();
            times[k]!.push(performance.now() - t);
          }
        }
        const [pgMs, chMs, serverMs] = times.map(median) as [number, number, number];
        log(`${label}: PostgreSQL ${pgMs.toFixed(1)} ms, ClickHouse ${chMs.toFixed(1)} ms, ClickHouse server ${serverMs.toFixed(1)} ms`);
        figures.push({ measure: `${label} (p50 of ${o.runs}, uncached)`, rows, pg: `${pgMs.toFixed(1)} ms`, ch: `${chMs.toFixed(1)} ms`, server: `${serverMs.toFixed(1)} ms`, target, met: rows >= 10_000_000 ? chMs <= limit : null });
      }
      figures.push(...(await studioCalls(o, rows, now, registries, pgEngine, ch.engine, parser, log)));
      const pgBytes = Number((await pool.query(`select pg_total_relation_size('${SCHEMA}.edge_logs') as b, pg_total_relation_size('${SCHEMA}.edge_request_counts') + pg_total_relation_size('${SCHEMA}.edge_request_urls') as r`)).rows[0].b);
      const chBytes = Number(((await ch.admin.query({ query: `SELECT sum(bytes_on_disk) AS b FROM system.parts WHERE database = '${SCHEMA}' AND table = 'edge_logs' AND active`, format: 'JSON' }).then((r) => r.json())) as { data: { b: string }[] }).data[0]!.b);
      const ratio = pgBytes / chBytes;
      figures.push({ measure: `edge_logs on disk (PostgreSQL: table and indexes)`, rows, pg: `${(pgBytes / 2 ** 20).toFixed(0)} MiB`, ch: `${(chBytes / 2 ** 20).toFixed(0)} MiB (${ratio.toFixed(1)}× smaller)`, target: '≥ 5× smaller', met: ratio >= 5 });
      figures.push({ measure: 'distinct request URLs', rows, pg: String(urls), ch: String(urls), target: '–', met: null });
    }
    await pgEngine.close();
    await ch.engine.close();
  } finally {
    await onServer.engine.close().catch(() => {});
    await serverAdmin.close().catch(() => {});
    await chServer.destroy();
    await pool.end().catch(() => {});
    await server.destroy();
    rmSync(chPath, { recursive: true, force: true });
  }
  process.stdout.write(`\n## ClickHouse beside PostgreSQL\n\nMachine: ${cpus()[0]?.model ?? 'unknown'}, ${availableParallelism()} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB; ${new Date().toISOString().slice(0, 16)}Z. chdb (ClickHouse in-process) and PostgreSQL 15 (throwaway, fsync off) on the same rows.\n\n`);
  process.stdout.write(`ClickHouse server: ${chServer.version} as clickhouse-local listening on loopback (scripts/lib/clickhouse-server.ts), called over HTTP by the SELECT-only user, the same rows as chdb.\n\n`);
  process.stdout.write('| measure | edge rows | PostgreSQL | ClickHouse (chdb) | ClickHouse server (HTTP) | target | met |\n|---|--:|--:|--:|--:|---|---|\n');
  for (const f of figures) process.stdout.write(`| ${f.measure} | ${f.rows.toLocaleString('en')} | ${f.pg} | ${f.ch} | ${f.server ?? '–'} | ${f.target} | ${f.met === null ? '–' : f.met ? 'yes' : 'NO'} |\n`);
}

/**
 * Studio's log-page sql (the compat kit's calls, as Studio sends them, BigQuery translated) on both
 * engines: each once over its one-hour window and over the whole store (an empty lower bound), then
 * the three heaviest on PostgreSQL again, alternating, p50 of `runs`. And what printing a statement
 * for ClickHouse costs when it is not memoised: validation and printing, p99 over the calls.
 */
async function studioCalls(o: Options, rows: number, now: Date, registries: Record<'pg' | 'ch', Registry>, pgEngine: Engine, chEngine: Engine, parser: SqlParser, log: (msg: string) => void): Promise<Figure[]> {
  const calls = studioKit().filter((c) => c.endpoint === 'logs.all' && typeof c.sql === 'string').map((c) => ({
    name: shortName(c),
    sql: c.sql!.replace('{{now-7h}}', new Date(now.getTime() - 7 * 3_600_000).toISOString()).replace(/\{\{(\w+) row id\}\}/, 'none'),
  }));
  const dialect = bigQueryDialect(parser);
  const run = (side: 'pg' | 'ch', sql: string, start: string) => {
    const q = registries[side].lookup('logs.all')!;
    const bound = bindStatement(q, new Map([['project', ['default']], ['iso_timestamp_start', [start]]]), sql, dialect);
    const engine = side === 'pg' ? pgEngine : chEngine;
    return () => engine.query(bound.sql, bound.params, { stored: false, ...(bound.columns ? { columns: bound.columns } : {}) });
  };
  const timed = async (f: () => Promise<unknown>): Promise<number> => {
    const t = performance.now();
    await f();
    return performance.now() - t;
  };
  const figures: Figure[] = [];
  for (const [window, start] of [['their one-hour window', new Date(now.getTime() - 3_600_000).toISOString()], ['the whole store', '']] as const) {
    const first: { name: string; sql: string; pg: number }[] = [];
    for (const c of calls) first.push({ ...c, pg: await timed(run('pg', c.sql, start)) });
    const heaviest = first.sort((a, b) => b.pg - a.pg).slice(0, 3);
    for (const c of heaviest) {
      const sides = [run('pg', c.sql, start), run('ch', c.sql, start)];
      await sides[1]!();
      const times: [number[], number[]] = [[], []];
      for (let i = 0; i < Math.min(o.runs, 5); i++) for (const [k, f] of sides.entries()) times[k]!.push(await timed(f));
      const [pgMs, chMs] = times.map(median) as [number, number];
      log(`Studio ${c.name}, ${window}: PostgreSQL ${pgMs.toFixed(1)} ms, ClickHouse ${chMs.toFixed(1)} ms`);
      figures.push({ measure: `Studio's ${c.name} over ${window} (p50 of ${Math.min(o.runs, 5)}, uncached)`, rows, pg: `${pgMs.toFixed(1)} ms`, ch: `${chMs.toFixed(1)} ms (${pgMs >= chMs ? `${(pgMs / chMs).toFixed(1)}× faster` : `${(chMs / pgMs).toFixed(1)}× slower`})`, target: window === 'the whole store' ? '≥ 10× faster at 10M' : '–', met: window === 'the whole store' && rows >= 10_000_000 ? pgMs / chMs >= 10 : null });
    }
  }
  if (rows === o.stages[0]) {
    // Printing unmemoised: each call's translation is memoised by the dialect, as in the service.
    const template = registries.ch.lookup('logs.all')!.sandbox!;
    const samples: number[] = [];
    for (let i = 0; i < 50; i++) for (const c of calls) samples.push(await timed(async () => dialect.compose(template, c.sql)));
    samples.sort((a, b) => a - b);
    const p99 = samples[Math.floor(samples.length * 0.99)]!;
    log(`printing Studio's sql for ClickHouse: p50 ${median(samples).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`);
    figures.push({ measure: `validating and printing one of Studio's ${calls.length} sql texts for ClickHouse (translation memoised), ${samples.length} samples`, rows, pg: '–', ch: `p50 ${median(samples).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`, target: '≤ 1 ms p99', met: p99 <= 1 });
  }
  return figures;
}

/** The rows a `to`-row PostgreSQL store of seed-stages.ts has beyond `from`, into ClickHouse. */
async function growClickHouse(admin: Awaited<ReturnType<typeof openChdb>>['admin'], now: Date, from: number, to: number): Promise<void> {
  const generatedTo = Math.min(to, GENERATED_MAX);
  const before = from === 0 ? null : demoRowCounts(Math.min(from, GENERATED_MAX));
  const after = demoRowCounts(generatedTo);
  const chunk = 50_000;
  for (const table of LOG_TABLES) {
    for (let start = before?.[table] ?? 0; start < after[table]; start += chunk) {
      const count = Math.min(chunk, after[table] - start);
      await insertRows(admin, SCHEMA, table, generateDemoTable(table, benchDemo(generatedTo, SEED, now), start, count));
    }
  }
  if (to <= GENERATED_MAX) return;
  // Copies made by ClickHouse itself, as PostgreSQL makes them (seed-stages.ts copyRows).
  for (const table of LOG_TABLES) await copyClickHouse(admin, table, Math.max(from, GENERATED_MAX), to);
}

async function copyClickHouse(admin: Awaited<ReturnType<typeof openChdb>>['admin'], table: LogTable, from: number, to: number): Promise<void> {
  const generated = demoRowCounts(GENERATED_MAX)[table];
  const last = demoRowCounts(to)[table];
  for (let k = Math.floor(demoRowCounts(from)[table] / generated); k * generated < last; k++) {
    if (k === 0) continue;
    const count = Math.min(generated, last - k * generated);
    // The URL made distinct per copy in edge_logs only (jsonb's text keeps the key where it was).
    const metadata = table === 'edge_logs'
      ? `if(request_url IS NULL, metadata, replaceOne(metadata, concat('"url": "', request_url, '"'), concat('"url": "', request_url, '&copy=', toString({k:UInt32}), '"')))`
      : 'metadata';
    await admin.command({
      query: `INSERT INTO ${SCHEMA}.${table} (id, timestamp, event_message, project, metadata)
        SELECT concat(id, '.', toString({k:UInt32})), timestamp, event_message, project, ${metadata}
        FROM ${SCHEMA}.${table} WHERE position(id, '.') = 0 ORDER BY id LIMIT {count:UInt64}`,
      query_params: { k, count },
      clickhouse_settings: { max_execution_time: 0 },
    });
  }
}

/** Kong access events as Supabase's vector.yml posts them, with a URL. */
function kongBatch(n: number, serial: { next: number }): string {
  const at = Date.now() - 60_000;
  const events = [];
  for (let i = 0; i < n; i++) {
    const s = serial.next++;
    const path = `/rest/v1/todos?select=*&id=eq.${s}`;
    events.push({
      project: 'default',
      event_message: `172.19.0.${s % 250} - - "GET ${path} HTTP/1.1" 200 ${s % 5000} "-" "Dart/3.5 (dart:io)"`,
      timestamp: new Date(at + i).toISOString(),
      metadata: { request: { headers: { user_agent: 'Dart/3.5 (dart:io)', cf_connecting_ip: `172.19.0.${s % 250}` }, method: 'GET', path, protocol: 'HTTP/1.1', url: `https://default.supabase.co${path}` }, response: { status_code: 200 } },
    });
  }
  return JSON.stringify(events);
}

/**
 * Vector's http sink as Supabase's vector.yml configures it (no `batch` options) posts a request
 * when 10,000,000 bytes are gathered or 1 s has passed (vectordotdev/vector src/sinks/http/config.rs:
 * `BatchConfig<RealtimeSizeBasedDefaultBatchSettings>`, src/sinks/util/batch.rs): a sink taking
 * 50,000 Kong events/s fills its 10 MB in under half a second, so that is the request it posts at
 * that rate; 1,000-event requests are what it posts from a sink getting ~1,000 events/s.
 */
const VECTOR_BATCH_BYTES = 10_000_000;

interface IngestShape {
  label: string;
  eventsPerRequest: number;
  requestsPerRound: number;
  concurrency: number;
}

/** Events/s stored through the service on each engine, per request shape: rounds alternate engines, median of 3. */
async function measureIngest(server: Awaited<ReturnType<typeof startPostgres>>, log: (msg: string) => void): Promise<{ shape: IngestShape; pg: number; ch: number }[]> {
  // Built by bench.ts before it dispatched here.
  const start = npmStartFlags();
  const pgUrl = await createDatabase(server, 'chbench_ingest');
  const pgPool = new pg.Pool({ connectionString: pgUrl, max: 1 });
  await applySchema((sql, params) => (params ? pgPool.query(sql, [...params]) : pgPool.query(sql)), SCHEMA);
  await pgPool.end();
  const dataDir = mkdtempSync(join(tmpdir(), 'chdb-ingest-'));
  const common = { PORT: '0', ACCESS_TOKENS: ACCESS_TOKEN, INGEST_TOKENS: INGEST_TOKEN, LOG_LEVEL: 'warn', SEED_ROWS: '0', ...start.env };
  readConfig(common); // the same settings the children read, checked here first
  const children = {
    pg: await startNodeChild({ script: start.script, nodeArgs: start.nodeArgs, env: { ...common, DATABASE_URL: pgUrl, INGEST_DATABASE_URL: pgUrl }, ready: /listening on (http:\/\/\S+)/ }),
    ch: await startNodeChild({ script: start.script, nodeArgs: start.nodeArgs, env: { ...common, CLICKHOUSE_URL: 'embedded', DATA_DIR: dataDir }, ready: /listening on (http:\/\/\S+)/, timeoutMs: 60_000 }),
  };
  const serial = { next: 0 };
  const eventBytes = Buffer.byteLength(kongBatch(1000, { next: 0 })) / 1000;
  const fullBatch = Math.floor(VECTOR_BATCH_BYTES / eventBytes);
  const shapes: IngestShape[] = [
    { label: `full Vector batches (≤ 10 MB, ${fullBatch.toLocaleString('en-US')} events a request), c=2`, eventsPerRequest: fullBatch, requestsPerRound: 6, concurrency: 2 },
    { label: '1,000 events a request, c=4', eventsPerRequest: 1000, requestsPerRound: 100, concurrency: 4 },
  ];
  const rates = shapes.map(() => ({ pg: [] as number[], ch: [] as number[] }));
  try {
    for (let round = 0; round < 3; round++) {
      for (const [k, shape] of shapes.entries()) {
        for (const side of ['pg', 'ch'] as const) {
          const bodies = Array.from({ length: shape.requestsPerRound }, () => kongBatch(shape.eventsPerRequest, serial));
          let next = 0;
          const started = performance.now();
          await Promise.all(Array.from({ length: shape.concurrency }, async () => {
            while (next < bodies.length) {
              const body = bodies[next++]!;
              const res = await fetch(`${children[side].ready}/api/logs?source_name=cloudflare.logs.prod`, { method: 'POST', headers: { 'x-api-key': INGEST_TOKEN, 'content-type': 'application/json' }, body });
              if (res.status !== 200) throw new Error(`ingest on ${side}: ${res.status} ${await res.text()}`);
            }
          }));
          const rate = (shape.requestsPerRound * shape.eventsPerRequest) / ((performance.now() - started) / 1000);
          rates[k]![side].push(rate);
          log(`ingest round ${round + 1}, ${shape.label}, ${side === 'pg' ? 'PostgreSQL' : 'ClickHouse'}: ${rate.toFixed(0)} events/s`);
        }
      }
    }
  } finally {
    await children.pg.stop();
    await children.ch.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return shapes.map((shape, k) => ({ shape, pg: median(rates[k]!.pg), ch: median(rates[k]!.ch) }));
}
