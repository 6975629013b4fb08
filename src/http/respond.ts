import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { QueryAnswer } from '../query/run-query.ts';
import { HttpError } from '../errors.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
/**
 * A client that does not read a large answer within this is cut off, so its unsent bytes are freed
 * instead of pinned for as long as it keeps the socket open.
 */
export const WRITE_DEADLINE_MS = 30_000;
/** RFC 9211 cache name in `Cache-Status`. */
const CACHE_NAME = 'endpoints';

/** Write a JSON body (omitted for HEAD, Content-Length kept) with the given status and headers. */
export function sendBody(req: IncomingMessage, res: ServerResponse, status: number, body: Buffer, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { ...headers, 'Content-Type': JSON_TYPE, 'Content-Length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Write a small JSON value. */
export function sendJson(req: IncomingMessage, res: ServerResponse, status: number, value: unknown, headers: OutgoingHttpHeaders = {}): void {
  sendBody(req, res, status, Buffer.from(JSON.stringify(value), 'utf8'), headers);
}

/** Write the error envelope (docs/http-api.md) for an HttpError. */
export function sendError(req: IncomingMessage, res: ServerResponse, err: HttpError, headers: OutgoingHttpHeaders = {}): void {
  sendJson(req, res, err.status, err.toBody(), { ...headers, ...err.headers });
}

/** The stored-query response: 200 with the encoded rows, or 304 when the caller's ETag still matches. */
export function sendAnswer(req: IncomingMessage, res: ServerResponse, answer: QueryAnswer, headers: OutgoingHttpHeaders, started: number): void {
  const { result } = answer;
  const totalMs = performance.now() - started;
  const out: OutgoingHttpHeaders = {
    ...headers,
    ETag: result.etag,
    'Cache-Status': cacheStatus(answer),
    'Server-Timing': `db;dur=${answer.cache === 'hit' ? 0 : result.dbTimeMs.toFixed(2)}, ${answer.translateMs === undefined ? '' : `translate;dur=${answer.translateMs.toFixed(2)}, `}total;dur=${totalMs.toFixed(2)}`,
  };
  if (answer.cache === 'hit') out.Age = String(Math.floor(answer.ageMs / 1000));
  if (result.truncated) out['X-Result-Truncated'] = 'true';
  if (res.headersSent || res.destroyed) return;
  if (etagMatches(req.headers['if-none-match'], result.etag)) {
    res.writeHead(304, out);
    res.end();
    return;
  }
  // Straight to writeHead rather than via sendBody: one header object per response instead of a
  // second copy (the cached-call path is mostly this function and node:http).
  out['Content-Type'] = JSON_TYPE;
  out['Content-Length'] = result.body.length;
  res.writeHead(200, out);
  res.end(req.method === 'HEAD' ? undefined : result.body);
  deadlineIfBuffered(res);
}

/** Only an answer the socket could not take at once (over its high-water mark) pays for a timer. */
function deadlineIfBuffered(res: ServerResponse): void {
  if (!res.writableNeedDrain) return;
  const timer = setTimeout(() => res.destroy(), WRITE_DEADLINE_MS);
  timer.unref();
  res.once('close', () => clearTimeout(timer));
}

function cacheStatus(answer: QueryAnswer): string {
  const ttl = Math.max(0, Math.floor(answer.ttlRemainingMs / 1000));
  switch (answer.cache) {
    case 'hit':
      return `${CACHE_NAME}; hit; ttl=${ttl}`;
    case 'bypass':
      return `${CACHE_NAME}; fwd=bypass`;
    default: // a miss, or a wait on another caller's miss: both went forward to the database
      return `${CACHE_NAME}; fwd=miss; stored; ttl=${ttl}`;
  }
}

/** If-None-Match (RFC 9110 13.1.2): `*` or a list of entity tags, compared weakly. */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
