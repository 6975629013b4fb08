import { HttpError } from '../shared/errors.ts';
import { RESULT_TOO_LARGE } from './result-limit.ts';
import { STORE_RETRY_AFTER_SECONDS } from './store-check.ts';

/** What the request was doing when the database failed, to attribute the error correctly. */
export interface DbErrorContext {
  /** The request carried sandboxed caller SQL (its runtime errors are the caller's, 400). */
  callerSql: boolean;
  /** Name of the stored query's regular-expression parameter, if it has one. */
  regexParam: string | undefined;
  /** The call's declared parameters and their values, to name the one a data error is about. */
  params?: Readonly<Record<string, string | null>>;
  /** The parameter a data error that quotes no value is about, by SQLSTATE (registry.ts: a negative LIMIT). */
  sqlstateParams?: Readonly<Record<string, string>>;
}

// Node socket errors and pg's own messages for a connection that could not be made or was lost.
const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOENT']);
// "Query read timeout": no answer within statement timeout + margin, so the connection is presumed dead.
const CONNECTION_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|connection (?:is )?closed|Client has encountered a connection error|Client was closed and is not queryable|Query read timeout|Cannot use a pool after calling end|the database system is (?:starting up|shutting down|in recovery mode)|embedded database is closed/i;

const RETRY_AFTER_SECONDS = '2';

/** The 503 for a database that cannot answer now, with the Retry-After every such answer carries. */
export function databaseUnavailable(cause: unknown, message?: string): HttpError {
  return new HttpError('database_unavailable', message, { headers: { 'Retry-After': RETRY_AFTER_SECONDS }, cause });
}

/** Map an error thrown by an engine to the HttpError of src/shared/errors.ts; unknown errors are returned as `internal`. */
export function mapDbError(err: unknown, ctx: DbErrorContext): HttpError {
  if (err instanceof HttpError) return err;
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : String(err);
  const unavailable = () => databaseUnavailable(err);

  if (code === RESULT_TOO_LARGE) return new HttpError('result_too_large', `The result is too large: ${message}; select fewer or smaller values.`, { cause: err });
  if (CONNECTION_ERRNOS.has(code) || (code === '' && CONNECTION_MESSAGES.test(message))) return unavailable();
  if (!/^[0-9A-Z]{5}$/.test(code)) return new HttpError('internal', undefined, { cause: err });

  // SQLSTATE classes (PostgreSQL manual, appendix A).
  const cls = code.slice(0, 2);
  if (code === '57014') return new HttpError('query_timeout', undefined, { cause: err }); // query_canceled: statement timeout or our cancel
  // Resources a statement exhausted by what it computes (memory, temp files, string and row sizes):
  // with caller SQL that is the caller's doing, a 400, not an outage or an internal error.
  if (ctx.callerSql && (code === '53200' || code === '53400' || cls === '54' || (code === 'XX000' && /invalid memory alloc request size|out of memory/i.test(message)))) {
    return new HttpError('resource_limit', `The query exceeded a database resource limit: ${message}`, { cause: err });
  }
  if (cls === '08' || cls === '53' || code === '57P01' || code === '57P02' || code === '57P03' || code === '3D000' || code === '28000' || code === '28P01') {
    return unavailable(); // connection exception, insufficient resources, shutdown, missing database or role
  }
  if (code === '2201B' && ctx.regexParam !== undefined && !ctx.callerSql) {
    return new HttpError('invalid_parameter', `Parameter "${ctx.regexParam}" is not a valid regular expression: ${message}`, {
      param: ctx.regexParam,
      cause: err,
    });
  }
  // A data exception in a stored query's own statement comes from a value the caller sent (a
  // parameter cast in SQL: `@limit::int` given "abc"): the caller's 400, naming that parameter.
  if (cls === '22' && !ctx.callerSql) {
    const param = culprit(message, ctx.params) ?? ctx.sqlstateParams?.[code];
    return new HttpError('invalid_parameter', `${param === undefined ? 'A parameter' : `Parameter "${param}"`} has a value the stored query cannot use: ${message}`, {
      ...(param === undefined ? {} : { param }),
      cause: err,
    });
  }
  // The log schema's own helper (sql/schema.sql), missing from a store made before it existed.
  if (code === '42883' && /\btry_jsonb\(/.test(message)) {
    return new HttpError('store_not_ready', `The log store lacks the function try_jsonb(text) that BigQuery's JSON functions use (${message}): apply the schema again (node dist/main.js schema; it keeps every row).`, {
      headers: { 'Retry-After': STORE_RETRY_AFTER_SECONDS },
      cause: err,
    });
  }
  if (ctx.callerSql && cls !== 'XX' && cls !== '58') {
    return new HttpError('query_error', `The database rejected the query: ${message}`, { cause: err });
  }
  return new HttpError('internal', undefined, { cause: err });
}

/**
 * The parameter a data error is about: PostgreSQL quotes the offending input (`invalid input
 * syntax for type integer: "abc"`), so the one parameter whose value it quotes; none when no
 * value, or more than one, is quoted.
 */
function culprit(message: string, params: Readonly<Record<string, string | null>> | undefined): string | undefined {
  const quoted = Object.entries(params ?? {}).filter(([, v]) => v !== null && message.includes(`"${v}"`));
  return quoted.length === 1 ? quoted[0]![0] : undefined;
}
