/**
 * Writes to the ClickHouse store that are not ingest: the schema (schema.ts) and rows for the demo
 * data and test fixtures. `metadata` goes in as the JSON text jsonb would print (jsonb-text.ts),
 * timestamps as ClickHouse reads DateTime64 input, in UTC.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { DemoColumns } from '../demo/demo-data.ts';
import { jsonbText } from '../jsonb-text.ts';
import { clickhouseSchema, type ClickHouseSchemaOptions } from './schema.ts';
import { clickhouseTimestamp } from './timestamps.ts';
import type { LogTable } from '../schema.ts';

export async function applyClickHouseSchema(admin: ClickHouseClient, o: ClickHouseSchemaOptions): Promise<void> {
  for (const statement of clickhouseSchema(o)) await admin.command({ query: statement });
}

/** Insert rows (columns as the demo generator makes them) in batches; returns the rows inserted. */
export async function insertRows(admin: ClickHouseClient, db: string, table: LogTable, cols: DemoColumns, batchSize = 50_000): Promise<number> {
  for (let from = 0; from < cols.id.length; from += batchSize) {
    const values = [];
    for (let i = from; i < Math.min(cols.id.length, from + batchSize); i++) {
      const metadata = jsonbText(cols.metadata[i]!);
      if (metadata === null || !metadata.startsWith('{')) throw new Error(`${table} row ${cols.id[i]}: metadata is not a JSON object`);
      values.push({ id: cols.id[i], timestamp: clickhouseTimestamp(cols.timestamp[i]!), event_message: cols.event_message[i], project: cols.project[i], metadata });
    }
    await admin.insert({ table: `${db}.${table}`, values, format: 'JSONEachRow' });
  }
  return cols.id.length;
}
