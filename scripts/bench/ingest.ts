/**
 * What the usage.api-counts rollup (sql/schema.sql) costs a writer: edge rows inserted per second
 * into a store as the schema makes it, into one without the rollup's URL indexes (the schema
 * before them) and into one without the rollup's triggers, the same rows in the same batches,
 * rotating the order in one run, and the same for deleting them. Three scratch schemas in the bench
 * database, dropped afterwards.
 */
import type pg from 'pg';
import { generateDemoTable, insertDemoColumns, type DemoColumns } from '../../src/store/demo/demo-data.ts';
import { applySchema, EDGE_ROLLUP_TRIGGERS, USAGE_URL_INDEXES } from '../../src/store/schema.ts';

const WITH = 'bench_ingest_rollup' as const;
const NO_URL_INDEXES = 'bench_ingest_rollup_no_url_indexes' as const;
const WITHOUT = 'bench_ingest_plain' as const;
const SCHEMAS = [WITH, NO_URL_INDEXES, WITHOUT] as const;
/** The seeders' batch: one INSERT statement per 5000 rows. */
const BATCH = 5000;

export interface IngestFigures {
  rows: number;
  /** Rows per second inserted with the rollup's triggers (with and without its URL indexes) and without. */
  insertWith: number;
  insertNoUrlIndexes: number;
  insertWithout: number;
  /** Rows per second deleted (one statement per batch of ids), the same three ways. */
  deleteWith: number;
  deleteNoUrlIndexes: number;
  deleteWithout: number;
}

/** `projects`: the hosts the rows' URLs are spread over (the bench's data, so URLs are as distinct). */
export async function measureIngest(pool: pg.Pool, rows: number, projects: readonly string[]): Promise<IngestFigures> {
  const exec = (sql: string, params?: readonly unknown[]) => (params ? pool.query(sql, [...params]) : pool.query(sql));
  for (const schema of SCHEMAS) {
    await pool.query(`drop schema if exists ${schema} cascade`);
    await applySchema(exec, schema);
  }
  await pool.query(`drop index ${USAGE_URL_INDEXES.map((i) => `${NO_URL_INDEXES}.${i}`).join(', ')}`);
  for (const t of EDGE_ROLLUP_TRIGGERS) await pool.query(`drop trigger ${t} on ${WITHOUT}.edge_logs`);
  const cols = generateDemoTable('edge_logs', { rows: rows * 2, seed: 7, now: new Date(), projects: [...projects] }, 0, rows);
  const zero = () => ({ [WITH]: 0, [NO_URL_INDEXES]: 0, [WITHOUT]: 0 });
  const ms = { insert: zero(), delete: zero() };
  // Each batch starts with the next schema in turn: none always goes first (a warm cache, a checkpoint).
  const order = (i: number) => SCHEMAS.map((_, k) => SCHEMAS[(i + k) % SCHEMAS.length]!);
  try {
    for (let from = 0, i = 0; from < rows; from += BATCH, i++) {
      const batch = slice(cols, from, from + BATCH);
      for (const schema of order(i)) {
        const t0 = performance.now();
        await insertDemoColumns(exec, schema, 'edge_logs', batch, BATCH);
        ms.insert[schema] += performance.now() - t0;
      }
    }
    for (let from = 0, i = 0; from < rows; from += BATCH, i++) {
      const ids = cols.id.slice(from, from + BATCH);
      for (const schema of order(i)) {
        const t0 = performance.now();
        await pool.query(`delete from ${schema}.edge_logs where id = any($1::text[])`, [ids]);
        ms.delete[schema] += performance.now() - t0;
      }
    }
  } finally {
    for (const schema of SCHEMAS) await pool.query(`drop schema if exists ${schema} cascade`);
  }
  const perSecond = (totalMs: number) => rows / (totalMs / 1000);
  return {
    rows,
    insertWith: perSecond(ms.insert[WITH]),
    insertNoUrlIndexes: perSecond(ms.insert[NO_URL_INDEXES]),
    insertWithout: perSecond(ms.insert[WITHOUT]),
    deleteWith: perSecond(ms.delete[WITH]),
    deleteNoUrlIndexes: perSecond(ms.delete[NO_URL_INDEXES]),
    deleteWithout: perSecond(ms.delete[WITHOUT]),
  };
}

function slice(c: DemoColumns, from: number, to: number): DemoColumns {
  return { id: c.id.slice(from, to), timestamp: c.timestamp.slice(from, to), event_message: c.event_message.slice(from, to), project: c.project.slice(from, to), metadata: c.metadata.slice(from, to) };
}
