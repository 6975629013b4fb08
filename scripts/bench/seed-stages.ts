/**
 * Staged demo data for the benchmark: grow the log store from one row count to the next, so
 * logs.all can be measured at 10k, 100k and 1M edge rows in one run without reseeding. Row i of a
 * table is the same whatever the total (demo-data.ts draws each row from its own PRNG stream), so
 * stage N+1 inserts exactly the rows a fresh seed of that size has beyond stage N.
 */
import type pg from 'pg';
import { demoRowCounts, generateDemoTable, insertDemoColumns, type DemoOptions } from '../../src/store/demo/demo-data.ts';
import { LOG_TABLES, type LogTable } from '../../src/store/schema.ts';

// Same batch size as scripts/seed.ts: one round trip per 5000 rows, bounded memory.
const BATCH = 5000;

/** Insert the rows a `to`-row seed has beyond a `from`-row seed, all tables at once; returns rows inserted. */
export async function growDemoData(pool: pg.Pool, schema: string, opts: { seed: number; now: Date }, from: number, to: number): Promise<number> {
  const before = from === 0 ? null : demoRowCounts(from);
  const after = demoRowCounts(to);
  const demo: DemoOptions = { rows: to, seed: opts.seed, now: opts.now };
  const exec = (sql: string, params?: readonly unknown[]) => (params ? pool.query(sql, [...params]) : pool.query(sql));
  const one = async (table: LogTable): Promise<number> => {
    let inserted = 0;
    for (let start = before?.[table] ?? 0; start < after[table]; start += BATCH) {
      const count = Math.min(BATCH, after[table] - start);
      inserted += await insertDemoColumns(exec, schema, table, generateDemoTable(table, demo, start, count), BATCH);
    }
    return inserted;
  };
  const counts = await Promise.all(LOG_TABLES.map(one));
  return counts.reduce((a, b) => a + b, 0);
}
