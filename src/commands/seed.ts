/**
 * `node dist/main.js seed --rows N [--seed S]` (`npm run seed -- …`): write deterministic demo logs (N edge rows, the other
 * sources proportional) to the PostgreSQL at DATABASE_URL, applying the schema first, or, when
 * DATABASE_URL is unset, to the embedded PGlite store in DATA_DIR. Rows whose id exists are
 * skipped, so re-running with the same seed adds nothing; use another --seed to add more.
 */
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { AdminExec } from '../store/engine.ts';
import { demoRowCounts, generateDemoTable, insertDemoColumns, type DemoOptions } from '../store/demo/demo-data.ts';
import { PGLITE_EXTENSIONS } from '../store/pglite/pglite-extensions.ts';
import { LOG_TABLES, applySchema, type LogTable } from '../store/schema.ts';
import { CommandError, describeUrl, type Env } from './command.ts';

export const SEED_USAGE = 'usage: node dist/main.js seed [--rows N] [--seed S]   (npm run seed -- …; N edge rows, default 20000; S integer seed, default 1)';
// Rows generated and sent per statement: big enough to amortise round trips, small enough that
// nine tables in flight stay within a few tens of megabytes whatever --rows is.
const BATCH = 5000;
// A few connections let PostgreSQL insert several tables at once while Node generates the next batch.
const POOL_MAX = 4;

interface Args {
  rows: number;
  seed: number;
}

/** Parse `--rows N`, `--seed S` (also `--name=value`); null for --help; throws with the usage on anything else. */
function parseArgs(argv: readonly string[]): Args | null {
  const args: Args = { rows: 20_000, seed: 1 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '-h' || arg === '--help') return null;
    const [name, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    if (name !== '--rows' && name !== '--seed') throw new CommandError(`unknown argument "${arg}"\n${SEED_USAGE}`);
    const value = inline ?? argv[++i];
    if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
      throw new CommandError(`${name} needs a non-negative integer, got ${value === undefined ? 'nothing' : `"${value}"`}\n${SEED_USAGE}`);
    }
    if (name === '--rows') args.rows = Number(value);
    else args.seed = Number(value) >>> 0;
  }
  return args;
}

/** Generate and insert one table batch by batch; returns rows inserted. */
async function seedTable(exec: AdminExec, schema: string, table: LogTable, opts: DemoOptions, total: number): Promise<number> {
  let inserted = 0;
  for (let start = 0; start < total; start += BATCH) {
    inserted += await insertDemoColumns(exec, schema, table, generateDemoTable(table, opts, start, BATCH), BATCH);
  }
  return inserted;
}

/** Where the rows go: an admin exec plus a way to let go of it. */
interface Target {
  label: string;
  exec: AdminExec;
  close(): Promise<void>;
}

async function openTarget(env: Env): Promise<Target> {
  const url = env.DATABASE_URL?.trim();
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: POOL_MAX });
    // Fail fast with the connection error rather than nine times over.
    await pool.query('select 1');
    return {
      label: `PostgreSQL at ${describeUrl(url)}`,
      exec: (sql, params) => (params ? pool.query(sql, [...params]) : pool.query(sql)),
      close: () => pool.end(),
    };
  }
  const dir = env.DATA_DIR?.trim();
  if (!dir) throw new CommandError('set DATABASE_URL (a PostgreSQL to seed) or DATA_DIR (the embedded PGlite store to seed)');
  await mkdir(dir, { recursive: true });
  const db = new PGlite(dir, { extensions: PGLITE_EXTENSIONS });
  await db.waitReady;
  return {
    label: `embedded PGlite store in ${dir}`,
    exec: (sql, params) => (params ? db.query(sql, [...params]) : db.exec(sql)),
    close: () => db.close(),
  };
}

export async function seedCommand(argv: readonly string[], env: Env): Promise<void> {
  const args = parseArgs(argv);
  if (args === null) {
    process.stdout.write(SEED_USAGE + '\n');
    return;
  }
  const { rows, seed } = args;
  const schema = env.LOG_SCHEMA?.trim() || 'logs';
  const counts = demoRowCounts(rows);
  const target = await openTarget(env);
  try {
    const started = performance.now();
    await applySchema(target.exec, schema);
    const out: string[] = [`Seeding ${target.label}, schema "${schema}": ${rows} edge rows (seed ${seed}) and proportional other sources.`];
    // One `now` for every table, so all sources cover the same 7 days.
    const opts: DemoOptions = { rows, seed, now: new Date() };
    const inserted = await Promise.all(LOG_TABLES.map((table) => seedTable(target.exec, schema, table, opts, counts[table])));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    let sum = 0;
    LOG_TABLES.forEach((table, i) => {
      const n = inserted[i] ?? 0;
      sum += n;
      const skipped = counts[table] - n;
      out.push(`  ${table.padEnd(20)} ${String(n).padStart(9)} inserted${skipped > 0 ? ` (${skipped} already present)` : ''}`);
    });
    out.push(`Done: ${sum} rows in ${seconds} s.`);
    process.stdout.write(out.join('\n') + '\n');
  } finally {
    await target.close();
  }
}
