/**
 * The ClickHouse engine (docs/clickhouse.md): the Engine interface over one `@clickhouse/client`
 * client, whether it talks HTTP to a server or runs ClickHouse in-process through chdb's connection
 * (client.ts). Statements are the stored queries' ClickHouse files, their `{pN:Type}` placeholders
 * bound from `params` as query parameters: values never enter SQL text.
 */
import { randomUUID } from 'node:crypto';
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import { textParsers, type ResponseShape } from '../values/response-shape.ts';
import type { Engine, QueryOptions, ResultColumns, Row } from '../engine.ts';
import { resultTooLarge } from '../result-limit.ts';
import { fromClickHouse } from './errors.ts';
import { rowDecoders } from './row-decoder.ts';

export interface ClickHouseEngineOptions {
  /** Runs the service's statements. */
  client: ClickHouseClient;
  /**
   * Runs caller sql (printed by src/sql/clickhouse/), read-only with the caller limits: on chdb a
   * connection of its own, since settings stick to a chdb session; on a server the same client,
   * the settings being per query there.
   */
  callerClient: ClickHouseClient;
  /** Stops them (KILL QUERY): on chdb a second connection, since the first is busy with the statement. */
  admin: ClickHouseClient;
  embedded: boolean;
  statementTimeoutMs: number;
  /** Statements at once: the server pool's size, 1 in-process (chdb runs one at a time). */
  concurrency: number;
  maxResultBytes: number;
  responseShape?: ResponseShape;
  /** Runs when the engine closes (the clients, the temporary data directory). */
  onClose(): Promise<void>;
}

/** ClickHouse's TOO_MANY_ROWS_OR_BYTES, as the client reports it: max_result_bytes was passed. */
const RESULT_OVERFLOW = '396';

/** A statement's id and tag, as randomUUID makes them: the one shape KILL may name. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A result with nothing its ClickHouse types cannot say. */
const NO_COLUMNS: ResultColumns = Object.freeze({ json: new Set<string>(), timestamps: new Set<string>() });

/**
 * Settings every statement carries (docs/clickhouse.md, "What differs"): PostgreSQL's meaning where
 * ClickHouse's default differs (NULL for an unmatched outer join and for an aggregate of no rows, a
 * column's name over an alias's), and 64-bit integers quoted so they reach JSON exactly.
 */
const SESSION_SETTINGS = Object.freeze({
  date_time_output_format: 'simple',
  output_format_json_quote_64bit_integers: 1,
  output_format_json_quote_decimals: 1,
  join_use_nulls: 1,
  aggregate_functions_null_for_empty: 1,
  prefer_column_name_to_alias: 1,
} as const);

/**
 * What caller statements run under besides SESSION_SETTINGS, whatever their text (which is the
 * service's own printing, never the caller's): readonly = 1, the one mode in which ClickHouse refuses
 * table functions (file(), url(), remote()) as well as writes and SET, last, so the settings before it
 * still apply; memory and rows read bounded (the statement timeout bounds the rest).
 */
const CALLER_LIMITS = Object.freeze({
  // Within the ceiling of the query user's profile that docs/clickhouse.md gives (a setting past a
  // profile's MAX is refused, statement and all).
  max_memory_usage: String(4_000_000_000),
  max_rows_to_read: String(10_000_000_000),
  read_overflow_mode: 'throw',
} as const);

