/**
 * The log writer on PostgreSQL: its own small pool on INGEST_DATABASE_URL, as a role that may only
 * insert into (and, for retention, delete from) the log tables. The query pool keeps its read-only
 * role and sessions; a burst of ingest can take no more than these connections from the server.
 */
import pg from 'pg';
import type { LogWriter } from '../engine.ts';
import { APPLICATION_NAME } from './pg-engine.ts';
import { optionsString, writerSessionSettings } from '../session-settings.ts';

export interface PgWriterOptions {
  connectionString: string;
  schema: string;
  poolMax: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  onIdleError?: (err: Error) => void;
}

export function createPgWriter(opts: PgWriterOptions): LogWriter {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.poolMax,
    connectionTimeoutMillis: opts.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: `${APPLICATION_NAME} (ingest)`,
    options: optionsString(writerSessionSettings(opts.schema, opts.statementTimeoutMs)),
  });
  pool.on('error', (err) => opts.onIdleError?.(err));
  return Object.freeze({
    concurrency: opts.poolMax,
    sharesEngine: false,
    async write(sql: string, params: readonly unknown[]): Promise<number> {
      // One statement is its own transaction (autocommit): answered only once committed.
      const result = await pool.query(sql, params as unknown[]);
      return result.rowCount ?? 0;
    },
    close: () => pool.end(),
  });
}
