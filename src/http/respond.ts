import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { QueryAnswer } from '../query/run-query.ts';
import { HttpError } from '../errors.ts';

/**
 * Response headers in node:http's flat form, name, value, name, value…: writeHead reads an array
 * by index, where an object costs a for-in walk and an own-property check per header, and the
 * parts that never change (CORS, a cached result's own headers) are built once and copied in.
 */
export type HeaderList = readonly (string | number)[];

const JSON_TYPE = 'application/json; charset=utf-8';
/**
 * A client that does not read a large answer within this is cut off, so its unsent bytes are freed
 * instead of pinned for as long as it keeps the socket open.
 */
export const WRITE_DEADLINE_MS = 30_000;
/** RFC 9211 cache name in `Cache-Status`. */
const CACHE_NAME = 'endpoints';

/** Write a JSON body (omitted for HEAD, Content-Length kept) with the given status and headers. */
export function sendBody(req: IncomingMessage, res: ServerResponse, status: number, body: Buffer, headers: HeaderList = []): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, [...headers, 'Content-Type', JSON_TYPE, 'Content-Length', body.length]);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Write a small JSON value. */
export function sendJson(req: IncomingMessage, res: ServerResponse, status: number, value: unknown, headers: HeaderList = []): void {
  sendBody(req, res, status, Buffer.from(JSON.stringify(value), 'utf8'), headers);
}

/** Write the error envelope (docs/http-api.md) for an HttpError. */
export function sendError(req: IncomingMessage, res: ServerResponse, err: HttpError, headers: HeaderList = []): void {
  sendJson(req, res, err.status, err.toBody(), [...headers, ...Object.entries(err.headers).flat()]);
}

/**
 * The stored-query response: 200 with the encoded rows, or 304 when the caller's ETag still
 * matches. `cors` and the result's own headers were built once; the rest is per response.
 */
export function sendAnswer(req: IncomingMessage, res: ServerResponse, answer: QueryAnswer, cors: HeaderList, requestId: string, started: number): void {
  if (res.headersSent || res.destroyed) return;
  const { result } = answer;
  const out: (string | number)[] = ['X-Request-Id', requestId, 'Cache-Status', cacheStatus(answer), 'Server-Timing', serverTiming(answer, started)];
  // Pushed one by one: cheaper than concat or spread for a handful of entries.
  for (let i = 0; i < cors.length; i++) out.push(cors[i]!);
  for (let i = 0; i < result.headers.length; i++) out.push(result.headers[i]!);
  if (answer.cache === 'hit') out.push('Age', Math.floor(answer.ageMs / 1000));
  if (etagMatches(req.headers['if-none-match'], result.etag)) {
    res.writeHead(304, out);
    res.end();
    return;
  }
  out.push('Content-Type', JSON_TYPE, 'Content-Length', result.body.length);
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

function serverTiming(answer: QueryAnswer, started: number): string {
  const db = answer.cache === 'hit' ? '0' : answer.result.dbTimeMs.toFixed(2);
  const translate = answer.translateMs === undefined ? '' : `translate;dur=${answer.translateMs.toFixed(2)}, `;
  return `db;dur=${db}, ${translate}total;dur=${(performance.now() - started).toFixed(2)}`;
}

function cacheStatus(answer: QueryAnswer): string {
  switch (answer.cache) {
    case 'hit':
      return `${CACHE_NAME}; hit; ttl=${ttlSeconds(answer)}`;
    case 'bypass':
      return `${CACHE_NAME}; fwd=bypass`;
    default: // a miss, or a wait on another caller's miss: both went forward to the database
      return `${CACHE_NAME}; fwd=miss; stored; ttl=${ttlSeconds(answer)}`;
  }
}

function ttlSeconds(answer: QueryAnswer): number {
  return Math.max(0, Math.floor(answer.ttlRemainingMs / 1000));
}

/** If-None-Match (RFC 9110 13.1.2): `*` or a list of entity tags, compared weakly. */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
