import { createHash } from 'node:crypto';

/**
 * One call's answer, encoded once: the JSON body and what a response needs besides it. This is
 * what the cache stores, so a hit costs no encoding, hashing or redaction.
 */
export interface EncodedResult {
  readonly body: Buffer;
  /** `Content-Length` of the body, as the header's text. */
  readonly contentLength: string;
  /** Strong validator of the body bytes: equal bodies, equal ETags, on every replica. */
  readonly etag: string;
  readonly rows: number;
  readonly truncated: boolean;
  readonly dbTimeMs: number;
  /**
   * The response headers that follow from the result alone, as name/value pairs: `ETag`, and
   * `X-Result-Truncated` when rows were cut. Built once here, so a cache hit reuses them.
   */
  readonly headers: readonly string[];
}

export function encodedResult(body: Buffer, rows: number, truncated: boolean, dbTimeMs: number): EncodedResult {
  const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
  const headers = Object.freeze(truncated ? ['ETag', etag, 'X-Result-Truncated', 'true'] : ['ETag', etag]);
  return { body, contentLength: String(body.length), etag, rows, truncated, dbTimeMs, headers };
}
