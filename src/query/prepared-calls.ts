/**
 * GET calls prepared once per distinct request: a stored query, a query string and whether the
 * answer is redacted decide everything up to the engine (parameters, caller sql, the bound
 * statement, the cache key, the load), so a repeated call, which is what a cache hit is, only
 * looks its preparation up. Bounded (LRU by use); a refused call is never remembered, so its
 * error is worked out, and reported, each time.
 */
import type { RawParams } from './params.ts';
import type { StoredQuery } from './registry.ts';
import { prepareCall, type PreparedCall, type QueryDeps } from './run-query.ts';

/** Distinct GET calls remembered. */
export const PREPARED_CALLS_MAX = 512;
/** Longer query strings (large `sql`) are prepared each time rather than held. */
export const PREPARED_SEARCH_MAX_CHARS = 2048;

type PrepareDeps = Pick<QueryDeps, 'engine' | 'dialect' | 'callerStatementTimeoutMs'>;
/** Reads a query string into parameters and `sql` (the HTTP layer's readSearch). */
type ParseSearch = (search: string) => { raw: RawParams; sql: string | null };

export class PreparedCalls {
  // Map insertion order is the LRU order: least recently used first.
  private readonly calls = new Map<string, PreparedCall>();

  constructor(
    private readonly deps: PrepareDeps,
    private readonly parse: ParseSearch,
    private readonly max = PREPARED_CALLS_MAX,
  ) {}

  /** The prepared call for a GET of `q` with this query string (read only when not seen before). */
  fromSearch(q: StoredQuery, search: string, redact: boolean): PreparedCall {
    const parse = this.parse;
    if (search.length > PREPARED_SEARCH_MAX_CHARS) return this.prepare(q, parse(search), redact);
    // The id cannot contain a newline; the flag is one character: the parts cannot run together.
    const key = `${q.id}\n${redact ? 1 : 0}${search}`;
    const known = this.calls.get(key);
    if (known !== undefined) {
      this.calls.delete(key);
      this.calls.set(key, known);
      return known;
    }
    const call = this.prepare(q, parse(search), redact);
    // Remembered without its translation time: only the call that translated reports it.
    this.calls.set(key, { ...call, translateMs: undefined });
    if (this.calls.size > this.max) this.calls.delete(this.calls.keys().next().value!);
    return call;
  }

  /** Prepare without remembering (POST: the body is part of the call). */
  prepare(q: StoredQuery, input: { raw: RawParams; sql: string | null }, redact: boolean): PreparedCall {
    return prepareCall(q, input.raw, input.sql, redact, this.deps);
  }
}
