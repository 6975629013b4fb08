import pg from 'pg';
import { textParsers, type ResponseShape } from '../values/response-shape.ts';
import type { Engine, QueryOptions, Row } from '../engine.ts';
import { DEFAULT_MAX_RESULT_BYTES, resultTooLarge } from '../result-limit.ts';
import { optionsString, sessionSettings } from '../session-settings.ts';

export interface PgEngineOptions {
  connectionString: string;
  schema: string;
  statementTimeoutMs: number;
  poolMax: number;
  /** How long a request waits for a connection (new or from the pool) before `database_unavailable`. */
  connectTimeoutMs: number;
  /**
   * How long a statement may go without its answer before its connection is presumed dead (a
   * stopped or unreachable server sends nothing, so its statement timeout never answers either);
   * the caller gets `database_unavailable`. Default: statementTimeoutMs + 5 s.
   */
  readTimeoutMs?: number;
  /** Largest result, in bytes read off the socket during one statement; beyond it the statement is cut off. */
  maxResultBytes?: number;
  /** How values are encoded (COMPAT=logflare: Logflare's shape); standard when unset. */
  responseShape?: ResponseShape;
  /** Called for errors on idle connections (server restart, killed backend); they must not crash us. */
  onIdleError?: (err: Error) => void;
  /**
   * Keep stored queries' SQL prepared per connection (named statements, parsed once; each call is
   * still planned with its values: plan_cache_mode in session-settings.ts). Off for a pooler in
   * transaction mode without prepared-statement support. Default on.
   */
  preparedStatements?: boolean;
}
/** The driver's type parsers with ours (values/pg-text.ts) in front. */
function typesFor(shape: ResponseShape): pg.CustomTypesConfig {
  const parsers = textParsers(shape);
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => parsers[oid] ?? pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
  };
}

/** The session settings (session-settings.ts) as a startup-packet `options` string: one round trip per statement. */
export function sessionOptions(schema: string, statementTimeoutMs: number): string {
  return optionsString(sessionSettings(schema, statementTimeoutMs));
}

/** How the service's connections name themselves to the server (pg_stat_activity.application_name). */
export const APPLICATION_NAME = 'saved-query-endpoints';

