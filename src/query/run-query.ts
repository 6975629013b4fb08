/**
 * One stored-query call, after routing and auth: params → cache → bind → engine → max rows →
 * redact → encode. The per-request policy lives here and only here: whether the call is cached
 * (and so whether its caller may cancel it), how max rows and redaction apply.
 */
import { performance } from 'node:perf_hooks';
import { HttpError } from '../errors.ts';
import type { Engine } from '../store/engine.ts';
import { mapDbError } from '../store/db-errors.ts';
import { cacheKey } from './cache/cache-key.ts';
import type { CacheStatus, ResultCache } from './cache/result-cache.ts';
import { encodeResult } from './encode.ts';
import { encodedResult, type EncodedResult } from './encoded-result.ts';
import { validateParams, type RawParams } from './params.ts';
import { applyRedaction, redactionApplies } from './redaction.ts';
import type { StoredQuery } from './registry.ts';
import { composeSandboxed } from './sandbox/compose.ts';

/** What one call supplies, already read off the HTTP request. */
export interface QueryCall {
  query: StoredQuery;
  /** Parameter values as sent (query string and body). */
  raw: RawParams;
  /** Caller SQL (`sql`), or null. */
  sql: string | null;
  /** The redaction request header as received. */
  redactHeader: string | string[] | undefined;
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
}

export interface QueryDeps {
  engine: Engine;
  cache: ResultCache;
}

/** The statement a call runs and its bound values: parameters validated, caller SQL composed, max rows applied. */
export interface BoundStatement {
  sql: string;
  params: (string | null)[];
  /** Declared parameter → canonical value (the cache key's part). */
  values: Readonly<Record<string, string | null>>;
}

/** Validate and bind; throws the 400s of bad parameters and refused caller SQL. */
export function bindStatement(q: StoredQuery, raw: RawParams, callerSql: string | null): BoundStatement {
  if (callerSql !== null && q.sandbox === null) throw new HttpError('sandbox_disabled');
  const values = validateParams(q.params, raw);
  const sql = callerSql === null || q.sandbox === null ? q.limitedSql : q.rowLimit.wrap(composeSandboxed(q.sandbox, callerSql));
  return { sql, params: q.bindOrder.map((name) => values[name] ?? null), values };
}

export async function runQuery(deps: QueryDeps, call: QueryCall): Promise<QueryAnswer> {
  const q = call.query;
  // Validate and compose caller SQL before the cache: a rejected statement never costs a lookup.
  const { sql, params, values } = bindStatement(q, call.raw, call.sql);
  const redact = redactionApplies(q.redactPii, call.redactHeader);
  const errorContext = { callerSql: call.sql !== null, regexParam: q.regexParam };

  const load = async (signal?: AbortSignal): Promise<EncodedResult> => {
    const started = performance.now();
    let rows;
    try {
      rows = await deps.engine.query(sql, params, signal ? { signal } : {});
    } catch (err) {
      throw mapDbError(err, errorContext);
    }
    const dbTimeMs = performance.now() - started;
    const capped = q.rowLimit.cap(rows);
    const out = applyRedaction(redact, capped.rows);
    return encodedResult(encodeResult(out), out.length, capped.truncated, dbTimeMs);
  };

  const policy = q.cachePolicy;
  if (!policy.cached) {
    // Only an uncached call may be cancelled by its caller: a cached load is shared with other waiters.
    return { result: await load(call.clientGone()), cache: 'bypass', ageMs: 0, ttlRemainingMs: 0 };
  }
  const key = cacheKey({ queryId: q.id, params: values, declaredOrder: q.paramOrder, sql: call.sql, redact });
  const answer = await deps.cache.get(key, policy, () => load());
  return { result: answer.result, cache: answer.status, ageMs: answer.ageMs, ttlRemainingMs: answer.ttlRemainingMs };
}
