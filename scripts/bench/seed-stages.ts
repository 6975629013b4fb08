/**
 * Staged demo data for the benchmark: grow the log store from one row count to the next, so
 * logs.all can be measured at 10k, 100k, 1M (and 10M) edge rows in one run without reseeding.
 *
 * Up to GENERATED_MAX edge rows the rows come from the demo generator: row i of a table is the same
 * whatever the total (demo-data.ts draws each row from its own PRNG stream), so stage N+1 inserts
 * exactly the rows a fresh seed of that size has beyond stage N. Past it, generating and sending
 * every row from Node (~20k rows/s) would take most of an hour for 10M, so PostgreSQL copies the
 * generated rows itself (INSERT … SELECT, a million rows a statement): copy k of a row has the id
 * `<id>.<k>`, the same time and content, and, in edge_logs, a request URL made distinct per copy
 * (`&copy=k`). That is the worst case for usage.api-counts' rollup, which grows with distinct URLs
 * (10× the generated data's), and the same time distribution for every other query.
 */
import type pg from 'pg';
import { demoRowCounts, generateDemoTable, insertDemoColumns, type DemoOptions } from '../../src/store/demo/demo-data.ts';
import { checkSchemaName, LOG_TABLES, type LogTable } from '../../src/store/schema.ts';

// Same batch size as src/commands/seed.ts: one round trip per 5000 rows, bounded memory.
const BATCH = 5000;
/** Edge rows (and the other tables in proportion) the generator writes; copies beyond. */
export const GENERATED_MAX = 1_000_000;
/** Rows one copying statement writes (its transition table, in edge_logs, holds them all). */
const COPY_CHUNK = 1_000_000;

/**
 * Many projects, as a log store behind a platform has: 'default' (the self-hosted project Studio
 * asks for, with half of the rows) and 199 references shaped like Supabase's (20 lower-case
 * letters) sharing the other half, the first of them 0.5% of all rows. With ids and pagination in
 * the demo's query strings, most requests have a URL of their own (the bench prints how many
 * distinct URLs the data has), and a project reference selects one host of many.
 */
export const BENCH_PROJECTS: readonly string[] = ['default', ...Array.from({ length: 199 }, (_, i) => projectRef(i + 1))];
const OTHERS = BENCH_PROJECTS.length - 1;
const BENCH_PROJECT_WEIGHTS: readonly number[] = [(OTHERS * (OTHERS + 1)) / 2, ...Array.from({ length: OTHERS }, (_, i) => OTHERS - i)];

/** The demo generator's options for a `rows`-row bench store (every bench seeds these rows). */
export function benchDemo(rows: number, seed: number, now: Date): DemoOptions {
  return { rows, seed, now, projects: [...BENCH_PROJECTS], projectWeights: [...BENCH_PROJECT_WEIGHTS] };
}

/** A fixed 20-letter reference for project i. */
function projectRef(i: number): string {
  let x = Math.imul(i, 2654435761) >>> 0;
  let ref = '';
  for (let k = 0; k < 20; k++) {
    ref += String.fromCharCode(97 + (x % 26));
    x = (Math.imul(x ^ (x >>> 13), 1103515245) + 12345) >>> 0;
  }
  return ref;
}

/** Insert the rows a `to`-row seed has beyond a `from`-row seed, all tables at once; returns rows inserted. */
export async function growDemoData(pool: pg.Pool, schema: string, opts: { seed: number; now: Date }, from: number, to: number): Promise<number> {
  const generatedTo = Math.min(to, GENERATED_MAX);
  const before = from === 0 ? null : demoRowCounts(Math.min(from, GENERATED_MAX));
  const after = demoRowCounts(generatedTo);
  const demo = benchDemo(generatedTo, opts.seed, opts.now);
  const exec = (sql: string, params?: readonly unknown[]) => (params ? pool.query(sql, [...params]) : pool.query(sql));
  const generate = async (table: LogTable): Promise<number> => {
    let inserted = 0;
    for (let start = before?.[table] ?? 0; start < after[table]; start += BATCH) {
      const count = Math.min(BATCH, after[table] - start);
      inserted += await insertDemoColumns(exec, schema, table, generateDemoTable(table, demo, start, count), BATCH);
    }
    return inserted;
  };
  let inserted = (await Promise.all(LOG_TABLES.map(generate))).reduce((a, b) => a + b, 0);
  if (to > GENERATED_MAX) inserted += (await Promise.all(LOG_TABLES.map((t) => copyRows(pool, schema, t, Math.max(from, GENERATED_MAX), to)))).reduce((a, b) => a + b, 0);
  return inserted;
}

/** Copies of the generated rows of `table`, from a `from`-row store to a `to`-row one (both ≥ GENERATED_MAX). */
async function copyRows(pool: pg.Pool, schema: string, table: LogTable, from: number, to: number): Promise<number> {
  const generated = demoRowCounts(GENERATED_MAX)[table];
  const q = `${checkSchemaName(schema)}.${table}`;
  // The URL is made distinct per copy in edge_logs only: usage.api-counts' rollup counts by URL.
  const metadata = table === 'edge_logs' ? `case when metadata->'request' ? 'url' then jsonb_set(metadata, '{request,url}', to_jsonb((metadata->'request'->>'url') || '&copy=' || $1::int)) else metadata end` : 'metadata';
  const last = demoRowCounts(to)[table];
  let inserted = 0;
  // Row n of the final store (n ≥ generated) is copy floor(n / generated) of generated row n % generated.
  for (let n = demoRowCounts(from)[table]; n < last; ) {
    const k = Math.floor(n / generated);
    const offset = n % generated;
    const count = Math.min(COPY_CHUNK, generated - offset, last - n);
    const result = await pool.query(
      `insert into ${q} (id, timestamp, event_message, project, metadata)
       select id || '.' || $1::int, timestamp, event_message, project, ${metadata}
       from (select * from ${q} where id not like '%.%' order by id offset $2 limit $3) g
       on conflict (id) do nothing`,
      [k, offset, count],
    );
    inserted += result.rowCount ?? 0;
    n += count;
  }
  return inserted;
}

/**
 * Store every table's rows in time order, as a log store's are (ingest appends them as they
 * happen): the stages above insert each stage's rows across the whole week, so without this an
 * hour's rows would sit one per page all over the table, and a read of one hour (Studio's log
 * pages, the event chart) would touch a page per row. CLUSTER rewrites the table and its indexes.
 */
export async function orderByTime(pool: pg.Pool, schema: string): Promise<void> {
  const s = checkSchemaName(schema);
  for (const table of LOG_TABLES) {
    await pool.query(`create index if not exists bench_time_order on ${s}.${table} (timestamp)`);
    await pool.query(`cluster ${s}.${table} using bench_time_order`);
    await pool.query(`drop index ${s}.bench_time_order`);
  }
}
