/**
 * JSON paths on `metadata` printed for ClickHouse with PostgreSQL's meaning (emit-expression.ts
 * reads them): constant keys and paths, `->>`'s scalar rules, JSON text spaced as jsonb prints it,
 * the stored CTEs' map of each top-level key's kind, `jsonb_typeof(x) = 'kind'` and `@>`.
 */
import { stringList, wrapped, type Json } from '../sandbox/sql-parser.ts';
import { chString, expr, unsupported, type Expr, type Emitter } from './emit-types.ts';
import { literalAs } from './emit-constants.ts';

/** A JSON key or array index: a constant, as PostgreSQL reads it (array indexes from 0, ClickHouse's from 1). */
export function jsonKey(node: unknown, at: string): string {
  const c = wrapped(node, 'A_Const');
  if (c && 'sval' in c) return chString(String((c['sval'] as Json)['sval'] ?? ''));
  if (c && 'ival' in c) {
    const i = Number((c['ival'] as Json)['ival'] ?? 0);
    return String(i >= 0 ? i + 1 : i);
  }
  return unsupported('a JSON key that is not a constant', at);
}

/** `#>`'s path: a text-array constant of object keys. */
export function pathKeys(node: unknown, at: string): string[] {
  const inner = wrapped(node, 'TypeCast')?.['arg'] ?? node;
  const c = wrapped(inner, 'A_Const');
  const text = c && 'sval' in c ? String((c['sval'] as Json)['sval'] ?? '') : undefined;
  const m = text === undefined ? null : /^\{([^{}"\\]*)\}$/.exec(text.trim());
  // ARRAY['a', 'b'] (the BigQuery translation writes paths so) or '{a,b}'.
  const array = wrapped(inner, 'A_ArrayExpr');
  const elements = array === undefined ? undefined : ((array['elements'] as unknown[] | undefined) ?? []).map((el) => {
    const k = wrapped(el, 'A_Const');
    return k && 'sval' in k ? String((k['sval'] as Json)['sval'] ?? '') : unsupported('a JSON path step that is not a constant', at);
  });
  if (m === null && elements === undefined) return unsupported('a JSON path that is not a constant like \'{a,b}\'', at);
  const keys = elements ?? m![1]!.split(',').map((k) => k.trim()).filter((k) => k !== '');
  // `#>` reads a number as an array index where the value is an array and as a key elsewhere.
  if (keys.some((k) => /^-?\d+$/.test(k))) return unsupported('a numeric step in a JSON path', at);
  return keys.map(chString);
}

/** `->>`: a string's text, a number's or boolean's JSON text, NULL for null and for what is absent. */
export function scalarText(json: { root: string; path: readonly string[]; parsed?: boolean }): Expr {
  const args = [json.root, ...json.path].join(', ');
  const present = json.path.length === 0 ? '1' : `JSONHas(${args})`;
  return expr(`multiIf(JSONType(${args}) = 'String', JSONExtractString(${args}), ${present} AND JSONType(${args}) != 'Null', ${jsonAsText(`JSONExtractRaw(${args})`, json.parsed === true)}, NULL)`, 'text');
}

/**
 * JSON text as jsonb's text: spaced as jsonb prints it. An object parsed from text (try_jsonb)
 * keeps its source's key order where jsonb sorts keys: that is PostgreSQL's error here, not
 * another answer.
 */
export function jsonAsText(x: string, parsed: boolean): string {
  if (!parsed) return pgJsonText(x);
  const object = `JSONType(assumeNotNull(${x})) IN ('Object', 'Array')`;
  return `if(${x} IS NOT NULL AND ${object}, toString(throwIf(${x} IS NOT NULL AND ${object}, 'a JSON object or array parsed from text, read as text: its keys would not be in jsonb order on the ClickHouse engine')), ${pgJsonText(x)})`;
}

/**
 * JSON text ClickHouse printed (minified) spaced as jsonb prints it: `, ` and `: ` outside strings.
 * Key order and numbers stay as the source has them (the stored metadata is jsonb's text already).
 */
export function pgJsonText(x: string): string {
  const spaced = `arrayStringConcat(arrayMap(t -> multiIf(t = ',', ', ', t = ':', ': ', t), extractAll(assumeNotNull(${x}), ${chString('"(?:[^"\\\\]|\\\\.)*"|[^",:]+|[,:]')})))`;
  return `if(${x} IS NULL, NULL, ${spaced})`;
}

/** A top-level key of a stored CTE's `metadata`, whose kind its companion map holds (emit-types.ts). */
export function topLevelKinds(j: { path: readonly string[]; kinds?: string }): { map: string; key: string } | undefined {
  return j.kinds !== undefined && j.path.length === 1 && j.path[0]!.startsWith("'") ? { map: j.kinds, key: j.path[0]! } : undefined;
}

/**
 * `jsonb_typeof(x) = 'object'` (the BigQuery translation's test for a record, on every row of
 * Studio's queries) as one type read of the document; NULL where x is absent, as jsonb_typeof's.
 */
export function typeTest(e: Emitter, call: unknown, constant: unknown): Expr | undefined {
  const f = wrapped(call, 'FuncCall');
  const name = stringList(f?.['funcname']).at(-1);
  const kind = wrapped(constant, 'A_Const')?.['sval'] as Json | undefined;
  const args = (f?.['args'] as unknown[] | undefined) ?? [];
  if ((name !== 'jsonb_typeof' && name !== 'json_typeof') || kind === undefined || args.length !== 1 || f!['over'] !== undefined) return undefined;
  const v = e.emit(args[0]);
  if (v.type !== 'jsonb') return undefined;
  const j = v.json ?? { root: v.sql, path: [] };
  const a = [j.root, ...j.path].join(', ');
  const types: Record<string, string> = { object: "= 'Object'", array: "= 'Array'", string: "= 'String'", boolean: "= 'Bool'", number: "IN ('Int64', 'UInt64', 'Double')", null: "= 'Null'" };
  const wanted = String(kind['sval'] ?? '');
  const test = types[wanted];
  if (test === undefined) return undefined;
  const kinds = topLevelKinds(j);
  if (kinds !== undefined) return expr(`if(mapContains(${kinds.map}, ${kinds.key}), ${kinds.map}[${kinds.key}] = ${chString(wanted)}, NULL)`, 'bool');
  if (j.path.length === 0) return expr(`(toString(JSONType(${a})) ${test})`, 'bool');
  // JSONType reads an absent key as 'Null': JSONHas tells the two apart, only where it must.
  return expr(`multiIf(toString(JSONType(${a})) = 'Null' AND NOT JSONHas(${a}), NULL, toString(JSONType(${a})) ${test})`, 'bool');
}

/** `json @> constant`: every member of the constant object is in the value, compared as jsonb compares. */
export function contains(left: Expr, right: Expr, at: string): Expr {
  const r = right.type === 'unknown' ? literalAs(right.literal ?? '', 'jsonb', at) : right;
  if (left.type !== 'jsonb' || r.type !== 'jsonb' || r.literal === undefined) return unsupported('@> other than a JSON value containing a constant', at);
  const base = left.json ?? { root: left.sql, path: [] };
  const tests: string[] = [];
  const walk = (value: unknown, path: readonly string[]): void => {
    const args = [base.root, ...base.path, ...path].join(', ');
    if (value === null) tests.push(`JSONType(${args}) = 'Null' AND JSONHas(${args})`);
    else if (typeof value === 'string') tests.push(`JSONType(${args}) = 'String' AND JSONExtractString(${args}) = ${chString(value)}`);
    else if (typeof value === 'boolean') tests.push(`JSONType(${args}) = 'Bool' AND JSONExtractBool(${args}) = ${value}`);
    else if (typeof value === 'number') tests.push(`JSONType(${args}) IN ('Int64', 'UInt64', 'Double') AND JSONExtractFloat(${args}) = ${chString(String(value))}::Float64`);
    else if (Array.isArray(value)) unsupported('@> with an array', at);
    else {
      tests.push(`JSONType(${args}) = 'Object'`);
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) walk(v, [...path, chString(k)]);
    }
  };
  walk(JSON.parse(r.literal), []);
  return expr(`(${tests.join(' AND ')})`, 'bool');
}
