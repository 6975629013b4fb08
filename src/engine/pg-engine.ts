import pg from 'pg';
import { TEXT_PARSERS } from '../encode.ts';
import type { Engine, QueryOptions, Row } from './engine.ts';

export interface PgEngineOptions {
  connectionString: string;
  schema: string;
  statementTimeoutMs: number;
  poolMax: number;
  /** How long a request waits for a connection (new or from the pool) before `database_unavailable`. */
  connectTimeoutMs: number;
  /** Called for errors on idle connections (server restart, killed backend); they must not crash us. */
  onIdleError?: (err: Error) => void;
}

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    return TEXT_PARSERS[oid] ?? pg.types.getTypeParser(oid, format);
  },
};

/**
 * Session settings sent in the startup packet, so every statement is a single round trip yet runs
 * in a read-only transaction, with a statement timeout, UTC output and a fixed search_path.
 * Values are validated identifiers and integers (config.ts), so no escaping is needed.
 */
export function sessionOptions(schema: string, statementTimeoutMs: number): string {
  return [
    '-c default_transaction_read_only=on',
    `-c statement_timeout=${statementTimeoutMs}`,
    '-c TimeZone=UTC',
    `-c search_path=${schema}`,
    // A caller's sandboxed SQL may not hold locks or idle inside a transaction for long either.
    `-c lock_timeout=${statementTimeoutMs}`,
    `-c idle_in_transaction_session_timeout=${Math.max(statementTimeoutMs, 60_000)}`,
  ].join(' ');
}

/** The production engine: a `pg` pool against DATABASE_URL. Never writes. */
export function createPgEngine(opts: PgEngineOptions): Engine & { pool: pg.Pool } {
  const config: pg.PoolConfig = {
    connectionString: opts.connectionString,
    max: opts.poolMax,
    connectionTimeoutMillis: opts.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: 'saved-query-endpoints',
    options: sessionOptions(opts.schema, opts.statementTimeoutMs),
    types,
    // A query stuck on a dead socket must still end: the server-side timeout plus a margin.
    query_timeout: opts.statementTimeoutMs + 5_000,
  };
  const pool = new pg.Pool(config);
  pool.on('error', (err) => opts.onIdleError?.(err));

  async function query(sql: string, params: readonly (string | null)[], options: QueryOptions = {}): Promise<Row[]> {
    const client = await pool.connect();
    let broken: Error | undefined;
    const onAbort = () => cancel(config, client);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await client.query({ text: sql, values: params as (string | null)[] });
      return result.rows as Row[];
    } catch (err) {
      // A connection-level failure means this client is unusable; destroy it instead of pooling it.
      if (!(err instanceof Error) || !('severity' in err)) broken = err instanceof Error ? err : new Error(String(err));
      throw err;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      client.release(broken);
    }
  }

  return {
    name: 'pg',
    pool,
    query,
    async ping() {
      await query('select 1', []);
    },
    async close() {
      await pool.end();
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: opts.poolMax }),
  };
}

/**
 * Ask the server to cancel the statement running on `client` (the protocol's CancelRequest, sent on
 * a fresh connection with the backend's key). `pg` does this for its native client only, so use
 * its JS client's cancel routine directly.
 */
function cancel(config: pg.PoolConfig, client: pg.PoolClient): void {
  const c = client as unknown as { activeQuery?: unknown };
  if (c.activeQuery === undefined || c.activeQuery === null) return;
  const canceller = new pg.Client(config) as unknown as { cancel(target: unknown, q: unknown): void; connection: { on(e: string, f: (err: Error) => void): void; end(): void } };
  canceller.connection.on('error', () => {});
  canceller.cancel(client, c.activeQuery);
}
