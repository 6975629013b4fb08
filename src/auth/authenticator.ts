import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { BoundedMemo } from '../shared/bounded-memo.ts';
import { parseGrant, tokenDigest, type TokenGrant } from './access-tokens.ts';
import { ConfigError, HttpError } from '../shared/errors.ts';

/** Who a valid token belongs to, as far as the request path cares: which stored queries it may call. */
export interface Principal {
  mayCall(q: Scoped): boolean;
  /** May call every stored query (and so read what names them all, such as /metrics). */
  readonly unscoped: boolean;
}

/**
 * Every token check of the service, built once from the configured grants: stored-query calls,
 * the listing and OpenAPI (`check`), and `/metrics` (`checkMetrics`). Comparisons are constant-time.
 */
export interface Authenticator {
  /** Throw `unauthorized` unless the request carries a valid token; return what that token may do. */
  check(headers: IncomingHttpHeaders): Principal;
  /** Throw `unauthorized` unless the request may read `/metrics`. */
  checkMetrics(headers: IncomingHttpHeaders): void;
  /**
   * The ingest token a request presents (its headers, else Logflare's `api_key` query parameter):
   * an object standing for it (whose turn a write is). `unauthorized` for an unknown token,
   * `forbidden` for an access token: each kind does one thing.
   */
  checkIngest(headers: IncomingHttpHeaders, apiKey: string | null): object;
}

/** A stored query as a scope sees it: its id (scopes name stored queries by name or id, resolved once). */
export interface Scoped {
  readonly id: string;
}

/** How scope entries are resolved at start-up: the registry's lookup by name or id. */
export interface ScopeLookup {
  lookup(idOrName: string): Scoped | undefined;
}

/** Valid tokens remembered by the authenticator (more than any deployment configures). */
const KNOWN_TOKENS = 1024;

/** A fresh random token for embedded mode when none is configured: an ordinary, unscoped grant. */
export function generateGrant(): { token: string; grant: TokenGrant } {
  const token = randomBytes(24).toString('base64url');
  return { token, grant: parseGrant(token, 'generated token') };
}

/** The token a request presents: `X-API-KEY`, else `Authorization: Bearer <token>`. */
export function presentedToken(headers: IncomingHttpHeaders): string | null {
  const key = headers['x-api-key'];
  if (typeof key === 'string' && key !== '') return key;
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(auth);
    if (m) return m[1]!;
  }
  return null;
}

/** The 401, with its challenge; `message` says which kind of token the route takes (the table's default: an access token). */
export function unauthorized(message?: string): HttpError {
  return new HttpError('unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer realm="endpoints"' } });
}

/**
 * Index of the grant whose digest equals the presented token's, or -1. Comparing SHA-256 digests with
 * timingSafeEqual makes each comparison constant-time whatever the presented token's length, and
 * every grant is compared (no early exit), so timing tells nothing about which or how many match.
 */
export function matchDigest(presented: string, digests: readonly Buffer[]): number {
  const d = tokenDigest(presented);
  let found = -1;
  for (let i = 0; i < digests.length; i++) {
    const equal = timingSafeEqual(d, digests[i]!);
    found = equal ? i : found;
  }
  return found;
}

/**
 * Build the authenticator. Scopes name stored queries by name or id and are resolved against the
 * registry here, so a scope naming no stored query stops start-up instead of silently denying.
 * `/metrics` takes `metricsGrant` when there is one, else any unscoped access token: it names every
 * stored query, so an unauthenticated (or scoped) caller learns nothing from it.
 */
export function createAuthenticator(grants: readonly TokenGrant[], metricsGrant: TokenGrant | null, registry: ScopeLookup, ingestGrants: readonly TokenGrant[] = []): Authenticator {
  const metricsDigests = metricsGrant === null ? null : Object.freeze([metricsGrant.digest]);
  const digests = Object.freeze(grants.map((g) => g.digest));
  const ingestDigests = Object.freeze(ingestGrants.map((g) => g.digest));
  const ingestOwners = ingestGrants.map(() => Object.freeze({}));
  const principals = grants.map((g): Principal => {
    // One object per grant: it also identifies the token for per-token limits (run-query.ts).
    if (g.scope === null) return Object.freeze({ mayCall: () => true, unscoped: true });
    const ids = new Set<string>();
    for (const entry of g.scope) {
      const q = registry.lookup(entry);
      if (q === undefined) throw new ConfigError(`${g.source}: no stored query named or with id "${entry}"`);
      ids.add(q.id);
    }
    return Object.freeze({ mayCall: (q: Scoped) => ids.has(q.id), unscoped: false });
  });
  // Each kind of token does one thing: one of the other kind is told so (403), an unknown one 401.
  interface TokenKind {
    digests: readonly Buffer[];
    otherKind: readonly Buffer[];
    wrongKind: string;
    /** The 401's message when none of this kind is presented (undefined: the access-token one). */
    missing: string | undefined;
  }
  const QUERY_KIND: TokenKind = { digests, otherKind: ingestDigests, wrongKind: 'This is an ingest token: it may only send logs (POST /api/logs). Queries take an access token (ACCESS_TOKENS).', missing: undefined };
  const INGEST_KIND: TokenKind = {
    digests: ingestDigests,
    otherKind: digests,
    wrongKind: 'This is an access token: it may only query. Sending logs takes an ingest token (INGEST_TOKENS).',
    missing: 'A valid ingest token is required (one of INGEST_TOKENS, in X-API-KEY, Authorization: Bearer or the api_key parameter).',
  };
  const METRICS_KIND: TokenKind = { digests: metricsDigests ?? [], otherKind: [], wrongKind: '', missing: 'A valid metrics token is required (METRICS_TOKEN, in X-API-KEY or Authorization: Bearer).' };
  /** Index of `token` among its kind's grants; throws `forbidden` for a token of the other kind, else `unauthorized`. */
  const match = (token: string | null, kind: TokenKind): number => {
    const i = token === null ? -1 : matchDigest(token, kind.digests);
    if (i !== -1) return i;
    if (token !== null && matchDigest(token, kind.otherKind) !== -1) throw new HttpError('forbidden', kind.wrongKind);
    throw unauthorized(kind.missing);
  };
  // Tokens already matched → their grant: a hit skips the SHA-256 and the comparisons (every call
  // carries a token). Only valid tokens enter, so random ones cannot churn it; a miss still does
  // the constant-time comparison against every grant.
  const known = new BoundedMemo<number>(KNOWN_TOKENS, Infinity);
  const principalOf = (headers: IncomingHttpHeaders): Principal => {
    const token = presentedToken(headers);
    const hit = token === null ? undefined : known.get(token);
    if (hit !== undefined) return principals[hit]!;
    return principals[known.set(token!, match(token, QUERY_KIND))]!;
  };
  return Object.freeze({
    check(headers: IncomingHttpHeaders): Principal {
      return principalOf(headers);
    },
    checkMetrics(headers: IncomingHttpHeaders): void {
      if (metricsDigests !== null) {
        match(presentedToken(headers), METRICS_KIND);
        return;
      }
      // Metrics name every stored query: only a token that may already call them all reads them.
      if (!principalOf(headers).unscoped) throw unauthorized();
    },
    checkIngest(headers: IncomingHttpHeaders, apiKey: string | null): object {
      return ingestOwners[match(presentedToken(headers) ?? apiKey, INGEST_KIND)]!;
    },
  });
}
