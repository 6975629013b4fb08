/**
 * An ingest request's body as Vector and Logflare's other clients send it: JSON (a content type of
 * `application/json`, `…+json`, or none), plain or `gzip`/`deflate`-encoded, decompressed as a
 * stream with the size limit applied to the decompressed bytes (a gzip bomb stops at the limit),
 * shaped as an array of events (Vector's default codec), `{"batch": [...]}`, or one event object
 * (Logflare's `log_controller.ex` create/2 accepts the three).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createGunzip, createInflate } from 'node:zlib';
import type { Transform } from 'node:stream';
import { HttpError } from '../shared/errors.ts';
import { readBody } from '../shared/read-body.ts';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** The events a request carries; throws 413, 415 or 400 for a body that cannot be read as them. */
export async function readEvents(req: IncomingMessage, limit: number): Promise<{ events: unknown[]; bytes: number; digest: string }> {
  const type = req.headers['content-type'];
  if (type !== undefined && type.trim() !== '' && !JSON_TYPE.test(type)) {
    throw new HttpError('unsupported_media_type', `Content-Type ${JSON.stringify(type.slice(0, 100))} is not accepted: send JSON (application/json).`);
  }
  const text = await readBody(req, limit, decoderFor(req.headers['content-encoding']), 'INGEST_MAX_BODY_BYTES');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError('invalid_body', 'The body is not valid JSON: send an array of events, {"batch": [...]}, or one event object.');
  }
  const bytes = Buffer.byteLength(text);
  // The body as sent (decompressed): a sender's retry of it, the same bytes, has the same digest.
  const digest = createHash('sha256').update(text).digest('hex');
  if (Array.isArray(body)) return { events: body, bytes, digest };
  if (body !== null && typeof body === 'object') {
    const batch = (body as { batch?: unknown }).batch;
    if (batch !== undefined) {
      if (!Array.isArray(batch)) throw new HttpError('invalid_body', '"batch" must be an array of events.');
      return { events: batch, bytes, digest };
    }
    return { events: [body], bytes, digest };
  }
  throw new HttpError('invalid_body', 'The body must be an array of events, {"batch": [...]}, or one event object.');
}

function decoderFor(encoding: string | undefined): Transform | null {
  const e = (encoding ?? '').trim().toLowerCase();
  if (e === '' || e === 'identity') return null;
  if (e === 'gzip' || e === 'x-gzip') return createGunzip();
  if (e === 'deflate') return createInflate();
  throw new HttpError('unsupported_media_type', `Content-Encoding ${JSON.stringify(e.slice(0, 50))} is not accepted: send gzip, deflate or no encoding.`);
}
