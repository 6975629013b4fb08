/**
 * The answer's formats: the one owner of which exist, how a request picks one (`format=` wins,
 * else `Accept`), and how an encoded JSON answer becomes each of the others. A cached answer is
 * encoded in each format at most once: the other formats are made from the JSON body the cache
 * holds (values sliced out of it, never parsed and printed again) and kept beside it.
 */
import { createHash } from 'node:crypto';
import { HttpError } from '../shared/errors.ts';
import type { Compat } from '../process/config.ts';

export const FORMATS = Object.freeze({
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
  ndjson: 'application/x-ndjson; charset=utf-8',
});
export type Format = keyof typeof FORMATS;
const NAMES = Object.keys(FORMATS) as Format[];

/** Media types each format answers to in `Accept`, most specific first. */
const ACCEPTED: readonly [string, Format][] = [
  ['application/json', 'json'],
  ['text/csv', 'csv'],
  ['application/x-ndjson', 'ndjson'],
  ['application/ndjson', 'ndjson'],
  ['application/jsonl', 'ndjson'],
  ['application/*', 'json'],
  ['text/*', 'csv'],
  ['*/*', 'json'],
];

/** The `format` parameter's value as a Format; 406 naming the supported ones otherwise. */
export function formatParam(value: string): Format {
  if ((NAMES as string[]).includes(value)) return value as Format;
  throw notAcceptable(`Parameter "format" must be one of ${NAMES.join(', ')}, got ${JSON.stringify(value.slice(0, 40))}.`);
}

/**
 * What an `Accept` naming no format this service writes gets: 406 (`refuse`), or JSON as if it had
 * named none (`json`: COMPAT=logflare, since Logflare does not negotiate and its clients never ask).
 */
export type AcceptMismatch = 'refuse' | 'json';
export function acceptMismatch(compat: Compat | null): AcceptMismatch {
  return compat === 'logflare' ? 'json' : 'refuse';
}

/** The format of a call: its `format` parameter, else the best of `Accept` (JSON without one). */
export function negotiate(param: Format | null, accept: string | undefined, mismatch: AcceptMismatch = 'refuse'): Format {
  if (param !== null) return param;
  // The common headers decide without parsing.
  if (accept === undefined || accept === '*/*' || accept === 'application/json' || accept === '') return 'json';
  let best: Format | undefined;
  let bestQ = 0;
  let bestRank = Infinity;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > 0)) continue;
    const rank = ACCEPTED.findIndex(([media]) => media === type);
    if (rank === -1) continue;
    // Higher q wins; among equal q, the more specific media type.
    if (q > bestQ || (q === bestQ && rank < bestRank)) {
      best = ACCEPTED[rank]![1];
      bestQ = q;
      bestRank = rank;
    }
  }
  if (best === undefined && mismatch === 'json') return 'json';
  if (best === undefined) throw notAcceptable(`Accept: ${JSON.stringify(accept.slice(0, 200))} names no format this service answers in; it answers ${NAMES.map((n) => FORMATS[n].split(';')[0]).join(', ')} (or format=${NAMES.join('|')}).`);
  return best;
}

function notAcceptable(message: string): HttpError {
  return new HttpError('not_acceptable', message);
}

/** One format's encoding of an answer: what sendAnswer writes. */
export interface EncodedBody {
  readonly body: Buffer;
  readonly contentLength: string;
  readonly contentType: string;
  readonly etag: string;
  /** `ETag`, `Vary` and `X-Result-Truncated` as name/value pairs, built once. */
  readonly headers: readonly string[];
}

/** A body with its validator and fixed headers (the JSON one too: encoded-result.ts). */
export function encodedBody(body: Buffer, contentType: string, truncated: boolean): EncodedBody {
  const etag = strongEtag(body);
  // Vary: the same URL answers in another format for another Accept.
  const headers = Object.freeze(truncated ? ['ETag', etag, 'Vary', 'Accept', 'X-Result-Truncated', 'true'] : ['ETag', etag, 'Vary', 'Accept']);
  return { body, contentLength: String(body.length), contentType, etag, headers };
}

/** A strong validator of exactly these bytes: equal bodies, equal ETags, on every replica. */
export function strongEtag(body: Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** One row of the JSON body: its own text and its members' `[key, value text]`. */
export interface RowText {
  text: string;
  members: [string, string][];
}

/**
 * The rows of a `{"result":[…]}` body (encode-result.ts writes it), each as the exact text it has there.
 * Values are sliced, not parsed, so numbers, nested JSON and strings keep their bytes.
 */
export function rowTexts(body: Buffer): RowText[] {
  const s = body.toString('utf8');
  const PREFIX = '{"result":[';
  if (!s.startsWith(PREFIX)) throw new Error('not an encoded result');
  const rows: RowText[] = [];
  let i = PREFIX.length;
  while (s[i] === '{') {
    const start = i;
    const members: [string, string][] = [];
    i++;
    while (s[i] !== '}') {
      const keyEnd = valueEnd(s, i);
      const key = JSON.parse(s.slice(i, keyEnd)) as string;
      i = keyEnd + 1; // past ':'
      const end = valueEnd(s, i);
      members.push([key, s.slice(i, end)]);
      i = s[end] === ',' ? end + 1 : end;
    }
    i++;
    rows.push({ text: s.slice(start, i), members });
    if (s[i] === ',') i++;
  }
  return rows;
}

/** Where the JSON value starting at `i` ends (exclusive). */
function valueEnd(s: string, i: number): number {
  const c = s[i];
  if (c === '"') return stringEnd(s, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const d = s[j];
      if (d === '"') j = stringEnd(s, j) - 1;
      else if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    throw new Error('unterminated JSON value');
  }
  let j = i;
  while (j < s.length && s[j] !== ',' && s[j] !== '}' && s[j] !== ']') j++;
  return j;
}

function stringEnd(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '"') return j + 1;
  }
  throw new Error('unterminated JSON string');
}

/**
 * RFC 4180: a header row, CRLF line ends, a field quoted when it holds `"`, `,`, CR or LF (quotes
 * doubled). A string is its text; null is empty; numbers, booleans and nested values their JSON.
 */
export function csv(rows: RowText[], declared: readonly string[]): string {
  const columns = rows.length > 0 ? rows[0]!.members.map(([k]) => k) : declared;
  const lines = [columns.map(field).join(',')];
  for (const row of rows) lines.push(row.members.map(([, v]) => field(cell(v))).join(','));
  return lines.join('\r\n') + '\r\n';
}

function cell(valueText: string): string {
  if (valueText === 'null') return '';
  return valueText.startsWith('"') ? (JSON.parse(valueText) as string) : valueText;
}

function field(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
