import { readFile } from 'node:fs/promises';
import type { AdminExec } from './engine.ts';

/** The nine log-source tables (docs/log-store.md), in the order logs.all defines its CTEs. */
export const LOG_TABLES = [
  'edge_logs',
  'postgres_logs',
  'function_edge_logs',
  'function_logs',
  'auth_logs',
  'realtime_logs',
  'storage_logs',
  'postgrest_logs',
  'pgbouncer_logs',
] as const;

export type LogTable = (typeof LOG_TABLES)[number];

/** One row of a log table, as ingest writes it: the columns every log table has (docs/log-store.md); `timestamp` RFC 3339 to the microsecond. */
export interface LogRow {
  id: string;
  timestamp: string;
  event_message: string;
  project: string | null;
  metadata: Record<string, unknown>;
}

/** Every table sql/schema.sql makes: the log tables and usage.api-counts' rollup. A stored statement reads only these. */
export const STORE_TABLES: readonly string[] = [...LOG_TABLES, 'edge_request_urls', 'edge_request_counts', 'edge_request_host_counts'];

/**
 * The triggers on edge_logs that keep usage.api-counts' rollup (sql/schema.sql). Named here for
 * what must remove them: the bench's no-rollup baseline and the test of a store built before them.
 */
export const EDGE_ROLLUP_TRIGGERS = ['insert', 'update', 'delete', 'truncate'].map((op) => `edge_request_counts_${op}`);

/**
 * The indexes usage.api-counts' daily count reads matching URLs and their counts by (sql/schema.sql).
 * Named here for what must remove them: the bench's baseline without them and the test of a store
 * built before them.
 */
export const USAGE_URL_INDEXES = ['edge_request_urls_url_trgm_idx', 'edge_request_urls_tail_trgm_idx', 'edge_request_counts_url_idx'];

// Same rule as config.ts: lower case so the quoted and unquoted spellings name the same schema,
// and at most 63 bytes because PostgreSQL silently truncates longer identifiers.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Double-quote an SQL identifier, doubling embedded quotes. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Throw (naming LOG_SCHEMA) unless `schema` is a plain lower-case identifier; return it quoted. */
export function checkSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`LOG_SCHEMA must be a plain lower-case identifier matching ^[a-z_][a-z0-9_]*$ (at most 63 characters), got "${schema}"`);
  }
  return quoteIdent(schema);
}

/** Create the log-store schema and its tables and indexes (sql/schema.sql); safe to run again. */
export async function applySchema(exec: AdminExec, schema: string): Promise<void> {
  const quoted = checkSchemaName(schema);
  const ddl = await readFile(new URL('../../sql/schema.sql', import.meta.url), 'utf8');
  // One multi-statement text, no parameters: with a pg pool every call may land on a different
  // connection, so the search_path must be set in the same round trip as the DDL. A multi-statement
  // query runs as one implicit transaction, so `set local` scopes the search_path to it and leaves
  // no trace on a pooled (or the single embedded) session; an error rolls the whole text back.
  await exec(`create schema if not exists ${quoted};\nset local search_path to ${quoted};\n${ddl}`);
}
