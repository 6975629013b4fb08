import { csv, encodedBody, FORMATS, rowTexts, type EncodedBody, type Format } from './formats.ts';

/**
 * One call's answer, encoded once: the JSON body and what a response needs besides it. This is
 * what the cache stores, so a hit costs no encoding, hashing or redaction; the answer's other
 * formats are made from it on first request and kept in `variants` (formats.ts).
 */
export interface EncodedResult extends EncodedBody {
  readonly rows: number;
  readonly truncated: boolean;
  readonly dbTimeMs: number;
  /** The result's column names, for a CSV header when there are no rows to read them from. */
  readonly columns: readonly string[];
  /** The answer in the other formats, each made at most once. */
  readonly variants: Partial<Record<Exclude<Format, 'json'>, EncodedBody>>;
}

export function encodedResult(body: Buffer, rows: number, truncated: boolean, dbTimeMs: number, columns: readonly string[] = []): EncodedResult {
  return { ...encodedBody(body, FORMATS.json, truncated), rows, truncated, dbTimeMs, columns, variants: {} };
}

/** The answer in `format`: the cached JSON itself, or its CSV/NDJSON made once and kept with it. */
export function inFormat(result: EncodedResult, format: Format): EncodedBody {
  if (format === 'json') return result;
  const known = result.variants[format];
  if (known !== undefined) return known;
  const rows = rowTexts(result.body);
  const text = format === 'csv' ? csv(rows, result.columns) : rows.map((r) => r.text + '\n').join('');
  const made = encodedBody(Buffer.from(text, 'utf8'), FORMATS[format], result.truncated);
  result.variants[format] = made;
  return made;
}
