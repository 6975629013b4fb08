import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from './errors.ts';

/** Checks access tokens in constant time; built once from the configured tokens. */
export interface Authenticator {
  /** Throw `unauthorized` unless the request carries a valid token. */
  check(headers: IncomingHttpHeaders): void;
}

const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

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

/**
 * Comparing SHA-256 digests with timingSafeEqual makes the comparison constant-time whatever the
 * presented token's length, and every configured token is compared (no early exit).
 */
export function createAuthenticator(tokens: readonly string[]): Authenticator {
  const digests = Object.freeze(tokens.map(digest));
  const unauthorized = () =>
    new HttpError('unauthorized', undefined, { headers: { 'WWW-Authenticate': 'Bearer realm="endpoints"' } });
  return Object.freeze({
    check(headers: IncomingHttpHeaders) {
      const token = presentedToken(headers);
      if (token === null) throw unauthorized();
      const d = digest(token);
      let ok = false;
      for (const known of digests) ok = timingSafeEqual(d, known) || ok;
      if (!ok) throw unauthorized();
    },
  });
}
