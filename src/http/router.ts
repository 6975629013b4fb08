import { BoundedMemo } from '../shared/bounded-memo.ts';
import { EXPLORER_PATHS } from './explorer.ts';

/** The service's routes, matched by hand: a handful of fixed paths and one parameterised prefix. */
export type Route =
  | { kind: 'health' }
  | { kind: 'ready' }
  | { kind: 'metrics' }
  | { kind: 'endpoints' }
  | { kind: 'openapi' }
  | { kind: 'query'; target: string | null /* null: segment was not valid percent-encoding */ }
  // Logflare's ingest routes (`lib/logflare_web/router.ex`: /logs, /api/logs, /api/events).
  | { kind: 'ingest' }
  // Studio's Log Drains page (COMPAT=logflare): Logflare's backends, rules and sources.
  | { kind: 'drains' }
  | { kind: 'sources' }
  // The explorer page and its files (explorer.ts).
  | { kind: 'page' };

export type RouteKind = Route['kind'];

export interface RouteMatch {
  route: Route;
  /** Methods this path answers, for 405's `Allow` and CORS preflight. */
  allow: readonly string[];
}

const QUERY_PREFIX = '/api/endpoints/query/';
const QUERY_METHODS = Object.freeze(['GET', 'HEAD', 'POST', 'OPTIONS']);
const READ_METHODS = Object.freeze(['GET', 'HEAD']);
const CORS_READ_METHODS = Object.freeze(['GET', 'HEAD', 'OPTIONS']);

const INGEST_METHODS = Object.freeze(['POST']);
const INGEST: RouteMatch = { route: { kind: 'ingest' }, allow: INGEST_METHODS };
const DRAINS: RouteMatch = { route: { kind: 'drains' }, allow: Object.freeze(['GET', 'POST', 'PUT', 'DELETE']) };
const BACKENDS_PREFIX = '/api/backends/';

const FIXED: ReadonlyMap<string, RouteMatch> = new Map([
  ['/health', { route: { kind: 'health' }, allow: READ_METHODS }],
  ['/ready', { route: { kind: 'ready' }, allow: READ_METHODS }],
  ['/metrics', { route: { kind: 'metrics' }, allow: READ_METHODS }],
  // Browsers may read the listing and the document from another origin, so they answer preflight too.
  ['/api/endpoints', { route: { kind: 'endpoints' }, allow: CORS_READ_METHODS }],
  ['/openapi.json', { route: { kind: 'openapi' }, allow: CORS_READ_METHODS }],
  ['/api/logs', INGEST],
  ['/logs', INGEST],
  ['/api/events', INGEST],
  ['/api/backends', DRAINS],
  ['/api/rules', DRAINS],
  ['/api/sources', { route: { kind: 'sources' }, allow: READ_METHODS }],
  ...EXPLORER_PATHS.map((path) => [path, { route: { kind: 'page' }, allow: READ_METHODS }] as const),
]);

/** Match a request path (without query string); null means 404. */
export function matchRoute(pathname: string): RouteMatch | null {
  const fixed = FIXED.get(pathname);
  if (fixed !== undefined) return fixed;
  if (pathname.startsWith(QUERY_PREFIX)) {
    const segment = pathname.slice(QUERY_PREFIX.length);
    if (segment === '' || segment.includes('/')) return null;
    return { route: { kind: 'query', target: decodeSegment(segment) }, allow: QUERY_METHODS };
  }
  if (pathname.startsWith(BACKENDS_PREFIX) && !pathname.slice(BACKENDS_PREFIX.length).includes('/')) return DRAINS;
  return null;
}

function decodeSegment(segment: string): string | null {
  // Most segments are a plain name or id: nothing to decode.
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** Split a request target into path and query string. Absolute-form targets keep only their path. */
export function splitTarget(url: string): { pathname: string; search: string } {
  let target = url;
  if (!target.startsWith('/')) {
    // absolute-form (RFC 9112 3.2.2): "http://host/path?x"; anything else has no usable path
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(.*)$/i.exec(target);
    target = m ? m[1] || '/' : '';
  }
  const q = target.indexOf('?');
  const pathname = q === -1 ? target : target.slice(0, q);
  const search = q === -1 ? '' : target.slice(q + 1);
  const hash = search.indexOf('#');
  return { pathname, search: hash === -1 ? search : search.slice(0, hash) };
}

/** A request target, split and matched. */
export interface ResolvedTarget {
  readonly pathname: string;
  readonly search: string;
  readonly match: RouteMatch | null;
}

/** Distinct request targets remembered. */
export const TARGET_MEMO_MAX = 1024;
/** Longer targets (large `sql`) are resolved each time rather than held. */
export const TARGET_MEMO_MAX_CHARS = 2048;

/**
 * Request targets resolved once: a chart or a script repeats the same URL, so a repeat is one map
 * lookup, and its path, query string and stored-query name are the same strings each time (their
 * hashes already computed for the lookups that follow).
 */
export class TargetMemo {
  private readonly memo: BoundedMemo<ResolvedTarget>;

  constructor(maxEntries = TARGET_MEMO_MAX) {
    this.memo = new BoundedMemo(maxEntries, TARGET_MEMO_MAX_CHARS);
  }

  resolve(url: string): ResolvedTarget {
    const known = this.memo.get(url);
    if (known !== undefined) return known;
    const { pathname, search } = splitTarget(url);
    return this.memo.set(url, Object.freeze({ pathname, search, match: matchRoute(pathname) }));
  }
}
