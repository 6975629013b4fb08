import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { QueryAnswer } from '../query/run-query.ts';
import type { EncodedBody } from '../query/formats.ts';
import { HttpError } from '../shared/errors.ts';

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
 * The stored-query response: 200 with the encoded rows in the request's format (`result`), or 304
 * when the caller's ETag still matches. `cors` and the result's own headers were built once; the
 * rest is per response.
 */
export function sendAnswer(req: IncomingMessage, res: ServerResponse, answer: QueryAnswer, result: EncodedBody, cors: HeaderList, requestId: string, started: number, texts: AnswerTexts): void {
  if (res.headersSent || res.destroyed) return;
  const out: (string | number)[] = ['X-Request-Id', requestId, 'Cache-Status', texts.cacheStatus(answer), 'Server-Timing', texts.serverTiming(answer, started)];
  // Pushed one by one: cheaper than concat or spread for a handful of entries.
  for (let i = 0; i < cors.length; i++) out.push(cors[i]!);
  for (let i = 0; i < result.headers.length; i++) out.push(result.headers[i]!);
  // Values as strings: node's header check takes a number through a slower, converting path.
  if (answer.cache === 'hit') out.push('Age', String(Math.floor(answer.ageMs / 1000)));
  if (etagMatches(req.headers['if-none-match'], result.etag)) {
    res.writeHead(304, out);
    res.end();
    return;
  }
  out.push('Content-Type', result.contentType, 'Content-Length', result.contentLength);
  res.writeHead(200, out);
  res.end(req.method === 'HEAD' ? undefined : result.body);
  deadlineIfBuffered(res);
}

/** Hits' `Cache-Status` remembered up to this many seconds of remaining TTL. */
const HIT_STATUS_MEMO = 3600;
/** Hits' `Server-Timing` remembered up to this total time, in units of 0.01 ms (10 ms). */
const HIT_TIMING_MEMO = 1000;

/**
 * The `Cache-Status` and `Server-Timing` values. A hit's take few distinct values (a TTL in whole
 * seconds; a total of a few hundredths of a millisecond), so they are built once each and reused.
 * That also makes them flat strings: node:http checks every header value with a regular
 * expression, and V8 has to leave its fast path to flatten a freshly concatenated one first.
 * One per handler; bounded by the two constants above.
 */
export class AnswerTexts {
  private readonly hitStatus: string[] = [];
  private readonly hitTiming: string[] = [];

  cacheStatus(answer: QueryAnswer): string {
    const ttl = Math.max(0, Math.floor(answer.ttlRemainingMs / 1000));
    switch (answer.cache) {
      case 'hit':
        return ttl < HIT_STATUS_MEMO ? (this.hitStatus[ttl] ??= hitStatus(ttl)) : hitStatus(ttl);
      case 'bypass':
        return `${CACHE_NAME}; fwd=bypass`;
      default: // a miss, or a wait on another caller's miss: both went forward to the database
        return `${CACHE_NAME}; fwd=miss; stored; ttl=${ttl}`;
    }
  }

  serverTiming(answer: QueryAnswer, started: number): string {
    const total = Math.round((performance.now() - started) * 100);
    if (answer.cache === 'hit' && answer.translateMs === undefined) {
      return total < HIT_TIMING_MEMO ? (this.hitTiming[total] ??= hitTiming(total)) : hitTiming(total);
    }
    const translate = answer.translateMs === undefined ? '' : `translate;dur=${answer.translateMs.toFixed(2)}, `;
    const db = answer.cache === 'hit' ? '0' : answer.result.dbTimeMs.toFixed(2);
    return `db;dur=${db}, ${translate}total;dur=${(total / 100).toFixed(2)}`;
  }
}

function hitStatus(ttlSeconds: number): string {
  return `${CACHE_NAME}; hit; ttl=${ttlSeconds}`;
}

function hitTiming(totalHundredths: number): string {
  return `db;dur=0, total;dur=${(totalHundredths / 100).toFixed(2)}`;
}

/** Only an answer the socket could not take at once (over its high-water mark) pays for a timer. */
function deadlineIfBuffered(res: ServerResponse): void {
  if (!res.writableNeedDrain) return;
  const timer = setTimeout(() => res.destroy(), WRITE_DEADLINE_MS);
  timer.unref();
  res.once('close', () => clearTimeout(timer));
}

/** If-None-Match (RFC 9110 13.1.2): `*` or a list of entity tags, compared weakly. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
