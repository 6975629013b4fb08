import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { cacheKey, type CachedResult, type CacheStatus, type ResultCache } from './cache/result-cache.ts';
import { mapDbError } from '../store/db-errors.ts';
import { encodeResult } from './encode.ts';
import type { Engine } from '../store/engine.ts';
import { HttpError } from '../errors.ts';
import { capRows, limitSql } from './max-rows.ts';
import { validateParams } from './params.ts';
import { redactRows } from './redact.ts';
import type { StoredQuery } from './registry.ts';
import type { RequestInput } from '../http/request-input.ts';
import { composeSandboxed } from './sandbox/sandbox.ts';

/** The outcome of one stored-query call, ready to be written by respond.ts. */
export interface EndpointAnswer {
  result: CachedResult;
  /** `bypass`: caching disabled for this stored query. */
  cache: CacheStatus | 'bypass';
  ageMs: number;
  ttlRemainingMs: number;
}

export interface EndpointDeps {
  engine: Engine;
  cache: ResultCache;
}

/**
 * params → cache → bind → engine → max rows → redact → encode, for one stored query.
 * `redact` is already resolved (stored setting OR request header).
 */
export async function runEndpoint(
  deps: EndpointDeps,
  q: StoredQuery,
  input: RequestInput,
  redact: boolean,
  signal?: AbortSignal,
): Promise<EndpointAnswer> {
  const sandbox = input.sql === null ? null : q.sandbox;
  if (input.sql !== null && sandbox === null) throw new HttpError('sandbox_disabled');
  const values = validateParams(q.params, input.raw);
  // Validate and compose caller SQL before the cache: a rejected statement never costs a lookup.
  const sql = input.sql === null || sandbox === null ? q.limitedSql : limitSql(composeSandboxed(sandbox, input.sql), q.maxRows);
  const params = q.bindOrder.map((name) => values[name] ?? null);
  const errorContext = { callerSql: input.sql !== null, regexParam: q.regexParam };

  const load = async (loadSignal?: AbortSignal): Promise<CachedResult> => {
    const started = performance.now();
    let rows;
    try {
      rows = await deps.engine.query(sql, params, loadSignal ? { signal: loadSignal } : {});
    } catch (err) {
      throw mapDbError(err, errorContext);
    }
    const dbTimeMs = performance.now() - started;
    const capped = capRows(rows, q.maxRows);
    const out = redact ? redactRows(capped.rows) : capped.rows;
    const body = encodeResult(out);
    return { body, etag: etagOf(body), rows: out.length, truncated: capped.truncated, dbTimeMs };
  };

  if (q.cachePolicy === null) {
    // Only an uncached call may be cancelled by its caller: a cached load is shared with other waiters.
    return { result: await load(signal), cache: 'bypass', ageMs: 0, ttlRemainingMs: 0 };
  }
  const key = cacheKey({ queryId: q.id, params: values, declaredOrder: q.paramOrder, sql: input.sql, redact });
  const answer = await deps.cache.get(key, q.cachePolicy, () => load());
  return { result: answer.result, cache: answer.status, ageMs: answer.ageMs, ttlRemainingMs: answer.ttlRemainingMs };
}

/** A strong validator from the body bytes: equal bodies, equal ETags, on every replica. */
export function etagOf(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}