/** The production engine: a `pg` pool against DATABASE_URL. Never writes. */
export function createPgEngine(opts: PgEngineOptions): Engine {
  const config: pg.PoolConfig = {
    connectionString: opts.connectionString,
    max: opts.poolMax,
    connectionTimeoutMillis: opts.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: APPLICATION_NAME,
    options: sessionOptions(opts.schema, opts.statementTimeoutMs),
    types: typesFor(opts.responseShape ?? 'standard'),
  };
  // A query stuck on a dead socket must still end: the server-side timeout plus a margin. Not pg's
  // own query_timeout: its timer holds the query, rows and all, past the call (see run()).
  const readTimeoutMs = opts.readTimeoutMs ?? opts.statementTimeoutMs + 5_000;
  const pool = new pg.Pool(config);
  pool.on('error', (err) => opts.onIdleError?.(err));
  const maxResultBytes = opts.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  // Clients that have answered a statement: a failure on one of these may be a connection that died while idle.
  const seasoned = new WeakSet<pg.PoolClient>();

  // Statement names by SQL text. Only stored queries' own SQL is named (QueryOptions.stored), a set
  // fixed at start-up, so this map and each connection's prepared statements stay that small.
  const names = new Map<string, string>();
  const prepare = opts.preparedStatements ?? true;
  const nameOf = (sql: string): string => {
    let name = names.get(sql);
    if (name === undefined) names.set(sql, (name = `endpoints_${names.size + 1}`));
    return name;
  };

  /** One try on one pooled connection; `name` set: run as that named (prepared) statement. */
  async function attempt(sql: string, params: readonly (string | null)[], signal: AbortSignal | undefined, timeoutMs: number | undefined, name: string | undefined): Promise<Attempt> {
    const client = await pool.connect();
    if (signal?.aborted) {
      // The caller left while we waited for a connection: don't spend the database on it.
      client.release();
      throw Object.assign(new Error('canceling statement due to user request'), { code: '57014' });
    }
    const reused = seasoned.has(client);
    let lost: Error | undefined;
    // pg-pool detaches its own 'error' listener while a client is checked out, and a socket that dies
    // mid-statement (backend crash, network reset) emits 'error': unheard, that would end the process.
    const onError = (err: Error) => {
      lost ??= err;
    };
    client.on('error', onError);
    // Until the finally below: a cancel that connects later than that is not sent (cancelStatement).
    const statement = { running: true };
    const onAbort = () => cancelStatement(config, client, statement);
    signal?.addEventListener('abort', onAbort, { once: true });
    // A shorter timeout than the session's: the same cancel request, so the server answers 57014.
    const timer = timeoutMs === undefined ? undefined : setTimeout(onAbort, timeoutMs);
    // The engine cuts the connection itself in two cases, and the statement then fails at once with
    // the error set here; it is never repeated, and the connection is not reused.
    // - The result byte limit, enforced as bytes arrive: pg buffers a whole DataRow before parsing
    //   it, so counting rows would be too late for one huge value (the backend stops when it next writes).
    // - No answer within the read timeout: the connection is presumed dead (the statement may have
    //   run its whole statement timeout).
    const stream = (client as unknown as { connection: { stream: NodeJS.ReadableStream & { destroy(): void } } }).connection.stream;
    let cutWith: Error | undefined;
    const cut = (why: Error) => {
      cutWith ??= why;
      stream.destroy();
    };
    const deadline = setTimeout(() => cut(new Error(READ_TIMEOUT)), readTimeoutMs);
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxResultBytes) cut(resultTooLarge(maxResultBytes));
    };
    stream.on('data', onData);
    try {
      const values = params as (string | null)[];
      const rows = await run(client, name === undefined ? { text: sql, values } : { name, text: sql, values });
      seasoned.add(client);
      return { ok: true, rows };
    } catch (err) {
      if (cutWith !== undefined || isConnectionLost(err)) lost ??= err instanceof Error ? err : new Error(String(err));
      if (cutWith !== undefined) return { ok: false, error: cutWith, retry: false };
      return { ok: false, error: err, retry: reused && lost !== undefined };
    } finally {
      statement.running = false;
      stream.off('data', onData);
      clearTimeout(deadline);
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      client.off('error', onError);
      // Releasing with an error destroys the client instead of pooling it.
      client.release(lost);
    }
  }

  async function query(sql: string, params: readonly (string | null)[], options: QueryOptions = {}): Promise<Row[]> {
    const name = options.stored === true && prepare ? nameOf(sql) : undefined;
    let result = await attempt(sql, params, options.signal, options.timeoutMs, name);
    // A pooled connection can die while idle (server restart, pg_terminate_backend, a proxy's idle
    // cut) a moment before its error event reaches the pool, so the next statement sent on it fails
    // at once. Every statement runs read-only, so running it again is safe. A restart kills every
    // idle connection at once, so the next one the pool hands out may be dead too: try again while
    // the failure was a reused connection found dead. Each is discarded, so this ends within the
    // pool's size; a connection made anew never retries, so a real outage still answers 503 promptly.
    for (let tries = 0; !result.ok && result.retry && !options.signal?.aborted && tries < opts.poolMax; tries++) {
      result = await attempt(sql, params, options.signal, options.timeoutMs, name);
    }
    if (result.ok) return result.rows;
    throw result.error;
  }

  return {
    name: 'pg',
    dialect: 'postgresql',
    concurrency: opts.poolMax,
    query,
    // On a connection of its own, outside the pool: /ready reflects whether the database answers,
    // not whether callers have every pooled connection busy.
    async ping() {
      // A one-off client: pg's own query_timeout is fine here (nothing it holds outlives the ping).
      const client = new pg.Client({ ...config, connectionTimeoutMillis: opts.connectTimeoutMs, query_timeout: readTimeoutMs });
      client.on('error', () => {});
      try {
        await client.connect();
        await client.query('select 1');
      } finally {
        await client.end().catch(() => {});
      }
    },
    async close() {
      await pool.end();
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: opts.poolMax }),
  };
}

