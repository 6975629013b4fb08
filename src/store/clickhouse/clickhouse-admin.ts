/**
 * Writes to the ClickHouse store that are not ingest: the schema (schema.ts) and rows for the demo
 * data and test fixtures. `metadata` goes in as the JSON text jsonb would print (jsonb-text.ts),
 * timestamps as ClickHouse reads DateTime64 input, in UTC.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { DemoColumns } from '../demo/demo-data.ts';
import { jsonbOfValue, jsonbText } from '../jsonb-text.ts';
import { clickhouseSchema, type ClickHouseSchemaOptions } from './schema.ts';
import { clickhouseTimestamp } from './timestamps.ts';
import type { LogTable } from '../schema.ts';

export async function applyClickHouseSchema(admin: ClickHouseClient, o: ClickHouseSchemaOptions): Promise<void> {
  for (const statement of clickhouseSchema(o)) await admin.command({ query: statement });
}

/**
 * One row as the tables take it: `metadata` (JSON text of an object, or the object itself) as jsonb
 * prints it, the timestamp in ClickHouse's form.
 */
export function clickhouseRow(id: string, timestamp: string, event_message: string, project: string | null, metadata: string | Record<string, unknown>): Record<string, unknown> {
  const text = typeof metadata === 'string' ? jsonbText(metadata) : jsonbOfValue(metadata);
  if (text === null || !text.startsWith('{')) throw new Error(`row ${id}: metadata is not a JSON object`);
  return { id, timestamp: clickhouseTimestamp(timestamp), event_message, project, metadata: text };
}

/** Insert rows (columns as the demo generator makes them) in batches; returns the rows inserted. */
export async function insertRows(admin: ClickHouseClient, db: string, table: LogTable, cols: DemoColumns, batchSize = 50_000): Promise<number> {
  for (let from = 0; from < cols.id.length; from += batchSize) {
    const values = [];
    for (let i = from; i < Math.min(cols.id.length, from + batchSize); i++) {
      values.push(clickhouseRow(cols.id[i]!, cols.timestamp[i]!, cols.event_message[i]!, cols.project[i]!, cols.metadata[i]!));
    }
    await admin.insert({ table: `${db}.${table}`, values, format: 'JSONEachRow' });
  }
  return cols.id.length;
}