export function createClickHouseEngine(o: ClickHouseEngineOptions): Engine {
  const parsers = textParsers(o.responseShape ?? 'standard');
  let closed = false;

  /**
   * Stop a statement the caller no longer waits for: on a server by its query_id (the query user
   * needs SELECT on system.processes, docs/clickhouse.md); on chdb, which has no query_id, by its tag
   * (tagged below), written into the KILL: chdb runs statements with query parameters one at a time
   * process-wide, so a parameterised KILL would wait behind the very statement it stops (measured:
   * 15 s, the statement's own timeout). The tag is our UUID, never caller text.
   */
  const kill = (id: string): void => {
    if (!UUID.test(id)) return;
    const statement = o.embedded
      ? { query: `KILL QUERY WHERE query LIKE '%''sqe:${id}''%' AND NOT startsWith(query, 'KILL') ASYNC` }
      : { query: 'KILL QUERY WHERE query_id = {tag:String} ASYNC', query_params: { tag: id } };
    o.admin.command(statement).catch(() => {});
  };

  /**
   * On chdb the statement carries its tag as a bound, unused WITH alias: chdb formats a statement
   * with parameters anew (comments gone) and its system.processes shows that text, literals bound.
   * Our statements begin with SELECT or WITH (the stored calls' row-limit wrapper, printed caller
   * sql); another is sent untagged, and stops at its timeout.
   */
  const tagged = (sql: string): string | null => {
    const first = /^\s*(with|select)\b/i.exec(sql);
    if (first === null) return null;
    // A WITH clause of its own takes the tag as its first element.
    return first[1]!.toLowerCase() === 'with' ? `WITH {sqe_tag:String} AS sqe_tag, ${sql.slice(first[0].length)}` : `WITH {sqe_tag:String} AS sqe_tag ${sql}`;
  };

  /**
   * What a statement runs under: SESSION_SETTINGS, its timeout and result limit, and for caller sql
   * CALLER_LIMITS with readonly = 1 last.
   */
  const settingsFor = (caller: boolean, timeoutMs: number): ClickHouseSettings => ({
    ...SESSION_SETTINGS,
    max_execution_time: timeoutMs / 1000,
    max_result_bytes: String(o.maxResultBytes),
    result_overflow_mode: 'throw',
    // A server: the whole answer before its first byte, so an error while rows are produced
    // is an HTTP error, not text after half a JSON document.
    ...(o.embedded ? {} : { wait_end_of_query: 1 }),
    ...(caller ? { ...CALLER_LIMITS, readonly: '1' } : {}),
  });

  /**
   * chdb keeps a session's settings (and readonly = 1 refuses changing them), and its connection
   * sends a setting as a SET statement before each statement (~0.5 ms for these): each of the two
   * connections gets its settings once, before its first statement, with the engine's ceiling as
   * max_execution_time; a shorter timeout is kept by stopping the statement (it then fails with
   * 57014, as a timeout does).
   */
  let primed: Promise<void> | null = null;
  const prime = async (): Promise<void> => {
    await o.client.command({ query: 'SELECT 1', clickhouse_settings: settingsFor(false, o.statementTimeoutMs) });
    await o.callerClient.command({ query: 'SELECT 1', clickhouse_settings: settingsFor(true, o.statementTimeoutMs) });
  };

  async function query(sql: string, params: readonly (string | null)[], options: QueryOptions = {}): Promise<Row[]> {
    if (closed) throw new Error('embedded database is closed');
    const id = randomUUID();
    const timeoutMs = Math.min(options.timeoutMs ?? o.statementTimeoutMs, o.statementTimeoutMs);
    const query_params: Record<string, string | null> = {};
    params.forEach((v, i) => (query_params[`p${i + 1}`] = v));
    const onAbort = () => kill(id);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const caller = options.stored === false;
    const timer = o.embedded && timeoutMs < o.statementTimeoutMs ? setTimeout(() => kill(id), timeoutMs) : undefined;
    try {
      if (options.signal?.aborted) throw Object.assign(new Error('canceling statement due to user request'), { code: '57014' });
      if (o.embedded) await (primed ??= prime().catch((err: unknown) => { primed = null; throw err; }));
      const tag = o.embedded ? tagged(sql) : null;
      if (tag !== null) query_params['sqe_tag'] = `sqe:${id}`;
      const result = await (caller ? o.callerClient : o.client).query({
        query: tag ?? sql,
        query_id: id,
        query_params,
        format: 'JSON',
        ...(o.embedded ? {} : { clickhouse_settings: settingsFor(caller, timeoutMs) }),
      });
      const text = await result.text();
      if (Buffer.byteLength(text) > o.maxResultBytes) throw resultTooLarge(o.maxResultBytes);
      const body = JSON.parse(text) as { meta: { name: string; type: string }[]; data: Record<string, unknown>[] };
      const decoders = rowDecoders(body.meta, options.columns ?? NO_COLUMNS, options.stored !== true, parsers);
      const names = body.meta.map((m) => m.name);
      return body.data.map((raw) => {
        const row: Row = {};
        for (let i = 0; i < names.length; i++) row[names[i]!] = decoders[i]!(raw[names[i]!]);
        return row;
      });
    } catch (err) {
      // Past max_result_bytes: the same answer as PostgreSQL's engines give (result_too_large).
      const mapped = (err as { code?: unknown } | null)?.code === RESULT_OVERFLOW ? resultTooLarge(o.maxResultBytes) : fromClickHouse(err);
      // chdb: a statement that failed after its output began (an error while rows stream, its
      // timeout, a KILL) leaves that output on the connection, where the next statement's answer
      // would begin with it, and a killed one runs on until it notices: a throwaway statement takes
      // both, and the turn is not given up before it has (reproduced on chdb 3.4).
      if (o.embedded) await (caller ? o.callerClient : o.client).query({ query: 'SELECT 1', format: 'JSON' }).then((r) => r.text()).catch(() => {});
      throw mapped;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    name: o.embedded ? 'chdb' : 'clickhouse',
    dialect: 'clickhouse',
    concurrency: o.concurrency,
    query,
    async ping() {
      const r = await o.client.ping();
      if (!r.success) throw fromClickHouse(r.error);
    },
    async close() {
      if (closed) return;
      closed = true;
      await o.onClose();
    },
  };
}