type Attempt = { ok: true; rows: Row[] } | { ok: false; error: unknown; retry: boolean };

/**
 * Whether the client's connection is gone. Errors the server reports carry a severity and leave the
 * session usable, except FATAL/PANIC, after which the server closes it; socket and driver errors
 * (reset, "Connection terminated unexpectedly", read timeout) carry none.
 */
function isConnectionLost(err: unknown): boolean {
  const severity = (err as { severity?: unknown } | null)?.severity;
  return typeof severity !== 'string' || severity === 'FATAL' || severity === 'PANIC';
}

/** Message of the error for a statement whose answer did not come within the read timeout; db-errors.ts maps it to `database_unavailable`. */
const READ_TIMEOUT = 'Query read timeout';

/**
 * `client.query` in its callback form. Its promise form (pg 8.23: a promise with `.catch` chained
 * on) left each call's rows reachable from already-promoted garbage, so every uncached answer was
 * copied by the next scavenge and promoted by the one after. Measured with `--trace-gc-nvp` on a
 * loop of pool.connect, query, release of logs.all: ~700 KB promoted per scavenge and 1.0-1.4 ms
 * pauses in the promise form, ~2 KB and 0.2 ms in this one (pg's query_timeout timer, which holds
 * the query, did the same; hence the engine's own read timeout).
 */
function run(client: pg.PoolClient, config: pg.QueryConfig<(string | null)[]>): Promise<Row[]> {
  return new Promise((resolve, reject) => {
    client.query(config, (err: Error | undefined, result: pg.QueryResult) => (err ? reject(err) : resolve(result.rows as Row[])));
  });
}

/**
 * Ask the server to cancel the statement running on `client`: the protocol's CancelRequest with
 * the backend's key, on a connection of its own that the server closes after reading it
 * (PostgreSQL's protocol documentation, "Canceling Requests in Progress"), as `pg`'s own
 * `Client.cancel` sends it. Not through that: it reads the deprecated `Client.activeQuery`, and pg
 * 8.23 prints a DeprecationWarning on stderr, outside the JSON log. The request is sent only if
 * the statement is still running once that connection is open: sent later, it could reach the
 * backend after the connection was back in the pool and running another caller's statement.
 */
export function cancelStatement(config: pg.PoolConfig, client: pg.Client, statement: { readonly running: boolean }): void {
  const { processID, secretKey } = client as unknown as { processID: number | null; secretKey: number | null };
  if (processID === null || secretKey === null || !statement.running) return;
  // A Client only for its parsed host and port and its Connection; it never starts up.
  const canceller = new pg.Client(config) as unknown as { host: string; port: number; connection: CancelConnection };
  const con = canceller.connection;
  con.on('error', () => {});
  con.once('connect', () => {
    // Closed unused: the server logs nothing for a connection that sent no bytes.
    if (statement.running) con.cancel(processID, secretKey);
    else con.stream.destroy();
  });
  if (canceller.host.startsWith('/')) con.connect(`${canceller.host}/.s.PGSQL.${canceller.port}`);
  else con.connect(canceller.port, canceller.host);
}

/** The part of pg's Connection (pg/lib/connection.js) a cancel uses. */
interface CancelConnection {
  on(event: 'error', listener: (err: Error) => void): void;
  once(event: 'connect', listener: () => void): void;
  connect(port: number | string, host?: string): void;
  cancel(processID: number, secretKey: number): void;
  stream: { destroy(): void };
}
