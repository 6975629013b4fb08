/**
 * ClickHouse's JSON output → the row values the PostgreSQL engines give (values/pg-text.ts), through the
 * same text parsers: a DateTime64 is read as the timestamptz text it equals, a 64-bit integer (sent
 * quoted) as int8 text, a Decimal as numeric text; a String column the stored query declares an
 * object or array is its JSON text, spliced as jsonb is. So both engines answer with the same bytes,
 * in either response shape.
 */
import { OID } from '../values/pg-text.ts';
import { jsonbText } from '../values/jsonb-text.ts';
import type { ResultColumns } from '../engine.ts';

type Parsers = Readonly<Record<number, (text: string) => unknown>>;
type Decode = (value: unknown) => unknown;

/**
 * Decoders for the columns of one result, decided once from its types. `printJson`: JSON text that
 * ClickHouse made (a caller's `->` minifies) is printed as jsonb prints it; stored text already is.
 */
export function rowDecoders(meta: readonly { name: string; type: string }[], columns: ResultColumns, printJson: boolean, parsers: Parsers): Decode[] {
  return meta.map(({ name, type }) => decoderFor(bareType(type), name, columns, printJson, parsers));
}

/** `Nullable(LowCardinality(String))` → `String`. */
function bareType(type: string): string {
  let t = type;
  for (;;) {
    const m = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(t);
    if (m === null) return t;
    t = m[1]!;
  }
}

/** ClickHouse prints every fractional digit of a DateTime64; PostgreSQL drops trailing zeros (and a bare point). */
const pgFraction = (text: string): string => (text.length > 19 && text.endsWith('0') ? text.replace(/\.?0+$/, '') : text);

const nullable = (f: (text: string) => unknown): Decode => (v) => (v === null ? null : f(String(v)));

function decoderFor(type: string, name: string, columns: ResultColumns, printJson: boolean, parsers: Parsers): Decode {
  const json = columns.json.has(name);
  if (type.startsWith('DateTime') && columns.timestamps.has(name)) return nullable((text) => parsers[OID.timestamp]!(pgFraction(text)));
  if (type.startsWith('DateTime')) return nullable((text) => parsers[OID.timestamptz]!(`${pgFraction(text)}+00`));
  if (/^U?Int(64|128|256)$/.test(type)) return nullable(parsers[OID.int8]!);
  if (type.startsWith('Decimal')) return nullable(parsers[OID.numeric]!);
  if (type === 'String' && json) return nullable(printJson ? (text) => parsers[OID.jsonb]!(jsonbText(text) ?? text) : parsers[OID.jsonb]!);
  return (v) => v;
}
