import { PGlite } from '@electric-sql/pglite';
import { TEXT_PARSERS } from '../query/encode.ts';
import type { AdminExec, Engine, Row } from './engine.ts';

export interface PgliteEngineOptions {
  /** Directory of the embedded store; in memory when null. */
  dataDir: string | null;
  schema: string;
  statementTimeoutMs: number;
}

/**
 * The embedded engine: PostgreSQL compiled to WASM, in this process. It runs the same SQL files.
 * One connection: PGlite serialises statements itself. Known limit: it has no timer interrupts, so
 * `statement_timeout` is set but cannot fire; the embedded store is for demos, development and
 * tests, and production runs on PostgreSQL through `pg`.
 */
export async function createPgliteEngine(opts: PgliteEngineOptions): Promise<{ engine: Engine; admin: AdminExec; db: PGlite }> {
  const db = opts.dataDir === null ? new PGlite({ parsers: TEXT_PARSERS }) : new PGlite(opts.dataDir, { parsers: TEXT_PARSERS });
  await db.waitReady;
  // The same session settings the pg engine sends at connect time (pg-engine.ts sessionOptions).
  await db.exec(
    `set TimeZone = 'UTC'; set search_path = ${opts.schema}; set statement_timeout = ${opts.statementTimeoutMs};` +
      ` set default_transaction_read_only = on;`,
  );
  let closed = false;

  const engine: Engine = {
    name: 'pglite',
    async query(sql, params) {
      if (closed) throw new Error('Connection terminated: the embedded database is closed');
      const result = await db.query<Row>(sql, params as (string | null)[]);
      return result.rows;
    },
    async ping() {
      await engine.query('select 1', []);
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.close();
    },
  };

  // Writes (schema, demo data, test fixtures) opt out of the session's read-only default explicitly.
  const admin: AdminExec = (sql, params) =>
    db.transaction(async (tx) => {
      await tx.exec('set transaction read write');
      return params === undefined ? tx.exec(sql) : tx.query(sql, params as unknown[]);
    });

  return { engine, admin, db };
}
