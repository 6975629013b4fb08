/**
 * Struct columns (`"columns": {"x": "struct"}`): a JSON object the stored statement writes as text,
 * sent as that object in every response shape. An `object` column is JSON the store holds, and
 * COMPAT=logflare wraps its objects as Logflare's PostgreSQL backend does (`metadata[0]`); a struct
 * is BigQuery's STRUCT, which Logflare's platform endpoints (Studio's `service-health`) answer as a
 * plain object. Text, not a JSON type, so that no engine's JSON shaping applies to it.
 */
import { RawJson } from '../store/values/pg-text.ts';

type Row = Record<string, unknown>;

/** The rows with each struct column's text as verbatim JSON; the rows themselves when there are none. */
export function structValues<R extends Row>(rows: R[], columns: readonly string[]): R[] {
  if (columns.length === 0) return rows;
  for (const row of rows) {
    for (const c of columns) {
      const v = row[c];
      if (typeof v === 'string') (row as Row)[c] = new RawJson(v);
    }
  }
  return rows;
}
