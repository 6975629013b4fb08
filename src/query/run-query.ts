/**
 * One stored-query call, after routing and auth: params → cache → bind → engine → max rows →
 * redact → encode. The per-request policy lives here and only here: whether the call is cached
 * (and so whether its caller may cancel it), how max rows and redaction apply.
 */
import { performance } from 'node:perf_hooks';
import { HttpError } from '../shared/errors.ts';
import type { Engine, ResultColumns } from '../store/engine.ts';
import { mapDbError } from '../store/db-errors.ts';
import { cacheKey } from './cache/cache-key.ts';
import type { CachedPolicy } from './cache/cache-policy.ts';
import type { CacheStatus, ResultCache } from './cache/result-cache.ts';
import { encodeResult } from './encode-result.ts';
import { encodedResult, type EncodedResult } from './encoded-result.ts';
import { validateParams, type RawParams } from './params.ts';
import { applyRedaction } from './redaction.ts';
import { structValues } from './struct-columns.ts';
import type { StoredQuery } from './registry.ts';
import type { Dialect } from '../sql/dialect.ts';
import type { Format } from './formats.ts';
import type { FairQueue, Promotion, TurnOptions } from '../queue/fair-queue.ts';
import type { StoreCheck } from '../store/store-check.ts';

/** Who is calling and how to notice that they left: per request, never part of a prepared call. */
export interface QueryCaller {
  /** A signal that fires when the caller goes away; asked for only when the call may be cancelled. */
  clientGone(): AbortSignal;
}

/** The outcome of one call, ready to be written by the HTTP layer. */
export interface QueryAnswer {
  result: EncodedResult;
  /** `bypass`: caching disabled for this stored query. */
  cache: CacheStatus | 'bypass';
  ageMs: number;
  ttlRemainingMs: number;
  /** Milliseconds spent translating caller sql, when it was translated for this call. */
  translateMs: number | undefined;
}

export interface QueryDeps {
  engine: Engine;
  cache: ResultCache;
  /** Turns on the engine's connections, fair between tokens (queue/fair-queue.ts). */
  queue: FairQueue;
  /** Statement timeout for calls carrying caller SQL or a regular-expression parameter (ms). */
  callerStatementTimeoutMs: number;
  /** The dialect caller sql is written in. */
  dialect: Dialect;
  /** Says whether a failed call failed because the store lacks what the stored query reads. */
  store: StoreCheck;
}

/** The statement a call runs and its bound values: parameters validated, caller SQL composed, max rows applied. */
export interface BoundStatement {
  sql: string;
  params: (string | null)[];
  /** Declared parameter → canonical value (the cache key's part). */
  values: Readonly<Record<string, string | null>>;
  /** Milliseconds spent translating caller sql (BigQuery dialect, first time that text was seen). */
  translateMs: number | undefined;
  /** Caller sql on ClickHouse: what its output columns' types cannot say. */
  columns?: ResultColumns;
}

/** Validate and bind; throws the 400s of bad parameters and refused caller SQL. */
export function bindStatement(q: StoredQuery, raw: RawParams, callerSql: string | null, dialect: Dialect): BoundStatement {
  if (callerSql !== null && q.sandbox === null) throw new HttpError('sandbox_disabled');
  const values = validateParams(q.params, raw, q.unknownParams, q.requestKeys);
  if (callerSql === null || q.sandbox === null) return { ...q.statementFor(values), values, translateMs: undefined };
  const composed = dialect.compose(q.sandbox, callerSql);
  return { sql: q.rowLimit.wrap(composed.sql), params: q.bindValues(values), values, translateMs: composed.translateMs, ...(composed.columns ? { columns: composed.columns } : {}) };
}

/**
 * Everything about a call that follows from the stored query, its parameters, the caller's sql and
 * whether the answer is redacted: the bound statement, its cache key and the load that fills the
 * entry. Built once per distinct call (prepared-calls.ts memoises those of GET requests), so a
 * cache hit allocates neither a key nor a closure.
 */
export interface PreparedCall {
  statement: Statement;
  /** The cache entry's key and the policy it is kept under; null when the stored query is not cached. */
  cached: { key: string; policy: CachedPolicy } | null;
  /** The warming load, kept with the cache entry: a background turn, raised when a caller waits for it. */
  load: (promotion?: Promotion) => Promise<EncodedResult>;
  /** Milliseconds spent translating caller sql for this call, when it was translated now. */
  translateMs: number | undefined;
  /** The format the request's `format` parameter names; null: decided by its Accept header. */
  format: Format | null;
}

/** What a request supplies for a call: parameter values, and its optional `sql` and `format`. */
export interface CallInput {
  raw: RawParams;
  sql: string | null;
  format: Format | null;
}

