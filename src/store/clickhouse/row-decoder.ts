/**
 * ClickHouse's JSON output → the row values the PostgreSQL engines give (encode.ts), through the
 * same text parsers: a DateTime64 is read as the timestamptz text it equals, a 64-bit integer (sent
 * quoted) as int8 text, a Decimal as numeric text; a String column the stored query declares an
 * object or array is its JSON text, spliced as jsonb is. So both engines answer with the same bytes,
 * in either response shape.
 */
import { OID } from '../../query/encode.ts';

type Parsers = Readonly<Record<number, (text: string) => unknown>>;
type Decode = (value: unknown) => unknown;

/** Decoders for the columns of one result, decided once from its types. */
export function rowDecoders(meta: readonly { name: string; type: string }[], jsonColumns: ReadonlySet<string>, parsers: Parsers): Decode[] {
  return meta.map(({ name, type }) => decoderFor(bareType(type), jsonColumns.has(name), parsers));
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

const nullable = (f: (text: string) => unknown): Decode => (v) => (v === null ? null : f(String(v)));

function decoderFor(type: string, json: boolean, parsers: Parsers): Decode {
  if (type.startsWith('DateTime')) return nullable((text) => parsers[OID.timestamptz]!(`${text}+00`));
  if (/^U?Int(64|128|256)$/.test(type)) return nullable(parsers[OID.int8]!);
  if (type.startsWith('Decimal')) return nullable(parsers[OID.numeric]!);
  if (type === 'String' && json) return nullable(parsers[OID.jsonb]!);
  return (v) => v;
}
