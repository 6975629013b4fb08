/**
 * What the usage.api-counts rollup (sql/schema.sql) costs a writer: edge rows inserted per second
 * into a store with its triggers and into one without, the same rows in the same batches,
 * alternating (ABBA) in one run, and the same for deleting them. Two scratch schemas in the bench
 * database, dropped afterwards.
 */
import type pg from 'pg';
import { generateDemoTable, insertDemoColumns, type DemoColumns } from '../../src/store/demo/demo-data.ts';
import { applySchema, EDGE_ROLLUP_TRIGGERS } from '../../src/store/schema.ts';

const WITH = 'bench_ingest_rollup' as const;
const WITHOUT = 'bench_ingest_plain' as const;
/** The seeders' batch: one INSERT statement per 5000 rows. */
const BATCH = 5000;

export interface IngestFigures {
  rows: number;
  /** Rows per second inserted with the rollup's triggers and without. */
  insertWith: number;
  insertWithout: number;
  /** Rows per second deleted (one statement per batch of ids) with and without. */
  deleteWith: number;
  deleteWithout: number;
}

export async function measureIngest(pool: pg.Pool, rows: number): Promise<IngestFigures> {
  const exec = (sql: string, params?: readonly unknown[]) => (params ? pool.query(sql, [...params]) : pool.query(sql));
  for (const schema of [WITH, WITHOUT]) {
    await pool.query(`drop schema if exists ${schema} cascade`);
    await applySchema(exec, schema);
  }
  for (const t of EDGE_ROLLUP_TRIGGERS) await pool.query(`drop trigger ${t} on ${WITHOUT}.edge_logs`);
  const cols = generateDemoTable('edge_logs', { rows: rows * 2, seed: 7, now: new Date() }, 0, rows);
  const ms = { insert: { [WITH]: 0, [WITHOUT]: 0 }, delete: { [WITH]: 0, [WITHOUT]: 0 } };
  try {
    for (let from = 0, i = 0; from < rows; from += BATCH, i++) {
      const batch = slice(cols, from, from + BATCH);
      // ABBA: neither side always goes first (a warm cache, autovacuum, a checkpoint).
      for (const schema of i % 2 === 0 ? [WITH, WITHOUT] : [WITHOUT, WITH]) {
        const t0 = performance.now();
        await insertDemoColumns(exec, schema, 'edge_logs', batch, BATCH);
        ms.insert[schema] += performance.now() - t0;
      }
    }
    for (let from = 0, i = 0; from < rows; from += BATCH, i++) {
      const ids = cols.id.slice(from, from + BATCH);
      for (const schema of i % 2 === 0 ? [WITH, WITHOUT] : [WITHOUT, WITH]) {
        const t0 = performance.now();
        await pool.query(`delete from ${schema}.edge_logs where id = any($1::text[])`, [ids]);
        ms.delete[schema] += performance.now() - t0;
      }
    }
  } finally {
    for (const schema of [WITH, WITHOUT]) await pool.query(`drop schema if exists ${schema} cascade`);
  }
  const perSecond = (totalMs: number) => rows / (totalMs / 1000);
  return {
    rows,
    insertWith: perSecond(ms.insert[WITH]),
    insertWithout: perSecond(ms.insert[WITHOUT]),
    deleteWith: perSecond(ms.delete[WITH]),
    deleteWithout: perSecond(ms.delete[WITHOUT]),
  };
}

function slice(c: DemoColumns, from: number, to: number): DemoColumns {
  return { id: c.id.slice(from, to), timestamp: c.timestamp.slice(from, to), event_message: c.event_message.slice(from, to), project: c.project.slice(from, to), metadata: c.metadata.slice(from, to) };
}
