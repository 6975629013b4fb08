/**
 * The log writer on ClickHouse: one insert per ingest request, of the rows ingest made (event-row.ts)
 * as lines of TabSeparated input (clickhouse-admin.ts logLine, as the demo rows are written).
 * MergeTree has no unique ids, so a resent batch is kept once by `insert_deduplication_token`: the
 * request's batch key (WriteTurn.batchKey: its table and the digest of its body as sent), with the
 * tables' deduplication window (schema.ts). Answered only once ClickHouse has the rows (a
 * synchronous insert).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { LogRow } from '../schema.ts';
import type { LogWriter, WriteTurn } from '../engine.ts';
import { fromClickHouse } from './errors.ts';
import { insertLines, logLine } from './clickhouse-admin.ts';

export interface ClickHouseWriterOptions {
  client: ClickHouseClient;
  /** chdb reports no written-row counts: every row of an accepted insert is counted as stored. */
  embedded: boolean;
  concurrency: number;
  statementTimeoutMs: number;
  onClose(): Promise<void>;
}

export function createClickHouseWriter(o: ClickHouseWriterOptions): LogWriter {
  return Object.freeze({
    concurrency: o.concurrency,
    sharesEngine: false,
    async write(table: string, params: readonly unknown[], turn?: WriteTurn): Promise<number> {
      // The rows themselves (statements.ts insertParams), not their JSON text: no second parse.
      const rows = params[0] as readonly LogRow[];
      let lines = '';
      for (const r of rows) lines += logLine(r.id, r.timestamp, r.event_message, r.project, r.metadata);
      try {
        const result = await insertLines(o.client, table, lines, {
          max_execution_time: o.statementTimeoutMs / 1000,
          ...(turn?.batchKey === undefined ? {} : { insert_deduplication_token: turn.batchKey }),
        });
        // A server says how many rows it wrote: none for a batch it already had.
        return o.embedded ? rows.length : Number(result.summary?.written_rows ?? rows.length);
      } catch (err) {
        throw fromClickHouse(err);
      }
    },
    close: () => o.onClose(),
  });
}
