/**
 * Constants and casts printed for ClickHouse (emit-expression.ts reads them): a literal converted
 * while printing to the type beside it, as PostgreSQL reads it (timestamps, dates, intervals,
 * numbers, booleans, JSON), and casts with PostgreSQL's input syntax, range checks and errors.
 */
import { HttpError } from '../../shared/errors.ts';
import { jsonbText } from '../../store/values/jsonb-text.ts';
import { clickhouseTimestamp } from '../../store/clickhouse/timestamps.ts';
import { stringList, type Json } from '../sandbox/sql-parser.ts';
import { chString, expr, unsupported, type Expr, type IntervalTerm, type PgType } from './emit-types.ts';

/** Integer types narrower than ClickHouse's Int64 that PostgreSQL range-checks on a cast. */
export const INT_BITS: Readonly<Record<string, number>> = Object.freeze({ int2: 16, smallint: 16, int4: 32, integer: 32, int: 32 });

/** The types a cast may name, as the emitter computes with them. */
export function castTarget(typeName: Json, at: string): PgType {
  const name = stringList(typeName['names']).at(-1) ?? '';
  if (Array.isArray(typeName['arrayBounds'])) return unsupported(`the array type ${name}[]`, at);
  const mods = Array.isArray(typeName['typmods']) && (typeName['typmods'] as unknown[]).length > 0;
  const types: Record<string, PgType> = {
    text: 'text', varchar: 'text', int2: 'int', int4: 'int', int8: 'int', smallint: 'int', integer: 'int', int: 'int', bigint: 'int',
    numeric: 'numeric', decimal: 'numeric', float4: 'numeric', float8: 'numeric', real: 'numeric', bool: 'bool', boolean: 'bool',
    timestamptz: 'timestamptz', timestamp: 'timestamp', date: 'date', interval: 'interval', jsonb: 'jsonb', json: 'jsonb',
    // bytes are ClickHouse strings (BigQuery's BYTES functions translate to bytea)
    bytea: 'text',
  };
  const type = types[name];
  if (type === undefined || (mods && name !== 'timestamptz' && name !== 'timestamp' && name !== 'varchar')) return unsupported(`the type ${name}${mods ? ' with a modifier' : ''}`, at);
  return type;
}

/**
 * text → a number as PostgreSQL reads it: what matches `pattern` (PostgreSQL's input syntax), else
 * PostgreSQL's error. ClickHouse's own conversions accept other spellings, or give NULL.
 */
export function checkedParse(x: string, pattern: string, parse: string, type: string): string {
  return `multiIf(${x} IS NULL, NULL, match(${x}, ${chString(pattern)}), ${parse}(trimBoth(${x})), ${parse}(toString(throwIf(${x} IS NOT NULL, 'invalid input syntax for type ${type}'))))`;
}

/** text → boolean with PostgreSQL's spellings; anything else is its error, as a ClickHouse exception. */
export function textToBool(x: string): Expr {
  const v = `lower(trimBoth(${x}))`;
  return expr(`multiIf(${x} IS NULL, NULL, ${v} IN ('t', 'tr', 'tru', 'true', 'y', 'ye', 'yes', 'on', '1'), true, ${v} IN ('f', 'fa', 'fal', 'fals', 'false', 'n', 'no', 'of', 'off', '0'), false, toBool(throwIf(${x} IS NOT NULL, 'invalid input syntax for type boolean')))`, 'bool');
}

