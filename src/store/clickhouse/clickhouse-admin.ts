/**
 * Writes to the ClickHouse store: the schema (schema.ts), and log rows as TabSeparated lines for
 * ingest (clickhouse-writer.ts), the demo data and test fixtures. `metadata` goes in as the JSON
 * text jsonb would print (jsonb-text.ts), timestamps as ClickHouse reads DateTime64 input, in UTC.
 */
import { Readable } from 'node:stream';
import type { ClickHouseClient, ClickHouseSettings, InsertResult } from '@clickhouse/client';
import type { DemoColumns } from '../demo/demo-data.ts';
import { jsonbOfValue, jsonbText } from '../values/jsonb-text.ts';
import { clickhouseSchema, type ClickHouseSchemaOptions } from './schema.ts';
import { clickhouseTimestamp } from './timestamps.ts';
import type { LogTable } from '../schema.ts';

export async function applyClickHouseSchema(admin: ClickHouseClient, o: ClickHouseSchemaOptions): Promise<void> {
  for (const statement of clickhouseSchema(o)) await admin.command({ query: statement });
}

/** The columns a log row gives, in the order logLine writes them (the others are MATERIALIZED). */
const LOG_COLUMNS: [string, ...string[]] = ['id', 'timestamp', 'event_message', 'project', 'metadata'];
const TSV_SPECIAL = /[\\\t\n\r]/;
const TSV_ESCAPES: Readonly<Record<string, string>> = Object.freeze({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' });

/** A String field of TabSeparated input: backslash, tab and line breaks escaped, as ClickHouse reads them back. */
function tsvField(value: string): string {
  return TSV_SPECIAL.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => TSV_ESCAPES[c]!) : value;
}

/**
 * One row as the tables take it, a line of TabSeparated input: `metadata` (JSON text of an object,
 * or the object itself) as jsonb prints it, the timestamp in ClickHouse's form. TabSeparated, not
 * JSONEachRow: nothing is quoted twice (metadata's own quotes stay as they are), and neither the
 * client nor ClickHouse tokenises JSON to find the fields (ingest writes every event this way).
 */
export function logLine(id: string, timestamp: string, event_message: string, project: string | null, metadata: string | Record<string, unknown>): string {
  const text = typeof metadata === 'string' ? jsonbText(metadata) : jsonbOfValue(metadata);
  if (text === null || !text.startsWith('{')) throw new Error(`row ${id}: metadata is not a JSON object`);
  return `${tsvField(id)}\t${clickhouseTimestamp(timestamp)}\t${tsvField(event_message)}\t${project === null ? '\\N' : tsvField(project)}\t${tsvField(text)}\n`;
}

/**
 * Insert lines (logLine) into a log table, `db.table` quoted; resolves with the client's summary once
 * the rows are stored: into a cluster's Distributed table, on their shards (not queued on this node
 * to be sent later, which would acknowledge rows a stopped shard may never get).
 */
export async function insertLines(client: ClickHouseClient, table: string, lines: string, settings: ClickHouseSettings = {}): Promise<InsertResult> {
  const clickhouse_settings: ClickHouseSettings = { distributed_foreground_insert: 1, ...settings };
  return client.insert({ table, values: Readable.from([Buffer.from(lines)], { objectMode: false }), format: 'TabSeparated', columns: LOG_COLUMNS, clickhouse_settings });
}

/** Insert rows (columns as the demo generator makes them) in batches; returns the rows inserted. */
export async function insertRows(admin: ClickHouseClient, db: string, table: LogTable, cols: DemoColumns, batchSize = 50_000): Promise<number> {
  for (let from = 0; from < cols.id.length; from += batchSize) {
    let lines = '';
    for (let i = from; i < Math.min(cols.id.length, from + batchSize); i++) {
      lines += logLine(cols.id[i]!, cols.timestamp[i]!, cols.event_message[i]!, cols.project[i]!, cols.metadata[i]!);
    }
    await insertLines(admin, `${db}.${table}`, lines);
  }
  return cols.id.length;
}
