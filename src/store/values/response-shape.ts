/**
 * Logflare's response shape (COMPAT=logflare; docs/logflare-compat.md), what its PostgreSQL
 * backend's `nested_map_update` produces and what Studio reads: TIMESTAMP values as integer unix
 * microseconds, DATETIME values as `YYYY-MM-DDTHH:MM:SS[.ffffff]`, and every JSON object under a
 * key wrapped in a one-element array, at every depth (`metadata[0].request[0].method`). All of it
 * works on PostgreSQL's text forms, so no value passes through a float or a JS object on the way:
 * microseconds and large JSON integers stay exact.
 */
import type { Compat } from '../../process/config.ts';
import { OID, PG_TIMESTAMP, RawJson, TEXT_PARSERS } from './pg-text.ts';

export type ResponseShape = 'standard' | 'logflare';

/** How the engine encodes values: Logflare's shape in COMPAT=logflare, else the standard one. */
export function responseShape(config: { readonly compat: Compat | null }): ResponseShape {
  return config.compat === 'logflare' ? 'logflare' : 'standard';
}

/** `timestamptz` text (session TimeZone is UTC) → unix microseconds; text when not representable. */
export function unixMicros(text: string): number | string {
  const m = PG_TIMESTAMP.exec(text);
  if (!m) return text; // infinity, BC dates
  const [, y, mo, d, h, mi, s, frac = ''] = m;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  const micros = date.getTime() * 1000 + Number(frac.padEnd(6, '0'));
  return Number.isSafeInteger(micros) ? micros : text;
}

/** `timestamp` (without time zone) text → `YYYY-MM-DDTHH:MM:SS`, or with `.ffffff` when it has a fraction. */
export function datetimeText(text: string): string {
  const m = PG_TIMESTAMP.exec(text);
  if (!m || m[8] !== undefined) return text;
  const [, y, mo, d, h, mi, s, frac] = m;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${frac === undefined ? '' : `.${frac.padEnd(6, '0')}`}`;
}

/**
 * JSON text with every object that is the value of a key (or the value itself, which is the value
 * of a column) wrapped in `[…]`. Objects that are array elements stay objects; their own nested
 * objects are wrapped. The input is PostgreSQL's jsonb output, so it is well-formed.
 */
export function wrapNestedObjects(json: string): string {
  // Fast path: no object at all (a string, number, or array of scalars).
  if (!json.includes('{')) return json;
  let out = '';
  let from = 0;
  // Per open container: whether it is an object we wrapped.
  const wrappedStack: boolean[] = [];
  // Whether the next value is the value of a key (or the top-level value).
  let keyed = true;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i++;
      while (json.charCodeAt(i) !== 0x22) i += json.charCodeAt(i) === 0x5c /* \ */ ? 2 : 1;
      continue;
    }
    if (c === 0x7b /* { */) {
      if (keyed) {
        out += json.slice(from, i) + '[';
        from = i;
      }
      wrappedStack.push(keyed);
      keyed = false;
    } else if (c === 0x7d /* } */) {
      if (wrappedStack.pop()) {
        out += json.slice(from, i + 1) + ']';
        from = i + 1;
      }
    } else if (c === 0x5b /* [ */) {
      wrappedStack.push(false);
      keyed = false;
    } else if (c === 0x5d /* ] */) {
      wrappedStack.pop();
    } else if (c === 0x3a /* : */) {
      keyed = true;
    } else if (c === 0x2c /* , */) {
      keyed = false;
    }
  }
  return out + json.slice(from);
}

const rawWrapped = (text: string): RawJson => new RawJson(wrapNestedObjects(text));

/** OID → parser for Logflare's shape: the standard parsers with its timestamp and JSON forms. */
const LOGFLARE_TEXT_PARSERS: Readonly<Record<number, (text: string) => unknown>> = Object.freeze({
  ...TEXT_PARSERS,
  [OID.timestamptz]: unixMicros,
  [OID.timestamp]: datetimeText,
  [OID.jsonb]: rawWrapped,
  [OID.json]: rawWrapped,
});

/** The text parsers an engine uses for a response shape. */
export function textParsers(shape: ResponseShape): Readonly<Record<number, (text: string) => unknown>> {
  return shape === 'logflare' ? LOGFLARE_TEXT_PARSERS : TEXT_PARSERS;
}
