/**
 * Whether and how long a stored query's results may be reused: the one place "uncached" is
 * decided. The request pipeline (run-query.ts) asks `cached`; the cache only ever sees cached
 * policies.
 */

/** Results are reused for `ttlMs` and, with `warmIntervalMs`, refreshed in the background. */
export interface CachedPolicy {
  readonly cached: true;
  readonly ttlMs: number;
  readonly warmIntervalMs: number | null;
}

/** Caching disabled: every call runs the statement, and its caller may cancel it by going away. */
export interface UncachedPolicy {
  readonly cached: false;
}

export type CachePolicy = CachedPolicy | UncachedPolicy;

const UNCACHED: UncachedPolicy = Object.freeze({ cached: false });

/** The policy for a stored query's `cachingSeconds` / `cacheWarmingSeconds` (null: disabled / none). */
export function cachePolicy(cachingSeconds: number | null, cacheWarmingSeconds: number | null): CachePolicy {
  if (cachingSeconds === null) return UNCACHED;
  return Object.freeze({ cached: true, ttlMs: cachingSeconds * 1000, warmIntervalMs: cacheWarmingSeconds === null ? null : cacheWarmingSeconds * 1000 });
}
