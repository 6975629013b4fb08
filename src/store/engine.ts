/** One row as the engine returns it: column name → JS value (already encoded for JSON, see encode.ts). */
export type Row = Record<string, unknown>;

/** The SQL a store reads: the stored queries have one file per dialect (registry.ts). */
export type StoreDialect = 'postgresql' | 'clickhouse';

/** The small interface every engine (pg pool, embedded PGlite, ClickHouse server or chdb) implements. */
export interface Engine {
  readonly name: 'pg' | 'pglite' | 'clickhouse' | 'chdb';
  readonly dialect: StoreDialect;
  /** Statements it runs at once (its pool's connections; 1 for one session): the queue in front of it fills these. */
  readonly concurrency: number;
  /**
   * Run one read-only statement with positional text parameters (`$1`… in PostgreSQL, `{p1:Type}`…
   * in ClickHouse); values never enter SQL text.
   */
  query(sql: string, params: readonly (string | null)[], options?: QueryOptions): Promise<Row[]>;
  /** Resolve when the database answers a trivial query; reject otherwise. */
  ping(): Promise<void>;
  /** Release connections; further queries fail. */
  close(): Promise<void>;
  /**
   * While the engine cannot start a statement (the embedded engine replacing a worker): a promise
   * that settles when it can. The fair queue keeps the turn of the statement that caused it until
   * then, so its owner, not the next one, is charged the wait. Undefined when ready.
   */
  notReady?(): Promise<void> | undefined;
  /** Connection pool occupancy for /metrics; an engine without a pool leaves it out. */
  poolStats?(): PoolStats;
}

/** Connections by state: `total - idle` are running a statement; `waiting` callers queue for one. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export interface QueryOptions {
  /** Aborting cancels the statement on the server (client went away). */
  signal?: AbortSignal;
  /** A statement timeout shorter than the session's, for this statement (57014 when it fires). */
  timeoutMs?: number;
  /**
   * true: the SQL text is a stored query's own, one of a small fixed set: an engine may keep it
   * prepared on each connection instead of parsing it on every call. false: it carries caller sql
   * (ClickHouse runs it read-only, with the caller limits). Unset: the service's own statements.
   */
  stored?: boolean;
  /** What the result's column types cannot say on ClickHouse (PostgreSQL's types say it themselves). */
  columns?: ResultColumns;
}

/**
 * Result columns by what they hold, where a store's types cannot tell: JSON text to splice as JSON
 * (a stored query's declared object and array columns, or what caller sql's printer typed jsonb) and
 * timestamps without time zone (ClickHouse has one DateTime type for both).
 */
export interface ResultColumns {
  readonly json: ReadonlySet<string>;
  readonly timestamps: ReadonlySet<string>;
}

/** A privileged handle for schema, seeding and test fixtures: never used on the request path. */
export interface AdminExec {
  (sql: string, params?: readonly unknown[]): Promise<unknown>;
}

/**
 * Writes to the log tables (ingest and retention): never the query path's connections, role or
 * read-only sessions. PostgreSQL: its own small pool on INGEST_DATABASE_URL (pg-writer.ts); the
 * embedded store: its one session, shared with queries (pglite-engine.ts); ClickHouse: its own
 * client (clickhouse/clickhouse-writer.ts).
 */
export interface LogWriter {
  /** Statements it runs at once (queue/queued-writer.ts fills these). */
  readonly concurrency: number;
  /** It writes through the engine's own session (the embedded store), so it shares the engine's queue. */
  readonly sharesEngine: boolean;
  /** Run one statement in its own read-write transaction; resolve with the rows it affected. */
  write(sql: string, params: readonly unknown[], turn?: WriteTurn): Promise<number>;
  close(): Promise<void>;
}

/** Whom a write is for, as the queue in front of the writer orders it (queue/queued-writer.ts). */
export interface WriteTurn {
  /** The ingest token's principal, or the service's own for retention. */
  owner: object;
  /** Retention: runs only when no ingest batch waits. */
  background?: boolean;
  /** Fires when the sender goes away: a queued write leaves the queue. */
  signal?: AbortSignal;
  /**
   * Names the request's rows (a digest of what was sent): a store without unique ids (ClickHouse)
   * keeps a resent batch once by it. PostgreSQL's `on conflict do nothing` needs none.
   */
  batchKey?: string;
}