/** Validate, bind and decide; throws the 400s of bad parameters and refused caller SQL. */
export function prepareCall(q: StoredQuery, input: CallInput, redact: boolean, deps: Pick<QueryDeps, 'engine' | 'dialect' | 'callerStatementTimeoutMs' | 'store' | 'queue'>): PreparedCall {
  const callerSql = input.sql;
  const { sql, params, values, translateMs, columns } = bindStatement(q, input.raw, callerSql, deps.dialect);
  // What the caller controls (its SQL, a regular expression) gets the shorter statement timeout.
  const timeoutMs = callerSql !== null || q.regexParam !== undefined ? deps.callerStatementTimeoutMs : undefined;
  const statement: Statement = { q, sql, params, values, redact, timeoutMs, callerSql: callerSql !== null, columns: callerSql === null ? q.resultColumns : columns };
  const policy = q.cachePolicy;
  const cached = policy.cached ? { key: cacheKey({ queryId: q.id, params: values, declaredOrder: q.paramOrder, sql: callerSql, redact }), policy } : null;
  const { engine, store, queue } = deps;
  const load = (promotion?: Promotion) => queue.run(WARMING, () => loadResult(engine, store, statement), { cls: 'warming', background: true, ...(promotion ? { promotion } : {}) });
  return { statement, cached, load, translateMs, format: input.format };
}

/**
 * Run a prepared call. A cached call whose entry is fresh is answered synchronously, so the common
 * case makes no promise; anything else is loaded from the engine: through the cache's single
 * flight when cached, cancellable by its caller when not.
 */
export function runQuery(deps: QueryDeps, call: PreparedCall, caller: QueryCaller, owner: object): QueryAnswer | Promise<QueryAnswer> {
  return cachedAnswer(deps, call) ?? loadAnswer(deps, call, caller, owner);
}

/** The answer of a cached call whose entry is fresh; undefined when it has to be loaded. */
function cachedAnswer(deps: Pick<QueryDeps, 'cache'>, call: PreparedCall): QueryAnswer | undefined {
  const { cached } = call;
  if (cached === null) return undefined;
  const hit = deps.cache.hit(cached.key, cached.policy, call.load);
  return hit === undefined ? undefined : { result: hit.result, cache: 'hit', ageMs: hit.ageMs, ttlRemainingMs: hit.ttlRemainingMs, translateMs: call.translateMs };
}

async function loadAnswer(deps: QueryDeps, call: PreparedCall, caller: QueryCaller, owner: object): Promise<QueryAnswer> {
  const { statement, cached, translateMs } = call;
  if (cached === null) {
    // Only an uncached call may be cancelled by its caller, queued or running: a cached load is
    // shared with other waiters.
    const signal = caller.clientGone();
    const result = await deps.queue.run(owner, () => loadResult(deps.engine, deps.store, statement, signal), { cls: 'query', signal });
    return { result, cache: 'bypass', ageMs: 0, ttlRemainingMs: 0, translateMs };
  }
  const { key, policy } = cached;
  // The caller whose miss starts the load takes the turn in its token's queue; warming refreshes
  // take background turns. cachedAnswer has just looked for a fresh entry: straight to the load.
  const answer = await deps.cache.fill(key, policy, call.load, () => deps.queue.run(owner, () => loadResult(deps.engine, deps.store, statement), CACHE_MISS));
  return { result: answer.result, cache: answer.status, ageMs: answer.ageMs, ttlRemainingMs: answer.ttlRemainingMs, translateMs };
}

/** The turn of a caller's cache miss (not cancellable: other callers may be waiting on it). */
const CACHE_MISS: TurnOptions = Object.freeze({ cls: 'query' });

/** Whose turns warming refreshes take: the service's own, in no token's queue. */
const WARMING: object = Object.freeze({});

/** What one call runs, bound and decided: everything loadResult needs. */
export interface Statement {
  q: StoredQuery;
  sql: string;
  params: (string | null)[];
  /** Declared parameter → canonical value, to name the one a database data error is about. */
  values: Readonly<Record<string, string | null>>;
  redact: boolean;
  timeoutMs: number | undefined;
  callerSql: boolean;
  /** What the result's column types cannot say (ClickHouse): the stored query's declared columns, or the printed caller sql's. */
  columns: ResultColumns | undefined;
}

/**
 * Run the statement and encode its answer (max rows, redaction). A module function rather than a
 * closure built per call: a cache hit, the common case, never runs it.
 */
async function loadResult(engine: Engine, store: StoreCheck, s: Statement, signal?: AbortSignal): Promise<EncodedResult> {
  const started = performance.now();
  let rows;
  try {
    rows = await engine.query(s.sql, s.params, { stored: !s.callerSql, ...(s.columns ? { columns: s.columns } : {}), ...(signal ? { signal } : {}), ...(s.timeoutMs === undefined ? {} : { timeoutMs: s.timeoutMs }) });
  } catch (err) {
    throw (await store.callError(s.q, err, s.callerSql)) ?? mapDbError(err, { callerSql: s.callerSql, regexParam: s.q.regexParam, params: s.values, sqlstateParams: s.q.sqlstateParams });
  }
  const dbTimeMs = performance.now() - started;
  const capped = s.q.rowLimit.cap(rows);
  const out = applyRedaction(s.redact, s.callerSql ? capped.rows : structValues(capped.rows, s.q.structColumns));
  // Named from the rows, or for none from the stored query's declared columns (caller sql: unknown).
  const columns = out.length > 0 ? Object.keys(out[0]!) : s.callerSql ? [] : Object.keys(s.q.columns);
  return encodedResult(encodeResult(out), out.length, capped.truncated, dbTimeMs, columns);
}
