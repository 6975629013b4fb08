/** A result's rows as the JSON answer's bytes, once per uncached call (run-query.ts). */
import { jsonString } from '../shared/json-string.ts';
import { RawJson } from '../store/values/pg-text.ts';

/**
 * `{"result":[row, …]}` as UTF-8: the same bytes as JSON.stringify({ result: rows }) except that
 * RawJson column values are written verbatim and strings go through jsonString. The pieces are
 * collected and joined once, into one flat string: appending them one by one would build a rope of
 * a node per piece, and flattening it for the UTF-8 copy is a second copy (on `logs.all`, ~100 KB a
 * call, which the GC then pays for). A key's `"key":` is written once per run of rows with the same
 * keys, not once per value.
 */
export function encodeResult(rows: readonly Record<string, unknown>[]): Buffer {
  const parts: string[] = ['{"result":['];
  let keys: string[] = [];
  // `"key":` and `,"key":` for each of `keys`.
  let firstLabel: string[] = [];
  let nextLabel: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const rowKeys = Object.keys(row);
    if (!sameKeys(keys, rowKeys)) {
      keys = rowKeys;
      firstLabel = keys.map((k) => `${JSON.stringify(k)}:`);
      nextLabel = firstLabel.map((label) => `,${label}`);
    }
    parts.push(i === 0 ? '{' : ',{');
    let first = true;
    for (let k = 0; k < keys.length; k++) {
      const value = row[keys[k]!];
      const json = typeof value === 'string' ? jsonString(value) : value instanceof RawJson ? value.text : JSON.stringify(value);
      if (json === undefined) continue; // as JSON.stringify does for undefined, functions, symbols
      parts.push(first ? firstLabel[k]! : nextLabel[k]!, json);
      first = false;
    }
    parts.push('}');
  }
  parts.push(']}');
  return utf8Bytes(parts.join(''));
}

/**
 * The text as UTF-8 in a buffer of its exact size. Not Buffer.from: for a string past half of
 * Buffer.poolSize it allocates zero-filled memory and then overwrites it (node 20's
 * CreateFromString), and an uncached `logs.all` body is ~100 KB.
 */
function utf8Bytes(text: string): Buffer {
  const length = Buffer.byteLength(text, 'utf8');
  const bytes = Buffer.allocUnsafe(length);
  bytes.write(text, 0, length, 'utf8');
  return bytes;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