/** A literal read as `type`, converted while printing: what PostgreSQL would refuse is refused. */
export function literalAs(value: string, type: PgType, at: string): Expr {
  switch (type) {
    case 'text': case 'unknown': case 'other': return { ...expr(chString(value), 'text'), literal: value };
    case 'int': {
      if (!/^\s*[+-]?\d+\s*$/.test(value)) return invalidInput('integer', value);
      return expr(String(BigInt(value.trim())), 'int');
    }
    case 'numeric': {
      const n = Number(value.trim());
      // PostgreSQL's float8 infinities and NaN compare as its own (NaN equals NaN), ClickHouse's by IEEE rules.
      if (/^\s*[+-]?(inf|infinity|nan)\s*$/i.test(value)) return unsupported(`the number ${JSON.stringify(value.trim())} (an infinity or NaN)`, at);
      if (value.trim() === '' || !Number.isFinite(n)) return invalidInput('numeric', value);
      return expr(`toFloat64(${chString(String(n))})`, 'numeric');
    }
    case 'bool': {
      const v = value.trim().toLowerCase();
      if (['t', 'true', 'y', 'yes', 'on', '1'].includes(v)) return expr('true', 'bool');
      if (['f', 'false', 'n', 'no', 'off', '0'].includes(v)) return expr('false', 'bool');
      return invalidInput('boolean', value);
    }
    case 'timestamp':
    case 'timestamptz': {
      const v = value.trim().toLowerCase() === 'epoch' ? '1970-01-01' : value.trim();
      const text = /^\d{4}-\d\d-\d\d$/.test(v) ? `${v}T00:00:00Z` : v;
      let ch: string;
      try {
        ch = clickhouseTimestamp(text);
      } catch {
        // What PostgreSQL would read too (other spellings) is refused by name; the rest is its error.
        return Number.isNaN(Date.parse(value)) ? invalidInput('timestamp with time zone', value) : unsupported(`the timestamp "${value}" (write it as ISO 8601)`, at);
      }
      return expr(`toDateTime64(${chString(ch)}, 6, 'UTC')`, type);
    }
    case 'date': {
      if (!/^\d{4}-\d\d-\d\d$/.test(value.trim())) return unsupported(`the date "${value}" (write it as YYYY-MM-DD)`, at);
      // A date that does not exist is PostgreSQL's error (ClickHouse would read it as 1970-01-01).
      if (new Date(`${value.trim()}T00:00:00Z`).toISOString().slice(0, 10) !== value.trim()) return invalidInput('date', value);
      return expr(`toDate(${chString(value.trim())})`, 'date');
    }
    case 'interval': return { ...expr('', 'interval'), interval: intervalTerms(value, at), literal: value };
    case 'jsonb': {
      let text: string | null;
      try {
        text = jsonbText(value);
      } catch {
        text = null;
      }
      return text === null ? invalidInput('json', value) : { ...expr(chString(text), 'jsonb'), literal: text };
    }
    default: return unsupported(`a literal as ${type}`, at);
  }
}

const INTERVAL_UNITS: Readonly<Record<string, string>> = Object.freeze({
  microsecond: 'Microsecond', millisecond: 'Millisecond', second: 'Second', sec: 'Second', s: 'Second',
  minute: 'Minute', min: 'Minute', m: 'Minute', hour: 'Hour', hr: 'Hour', h: 'Hour', day: 'Day', d: 'Day',
  week: 'Week', w: 'Week', month: 'Month', mon: 'Month', year: 'Year', yr: 'Year', y: 'Year',
});

/** A timestamp or date as DateTime64(6, 'UTC'). */
export function asTimestamp(e: Expr): string {
  return e.type === 'date' ? `toDateTime64(${e.sql}, 6, 'UTC')` : e.sql;
}

/** `'10 years'`, `'1 hour 30 minutes'`, `'-2 days'` → interval terms; other spellings refused. */
export function intervalTerms(text: string, at: string): IntervalTerm[] {
  const terms: IntervalTerm[] = [];
  const re = /\s*([+-]?\d+)\s*([a-z]+)\s*/giy;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(text)) !== null) {
    const unit = INTERVAL_UNITS[m[2]!.toLowerCase().replace(/s$/, '')] ?? INTERVAL_UNITS[m[2]!.toLowerCase()];
    if (unit === undefined) break;
    terms.push({ count: String(Number(m[1])), unit });
    end = re.lastIndex;
  }
  if (terms.length === 0 || end !== text.length) return unsupported(`the interval "${text}" (write it as "N unit …")`, at);
  return terms;
}

export function constant(body: Json, at: string): Expr {
  if (body['isnull']) return expr('NULL', 'null');
  if ('ival' in body) return expr(String(Number((body['ival'] as Json)['ival'] ?? 0)), 'int');
  if ('fval' in body) {
    const text = String((body['fval'] as Json)['fval']);
    // An integer past int4 is a Float node: int8 where it fits (as PostgreSQL types it), else numeric.
    if (/^\d+$/.test(text) && BigInt(text) <= 9223372036854775807n) return expr(`toInt64(${text})`, 'int');
    return expr(`toFloat64('${text}')`, 'numeric');
  }
  if ('boolval' in body) return expr((body['boolval'] as Json)['boolval'] ? 'true' : 'false', 'bool');
  if ('sval' in body) {
    const value = String((body['sval'] as Json)['sval'] ?? '');
    return { ...expr(chString(value), 'unknown'), literal: value };
  }
  return unsupported('a bit-string constant', at);
}

export function sqlValueFunction(op: string, at: string): Expr {
  if (op.startsWith('SVFOP_CURRENT_TIMESTAMP') || op.startsWith('SVFOP_LOCALTIMESTAMP')) return expr("now64(6, 'UTC')", 'timestamptz');
  if (op === 'SVFOP_CURRENT_DATE') return expr("toDate(now64(6, 'UTC'), 'UTC')", 'date');
  return unsupported(op.replace('SVFOP_', '').toLowerCase(), at);
}

/**
 * A constant PostgreSQL refuses to read as its type: the same answer as PostgreSQL gives when it
 * runs the statement (query_error, its message), found here while printing.
 */
export function invalidInput(type: string, value: string): never {
  throw new HttpError('query_error', `The database rejected the query: invalid input syntax for type ${type}: "${value}"`);
}
