import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { parseGrant, tokenDigest, type TokenGrant } from './access-tokens.ts';
import { ConfigError } from '../ops/config.ts';
import { HttpError } from '../errors.ts';
import type { Registry, StoredQuery } from '../query/registry.ts';

/** Who a valid token belongs to, as far as the request path cares: which stored queries it may call. */
export interface Principal {
  mayCall(q: StoredQuery): boolean;
}

/** Checks access tokens in constant time; built once from the configured tokens. */
export interface Authenticator {
  /** Throw `unauthorized` unless the request carries a valid token; return what that token may do. */
  check(headers: IncomingHttpHeaders): Principal;
}

/** A fresh random token for embedded mode when none is configured. */
export function generateToken(): string {
  return randomBytes(24).toString('base64url');
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

/** The 401 of DESIGN 3, with its challenge. */
export function unauthorized(): HttpError {
  return new HttpError('unauthorized', undefined, { headers: { 'WWW-Authenticate': 'Bearer realm="endpoints"' } });
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

const EVERYTHING: Principal = Object.freeze({ mayCall: () => true });

/**
 * Build the authenticator. Plain strings are unscoped tokens (the one generated in embedded mode,
 * scripts); scopes name stored queries by name or id and are resolved against the registry here, so
 * a scope naming no stored query stops start-up instead of silently denying.
 */
export function createAuthenticator(tokens: readonly (string | TokenGrant)[], registry: Registry): Authenticator {
  const grants = tokens.map((t) => (typeof t === 'string' ? parseGrant(t, 'token') : t));
  const digests = Object.freeze(grants.map((g) => g.digest));
  const principals = grants.map((g): Principal => {
    if (g.scope === null) return EVERYTHING;
    const ids = new Set<string>();
    for (const entry of g.scope) {
      const q = registry.lookup(entry);
      if (q === undefined) throw new ConfigError(`${g.source}: no stored query named or with id "${entry}"`);
      ids.add(q.id);
    }
    return Object.freeze({ mayCall: (q: StoredQuery) => ids.has(q.id) });
  });
  return Object.freeze({
    check(headers: IncomingHttpHeaders): Principal {
      const token = presentedToken(headers);
      if (token === null) throw unauthorized();
      const i = matchDigest(token, digests);
      if (i === -1) throw unauthorized();
      return principals[i]!;
    },
  });
}
