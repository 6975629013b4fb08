import { createHash } from 'node:crypto';

/**
 * One call's answer, encoded once: the JSON body and what a response needs besides it. This is
 * what the cache stores, so a hit costs no encoding, hashing or redaction.
 */
export interface EncodedResult {
  readonly body: Buffer;
  /** Strong validator of the body bytes: equal bodies, equal ETags, on every replica. */
  readonly etag: string;
  readonly rows: number;
  readonly truncated: boolean;
  readonly dbTimeMs: number;
}

export function encodedResult(body: Buffer, rows: number, truncated: boolean, dbTimeMs: number): EncodedResult {
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"`, rows, truncated, dbTimeMs };
}
