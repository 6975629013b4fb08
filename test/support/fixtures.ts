import type { TestStore } from './engines.ts';
import { insertDemoLogs, type DemoLogs } from '../../src/store/demo/demo-data.ts';
import { LOG_TABLES } from '../../src/store/schema.ts';

export interface LogRow {
  id: string;
  timestamp: string;
  event_message?: string;
  project?: string | null;
  /** An object, or JSON text (for what JSON.stringify cannot write, such as integers past 2^53). */
  metadata?: Record<string, unknown> | string;
}

/**
 * Insert rows into one log table (fixture writes go through the store's own handle, never the
 * service): the store's `insertRows` where it has one (ClickHouse), else SQL through `admin`.
 */
export async function insertRows(store: Pick<TestStore, 'admin' | 'insertRows'>, table: string, rows: readonly LogRow[]): Promise<void> {
  if (store.insertRows) return store.insertRows(table, rows);
  for (const r of rows) {
    await store.admin(`insert into logs.${table} (id, timestamp, event_message, project, metadata) values ($1, $2, $3, $4, $5)`, [
      r.id,
      r.timestamp,
      r.event_message ?? '',
      r.project ?? null,
      metadataText(r),
    ]);
  }
}

/** The demo generator's rows (src/store/demo) written through the store's own handle, as insertRows does. */
export async function insertDemo(store: Pick<TestStore, 'admin' | 'insertRows'>, logs: DemoLogs): Promise<void> {
  if (!store.insertRows) return void (await insertDemoLogs(store.admin, 'logs', logs));
  for (const table of LOG_TABLES) {
    const t = logs[table];
    await store.insertRows(table, t.id.map((id, i) => ({ id, timestamp: t.timestamp[i]!, event_message: t.event_message[i]!, project: t.project[i] ?? null, metadata: t.metadata[i]! })));
  }
}

/** An edge request row as ingesters write it. */
export function edgeRow(id: string, timestamp: string, project: string, path: string, extra: Partial<LogRow> = {}): LogRow {
  const url = `https://${project}.logs.test${path}`;
  return {
    id,
    timestamp,
    project,
    event_message: `GET | 200 | 203.0.113.7 | ${url}`,
    metadata: { request: { url, path, method: 'GET', headers: { 'x-forwarded-for': '203.0.113.7' } }, response: { status_code: 200 } },
    ...extra,
  };
}

/** ISO string with microseconds of `ms` since the epoch plus `micros`. */
export function isoMicros(ms: number, micros = 0): string {
  const d = new Date(ms);
  return d.toISOString().slice(0, 23) + String(micros).padStart(3, '0') + 'Z';
}

/** A row's metadata as JSON text. */
export function metadataText(r: LogRow): string {
  return typeof r.metadata === 'string' ? r.metadata : JSON.stringify(r.metadata ?? {});
}
