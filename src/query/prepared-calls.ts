/**
 * GET calls prepared once per distinct request: a stored query, a query string and whether the
 * answer is redacted decide everything up to the engine (parameters, caller sql, the bound
 * statement, the cache key, the load), so a repeated call, which is what a cache hit is, only
 * looks its preparation up. Bounded (LRU by use); a refused call is never remembered, so its
 * error is worked out, and reported, each time.
 */
import { BoundedMemo } from '../shared/bounded-memo.ts';
import type { StoredQuery } from './registry.ts';
import { prepareCall, type CallInput, type PreparedCall, type QueryDeps } from './run-query.ts';

/** Distinct GET calls remembered per stored query and redaction. */
export const PREPARED_CALLS_MAX = 512;
/** Longer query strings (large `sql`) are prepared each time rather than held. */
export const PREPARED_SEARCH_MAX_CHARS = 2048;

type PrepareDeps = Pick<QueryDeps, 'engine' | 'dialect' | 'callerStatementTimeoutMs' | 'store' | 'queue'>;
/** Reads a query string into parameters and `sql` (the HTTP layer's readSearch). */
type ParseSearch = (search: string) => CallInput;

export class PreparedCalls {
  // Per stored query, one memo for plain and one for redacted answers, keyed by the query string
  // itself: no key is built per request, and a memoised request target (router.ts) hands over the
  // same string each time, hash already computed.
  private readonly calls = new Map<StoredQuery, readonly [BoundedMemo<PreparedCall>, BoundedMemo<PreparedCall>]>();

  constructor(
    private readonly deps: PrepareDeps,
    private readonly parse: ParseSearch,
    /** Calls remembered per stored query and redaction. */
    private readonly max = PREPARED_CALLS_MAX,
  ) {}

  /** The prepared call for a GET of `q` with this query string (read only when not seen before). */
  fromSearch(q: StoredQuery, search: string, redact: boolean): PreparedCall {
    let byRedaction = this.calls.get(q);
    if (byRedaction === undefined) {
      byRedaction = [new BoundedMemo(this.max, PREPARED_SEARCH_MAX_CHARS), new BoundedMemo(this.max, PREPARED_SEARCH_MAX_CHARS)];
      this.calls.set(q, byRedaction);
    }
    const calls = byRedaction[redact ? 1 : 0];
    const known = calls.get(search);
    if (known !== undefined) return known;
    const call = this.prepare(q, this.parse(search), redact);
    // Remembered without its translation time: only the call that translated reports it.
    calls.set(search, { ...call, translateMs: undefined });
    return call;
  }

  /** Prepare without remembering (POST: the body is part of the call). */
  prepare(q: StoredQuery, input: CallInput, redact: boolean): PreparedCall {
    return prepareCall(q, input, redact, this.deps);
  }
}
