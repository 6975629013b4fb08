/**
 * Deterministic demo logs for the nine log sources (docs/log-store.md): realistic enough to exercise both
 * stored queries and PII redaction (e-mail, IPv4 and IPv6 addresses), and cheap per row (lookup
 * tables, template-built JSON) so a million edge rows take seconds, not minutes.
 *
 * Every row is drawn from its own PRNG stream keyed by (seed, table, row index), so any slice of a
 * table can be generated on its own (the seed script streams in batches) and is identical to the
 * same rows of a full generation.
 */
import type { AdminExec } from '../engine.ts';
import { Prng } from './prng.ts';
import { Flattener, fmix32, Timeline, uuid, weightedPool } from './demo-draws.ts';
import { PROJECT_REF, SOURCES } from './demo-sources.ts';
import { LOG_TABLES, checkSchemaName, type LogTable } from '../schema.ts';

/** One table's rows, column by column (the shape the bulk insert sends as array parameters). */
export interface DemoColumns {
  id: string[];
  /** ISO 8601 UTC with microseconds, e.g. 2026-11-22T10:15:30.123456Z. */
  timestamp: string[];
  event_message: string[];
  project: (string | null)[];
  /** JSON text of an object. */
  metadata: string[];
}

export type DemoLogs = Record<LogTable, DemoColumns>;

export interface DemoOptions {
  /** Number of edge_logs rows; the other sources get proportional counts (see demoRowCounts). */
  rows: number;
  /** PRNG seed; same seed, rows, now and projects give identical output. Default 1. */
  seed?: number;
  /** Timestamps fall within the 7 days before this instant. Default: the current time. */
  now?: Date;
  /** Project refs rows are spread over (the first gets the most rows). Default DEMO_PROJECTS. */
  projects?: string[];
  /** Relative share of rows per project, in the order of `projects`. Default: n, n-1, …, 1. */
  projectWeights?: number[];
}

export const DEMO_PROJECTS: readonly string[] = ['default', 'acme-prod', 'acme-staging'];

/** Rows per source relative to edge_logs. */
const RATIOS: Record<LogTable, number> = {
  edge_logs: 1,
  postgres_logs: 0.5,
  function_edge_logs: 0.15,
  function_logs: 0.2,
  auth_logs: 0.1,
  realtime_logs: 0.1,
  storage_logs: 0.15,
  postgrest_logs: 0.2,
  pgbouncer_logs: 0.1,
};

/** Rows each table gets for `rows` edge rows (at least one per table when rows > 0). */
export function demoRowCounts(rows: number): Record<LogTable, number> {
  if (!Number.isSafeInteger(rows) || rows < 0) throw new Error(`rows must be a non-negative integer, got ${rows}`);
  const counts = {} as Record<LogTable, number>;
  for (const table of LOG_TABLES) counts[table] = rows === 0 ? 0 : Math.max(1, Math.round(rows * RATIOS[table]));
  return counts;
}

/** All nine tables in memory. For very large counts prefer generateDemoTable in slices. */
export function generateDemoLogs(opts: DemoOptions): DemoLogs {
  const counts = demoRowCounts(opts.rows);
  const logs = {} as DemoLogs;
  for (const table of LOG_TABLES) logs[table] = generateDemoTable(table, opts, 0, counts[table]);
  return logs;
}

/** Rows [start, start + count) of one table, identical to the same rows of generateDemoLogs. */
export function generateDemoTable(table: LogTable, opts: DemoOptions, start = 0, count?: number): DemoColumns {
  const total = demoRowCounts(opts.rows)[table];
  const end = Math.min(total, start + (count ?? total));
  const projects = opts.projects ?? DEMO_PROJECTS;
  if (projects.length === 0) throw new Error('projects must not be empty');
  for (const p of projects) {
    // Refs become host names and are spliced into JSON text unescaped, so keep them to that alphabet.
    if (!PROJECT_REF.test(p)) throw new Error(`project "${p}" must be a lower-case host name label ([a-z0-9-])`);
  }
  if (!Number.isSafeInteger(start) || start < 0) throw new Error(`start must be a non-negative integer, got ${start}`);
  const nowMs = (opts.now ?? new Date()).getTime();
  if (Number.isNaN(nowMs)) throw new Error('now must be a valid Date');
  const clock = new Timeline(nowMs);
  const flattener = new Flattener();
  const flat = (s: string) => flattener.flat(s);
  const tableKey = fmix32(((opts.seed ?? 1) >>> 0) ^ fmix32(LOG_TABLES.indexOf(table) + 0x51ed27));
  // The first project gets the most rows, like a real account's main project.
  const weights = opts.projectWeights ?? projects.map((_, i) => projects.length - i);
  if (weights.length !== projects.length || weights.some((w) => !Number.isSafeInteger(w) || w < 1)) throw new Error('projectWeights must be one positive integer per project');
  const projectPool = weightedPool(projects.map((p, i) => [p, weights[i]!] as const));
  const source = SOURCES[table];
  const cols: DemoColumns = { id: [], timestamp: [], event_message: [], project: [], metadata: [] };
  const r = new Prng();
  for (let i = start; i < end; i++) {
    r.reset(fmix32((tableKey + Math.imul(i, 0x9e3779b1)) >>> 0));
    // The first id word is a bijection of the row index, so ids are unique within a table.
    cols.id.push(flat(uuid(fmix32((tableKey ^ 0xa5a5a5a5) + i), r)));
    const ts = flat(clock.before(r));
    const row = source(r, r.pick(projectPool), ts);
    cols.timestamp.push(ts);
    cols.event_message.push(flat(row.message));
    cols.project.push(row.project);
    cols.metadata.push(flat(row.metadata));
  }
  return cols;
}

/** Bulk-insert every table (one `insert … select from unnest(...)` per batch); returns rows inserted. */
export async function insertDemoLogs(exec: AdminExec, schema: string, logs: DemoLogs, batchSize = 5000): Promise<number> {
  let inserted = 0;
  for (const table of LOG_TABLES) inserted += await insertDemoColumns(exec, schema, table, logs[table], batchSize);
  return inserted;
}

/** Bulk-insert one table's rows in batches; rows whose id already exists are skipped. Returns rows inserted. */
export async function insertDemoColumns(exec: AdminExec, schema: string, table: LogTable, cols: DemoColumns, batchSize = 5000): Promise<number> {
  if (!LOG_TABLES.includes(table)) throw new Error(`unknown log table "${table}"`);
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer, got ${batchSize}`);
  // Array parameters keep values out of the SQL text and make a batch one round trip, whatever its size.
  const sql =
    `insert into ${checkSchemaName(schema)}.${table} (id, timestamp, event_message, project, metadata) ` +
    'select * from unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::jsonb[]) on conflict (id) do nothing';
  let inserted = 0;
  for (let from = 0; from < cols.id.length; from += batchSize) {
    const to = from + batchSize;
    const result = await exec(sql, [
      cols.id.slice(from, to),
      cols.timestamp.slice(from, to),
      cols.event_message.slice(from, to),
      cols.project.slice(from, to),
      cols.metadata.slice(from, to),
    ]);
    inserted += affectedRows(result);
  }
  return inserted;
}

/** pg reports `rowCount`, PGlite `affectedRows`. */
function affectedRows(result: unknown): number {
  const r = result as { rowCount?: unknown; affectedRows?: unknown } | null;
  const n = r?.rowCount ?? r?.affectedRows;
  return typeof n === 'number' ? n : 0;
}
