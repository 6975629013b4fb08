/**
 * Function calls of the sandbox's allow-list (allow-lists.ts) as ClickHouse prints them with
 * PostgreSQL's meaning; a function not in this table is refused on the ClickHouse engine by name.
 * Scalars are here; aggregates and window functions in emit-aggregates.ts, OVER clauses in
 * emit-windows.ts.
 */
import { stringList, wrapped, type Json } from '../sandbox/sql-parser.ts';
import { chString, elementOf, expr, isNumber, jsonValueText, power, unsupported, type Expr, type PgType, type Emitter } from './emit-types.ts';
import { topLevelKinds } from './emit-json.ts';
import { AGGREGATES, aggregateOrWindow, percentile, RANKING, stringAgg, arrayAgg, VALUE_WINDOWS } from './emit-aggregates.ts';
import { windowSpec } from './emit-windows.ts';

type Emit = (e: Emitter, args: unknown[], at: string) => Expr;

/** `f(args)` printed as `name(args)`, the arguments read as `argTypes` and the result `result`. */
const plain = (name: string, argTypes: readonly PgType[], result: PgType, minArgs = argTypes.length): Emit => (e, args, at) => {
  if (args.length < minArgs || args.length > argTypes.length) return unsupported(`${name} with ${args.length} arguments`, at);
  const typed = args.map((a, i) => e.argAs(a, argTypes[i]!, at));
  return expr(`${name}(${typed.join(', ')})`, result);
};

/** A `x::float8` argument: floating point by the caller's own cast (BigQuery's POW translates so). */
const floatCast = (node: unknown): boolean => stringList(wrapped(wrapped(node, 'TypeCast')?.['typeName'], 'TypeName')?.['names'] ?? (wrapped(node, 'TypeCast')?.['typeName'] as Json | undefined)?.['names']).pop() === 'float8';

/**
 * power(a, b) as `^` prints it (emit-types.ts power); of two float8 casts, floating point with
 * PostgreSQL's errors (numeric power is exact in PostgreSQL, and refused there).
 */
const powerOf = (name: string): Emit => (e, args, at) => {
  if (args.length !== 2) return unsupported(`${name} without two arguments`, at);
  if (!floatCast(args[0]) || !floatCast(args[1])) return power(name, e.value(args[0]), e.value(args[1]), at);
  const [b, x] = [e.argAs(args[0], 'numeric', at), e.argAs(args[1], 'numeric', at)];
  return expr(`pow(${b}, ${x} + throwIf(${b} = 0 AND ${x} < 0, 'zero raised to a negative power is undefined') + throwIf(${b} < 0 AND ${x} != floor(${x}), 'a negative number raised to a non-integer power yields a complex result'))`, 'numeric');
};

/** A constant text argument (a unit name, a zone). */
function constText(node: unknown, what: string, at: string): string {
  const c = wrapped(node, 'A_Const');
  const value = c && 'sval' in c ? (c['sval'] as Json)['sval'] : undefined;
  if (typeof value !== 'string') return unsupported(`${what} that is not a constant`, at);
  return value;
}

/** PostgreSQL's date_trunc units → ClickHouse, always as DateTime64(6, 'UTC'). */
const TRUNC: Readonly<Record<string, string>> = Object.freeze({
  millisecond: 'toStartOfMillisecond', milliseconds: 'toStartOfMillisecond', second: 'toStartOfSecond', seconds: 'toStartOfSecond',
  minute: 'toStartOfMinute', minutes: 'toStartOfMinute', hour: 'toStartOfHour', hours: 'toStartOfHour',
  day: 'toStartOfDay', days: 'toStartOfDay', week: 'toMonday', weeks: 'toMonday', month: 'toStartOfMonth', months: 'toStartOfMonth',
  quarter: 'toStartOfQuarter', year: 'toStartOfYear', years: 'toStartOfYear',
});

/** extract/date_part fields → ClickHouse over a DateTime64(6, 'UTC'); PostgreSQL answers numeric. */
const FIELDS: Readonly<Record<string, (x: string) => string>> = Object.freeze({
  epoch: (x) => `(toUnixTimestamp64Micro(${x}) / 1000000)`,
  year: (x) => `toYear(${x})`, isoyear: (x) => `toISOYear(${x})`, quarter: (x) => `toQuarter(${x})`, month: (x) => `toMonth(${x})`, week: (x) => `toISOWeek(${x})`,
  day: (x) => `toDayOfMonth(${x})`, doy: (x) => `toDayOfYear(${x})`, dow: (x) => `(toDayOfWeek(${x}) % 7)`, isodow: (x) => `toDayOfWeek(${x})`,
  hour: (x) => `toHour(${x})`, minute: (x) => `toMinute(${x})`,
  second: (x) => `((toUnixTimestamp64Micro(${x}) % 60000000) / 1000000)`,
  milliseconds: (x) => `((toUnixTimestamp64Micro(${x}) % 60000000) / 1000)`,
  microseconds: (x) => `(toUnixTimestamp64Micro(${x}) % 60000000)`,
});

function utcOnly(node: unknown, at: string): void {
  if (node !== undefined && !['utc', 'etc/utc', 'gmt', 'z'].includes(constText(node, 'a time zone', at).toLowerCase())) unsupported('a time zone other than UTC', at);
}

/** f(x) with PostgreSQL's error where x is out of f's domain (`x <op> 0`). */
const guarded = (name: string, op: '<' | '<=', message: string): Emit => (e, args, at) => {
  if (args.length !== 1) return unsupported(`${name} with ${args.length} arguments`, at);
  const x = e.argAs(args[0], 'numeric', at);
  return expr(`${name}(${x} + throwIf(${x} ${op} 0, ${chString(message)}))`, 'numeric');
};

const SCALARS: Readonly<Record<string, Emit>> = Object.freeze({
  lower: plain('lowerUTF8', ['text'], 'text'),
  initcap: plain('initcapUTF8', ['text'], 'text'),
  bit_length: (e, args, at) => expr(`(length(${e.argAs(args[0], 'text', at)}) * 8)`, 'int'),
  trim: plain('trimBoth', ['text', 'text'], 'text', 1),
  // concat_ws skips NULLs (the separator too, when it is NULL the answer is NULL).
  concat_ws: (e, args, at) => {
    if (args.length < 2) return unsupported('concat_ws with fewer than two arguments', at);
    const sep = e.argAs(args[0], 'text', at);
    return expr(`if(${sep} IS NULL, NULL, arrayStringConcat(arrayFilter(x -> x IS NOT NULL, [${args.slice(1).map((a) => e.textOf(a, at)).join(', ')}]), assumeNotNull(${sep})))`, 'text');
  },
  regexp_count: (e, args, at) => {
    if (args.length !== 2) return unsupported('regexp_count with a start or flags', at);
    return expr(`countMatches(${e.argAs(args[0], 'text', at)}, ${e.argAs(args[1], 'text', at)})`, 'int');
  },
  num_nulls: (e, args) => expr(`(${args.map((a) => `toInt64(${e.value(a).sql} IS NULL)`).join(' + ')})`, 'int'),
  num_nonnulls: (e, args) => expr(`(${args.map((a) => `toInt64(${e.value(a).sql} IS NOT NULL)`).join(' + ')})`, 'int'),
  random: (_e, _args, _at) => expr('(rand64() / 18446744073709551616)', 'numeric'),
  clock_timestamp: (_e, _args, _at) => expr("now64(6, 'UTC')", 'timestamptz'),
  // ClickHouse has no infinite timestamps.
  isfinite: (e, args, at) => expr(`if(${e.as(e.emit(args[0]), 'timestamptz', at).sql} IS NULL, NULL, true)`, 'bool'),
  // to_timestamp(seconds since the epoch); to_timestamp(text, format) is refused by its arguments.
  to_timestamp: (e, args, at) => {
    if (args.length !== 1) return unsupported('to_timestamp with a format', at);
    return expr(`toDateTime64(${e.argAs(args[0], 'numeric', at)}, 6, 'UTC')`, 'timestamptz');
  },
  mod: (e, args, at) => e.divide('%', args[0], args[1], at),
  div: (e, args, at) => {
    const q = e.divide('/', args[0], args[1], at);
    return q.type === 'int' ? q : expr(`trunc(${q.sql})`, 'numeric');
  },
  upper: plain('upperUTF8', ['text'], 'text'),
  length: plain('lengthUTF8', ['text'], 'int'),
  char_length: plain('lengthUTF8', ['text'], 'int'),
  character_length: plain('lengthUTF8', ['text'], 'int'),
  octet_length: plain('length', ['text'], 'int'),
  left: plain('leftUTF8', ['text', 'int'], 'text'),
  right: plain('rightUTF8', ['text', 'int'], 'text'),
  replace: plain('replaceAll', ['text', 'text', 'text'], 'text'),
  strpos: plain('positionUTF8', ['text', 'text'], 'int'),
  starts_with: plain('startsWith', ['text', 'text'], 'bool'),
  reverse: plain('reverseUTF8', ['text'], 'text'),
  repeat: plain('repeat', ['text', 'int'], 'text'),
  lpad: plain('leftPadUTF8', ['text', 'int', 'text'], 'text', 2),
  rpad: plain('rightPadUTF8', ['text', 'int', 'text'], 'text', 2),
  btrim: plain('trimBoth', ['text', 'text'], 'text', 1),
  ltrim: plain('trimLeft', ['text', 'text'], 'text', 1),
  rtrim: plain('trimRight', ['text', 'text'], 'text', 1),
  cardinality: (e, args, at) => {
    const v = e.value(args[0]);
    if (elementOf(v.type) === undefined) return unsupported(`cardinality of ${v.type}`, at);
    return expr(v.nullIfEmpty ? `if(empty(${v.sql}), NULL, length(${v.sql}))` : `length(${v.sql})`, 'int');
  },
  md5: (e, args, at) => expr(`lower(hex(MD5(${e.argAs(args[0], 'text', at)})))`, 'text'),
  position: plain('positionUTF8', ['text', 'text'], 'int'),
  split_part: (e, args, at) => {
    if (args.length !== 3) return unsupported('split_part without three arguments', at);
    const [s, d, n] = args.map((a, i) => e.argAs(a, i === 2 ? 'int' : 'text', at));
    return expr(`splitByString(${d}, ${s})[${n} + throwIf(${n} = 0, 'field position must not be zero')]`, 'text');
  },
  substr: substring,
  substring,
  abs: numeric('abs'),
  ceil: numeric('ceil'),
  ceiling: numeric('ceil'),
  floor: numeric('floor'),
  trunc: (e, args, at) => (args.length === 2 ? expr(`trunc(${e.argAs(args[0], 'numeric', at)}, ${e.argAs(args[1], 'int', at)})`, 'numeric') : numeric('trunc')(e, args, at)),
  // PostgreSQL's hexadecimal of an integer: lower case, no leading zeros.
  to_hex: (e, args, at) => {
    const x = e.argAs(args[0], 'int', at);
    return expr(`if(${x} = 0, '0', trimLeft(lower(hex(${x})), '0'))`, 'text');
  },
  // JSON of a value (BigQuery's TO_JSON_STRING translates to it): JSON passes through; text, numbers,
  // booleans and arrays as JSON, '/' unescaped as PostgreSQL writes it.
  to_json: (e, args, at) => {
    if (args.length !== 1) return unsupported('to_json with more than one value', at);
    const v = e.value(args[0]);
    if (v.type === 'jsonb') return v;
    if (!['text', 'int', 'numeric', 'bool'].includes(v.type) && !['text[]', 'int[]', 'numeric[]', 'bool[]'].includes(v.type)) return unsupported(`to_json of ${v.type}`, at);
    return expr(`if(${v.sql} IS NULL, NULL, ${jsonValueText(v)})`, 'jsonb');
  },
  sign: numeric('sign'),
  // PostgreSQL's errors where ClickHouse would answer nan or -inf.
  sqrt: guarded('sqrt', '<', 'cannot take square root of a negative number'),
  cbrt: plain('cbrt', ['numeric'], 'numeric'),
  exp: plain('exp', ['numeric'], 'numeric'),
  ln: guarded('log', '<=', 'cannot take logarithm of zero or a negative number'),
  log: (e, args, at) => {
    if (args.length === 1) return guarded('log10', '<=', 'cannot take logarithm of zero or a negative number')(e, args, at);
    // log(base, x)
    const [b, x] = [e.argAs(args[0], 'numeric', at), e.argAs(args[1], 'numeric', at)];
    return expr(`(log(${x} + throwIf(${x} <= 0, 'cannot take logarithm of zero or a negative number')) / log(${b} + throwIf(${b} <= 0 OR ${b} = 1, 'cannot take logarithm of this base')))`, 'numeric');
  },
  log10: guarded('log10', '<=', 'cannot take logarithm of zero or a negative number'),
  cos: plain('cos', ['numeric'], 'numeric'),
  sin: plain('sin', ['numeric'], 'numeric'),
  tan: plain('tan', ['numeric'], 'numeric'),
  acos: plain('acos', ['numeric'], 'numeric'),
  asin: plain('asin', ['numeric'], 'numeric'),
  atan: plain('atan', ['numeric'], 'numeric'),
  atan2: plain('atan2', ['numeric', 'numeric'], 'numeric'),
  cot: (e, args, at) => expr(`(1 / tan(${e.argAs(args[0], 'numeric', at)}))`, 'numeric'),
  make_date: plain('makeDate', ['int', 'int', 'int'], 'date'),
  make_timestamp: (e, args, at) => {
    if (args.length !== 6) return unsupported(`make_timestamp with ${args.length} arguments`, at);
    const [y, m, d, h, mi] = args.slice(0, 5).map((a) => e.argAs(a, 'int', at));
    const s = e.argAs(args[5], 'numeric', at);
    return expr(`addMicroseconds(toDateTime64(makeDateTime(${y}, ${m}, ${d}, ${h}, ${mi}, 0, 'UTC'), 6, 'UTC'), toInt64(round(${s} * 1000000)))`, 'timestamp');
  },
  // Bytes are ClickHouse strings: BigQuery's MD5, SHA256, TO_HEX, TO_BASE64 and FROM_BASE64 translate to these.
  encode: (e, args, at) => {
    const format = constText(args[1], 'an encode format', at);
    const b = e.argAs(args[0], 'text', at);
    if (format === 'hex') return expr(`lower(hex(${b}))`, 'text');
    if (format === 'base64') return expr(`base64Encode(${b})`, 'text');
    return unsupported(`encode(…, '${format}')`, at);
  },
  decode: (e, args, at) => {
    const format = constText(args[1], 'a decode format', at);
    const t = e.argAs(args[0], 'text', at);
    if (format === 'hex') return expr(`unhex(${t})`, 'text');
    if (format === 'base64') return expr(`base64Decode(${t})`, 'text');
    return unsupported(`decode(…, '${format}')`, at);
  },
  sha256: plain('SHA256', ['text'], 'text'),
  convert_to: (e, args, at) => {
    if (constText(args[1], 'an encoding', at).toUpperCase().replace('-', '') !== 'UTF8') return unsupported('an encoding other than UTF8', at);
    return expr(e.argAs(args[0], 'text', at), 'text');
  },
  // An empty string is no elements; an empty delimiter (or pattern) splits into characters.
  string_to_array: (e, args, at) => {
    if (args.length !== 2) return unsupported(`string_to_array with ${args.length} arguments`, at);
    const [s, d] = [e.argAs(args[0], 'text', at), e.argAs(args[1], 'text', at)];
    return expr(`if(${s} = '', CAST([] AS Array(String)), if(${d} = '', splitByRegexp('', ${s}), splitByString(${d}, ${s})))`, 'text[]');
  },
  regexp_split_to_array: (e, args, at) => {
    if (args.length !== 2 || constText(args[1], 'a regexp_split_to_array pattern', at) !== '') return unsupported('regexp_split_to_array with a pattern other than \'\'', at);
    return expr(`splitByRegexp('', ${e.argAs(args[0], 'text', at)})`, 'text[]');
  },
  array_to_string: (e, args, at) => {
    if (args.length !== 2 && args.length !== 3) return unsupported(`array_to_string with ${args.length} arguments`, at);
    const v = e.value(args[0]);
    if (elementOf(v.type) !== 'text') return unsupported(`array_to_string of ${v.type}`, at);
    const d = e.argAs(args[1], 'text', at);
    const elements = args[2] === undefined ? `arrayFilter(x -> x IS NOT NULL, ${v.sql})` : `arrayMap(x -> ifNull(x, ${e.argAs(args[2], 'text', at)}), ${v.sql})`;
    return expr(`arrayStringConcat(${elements}, ${d})`, 'text');
  },
  power: powerOf('power'),
  pow: powerOf('pow'),
  pi: plain('pi', [], 'numeric'),
  degrees: plain('degrees', ['numeric'], 'numeric'),
  radians: plain('radians', ['numeric'], 'numeric'),
  round: (e, args, at) => {
    // PostgreSQL rounds numeric half away from zero; ClickHouse's round() is banker's on floats.
    const x = e.argAs(args[0], 'numeric', at);
    const scale = args[1] === undefined ? '0' : e.argAs(args[1], 'int', at);
    return expr(`(if(${x} < 0, -1, 1) * floor(abs(${x}) * pow(10, ${scale}) + 0.5) / pow(10, ${scale}))`, 'numeric');
  },
  now: (_e, _args, _at) => expr("now64(6, 'UTC')", 'timestamptz'),
  current_timestamp: (_e, _args, _at) => expr("now64(6, 'UTC')", 'timestamptz'),
  statement_timestamp: (_e, _args, _at) => expr("now64(6, 'UTC')", 'timestamptz'),
  transaction_timestamp: (_e, _args, _at) => expr("now64(6, 'UTC')", 'timestamptz'),
  date_trunc: (e, args, at) => {
    const unit = constText(args[0], 'a date_trunc unit', at).toLowerCase();
    const fn = TRUNC[unit] ?? unsupported(`date_trunc('${unit}')`, at);
    utcOnly(args[2], at);
    return expr(`toDateTime64(${fn}(${e.argAs(args[1], 'timestamptz', at)}), 6, 'UTC')`, 'timestamptz');
  },
  date_part: (e, args, at) => {
    const field = constText(args[0], 'a date_part field', at).toLowerCase();
    const value = e.emit(args[1]);
    // The epoch of an interval: a difference of timestamps, in seconds.
    if (value.micros !== undefined) return field === 'epoch' ? expr(`(${value.micros} / 1000000)`, 'numeric') : unsupported(`the field ${field} of an interval`, at);
    const fn = FIELDS[field] ?? unsupported(`the field ${field}`, at);
    return expr(fn(e.as(value, 'timestamptz', at).sql), 'numeric');
  },
  extract: (e, args, at) => SCALARS['date_part']!(e, args, at),
  // AT TIME ZONE 'UTC': a timestamptz's UTC wall-clock time (timestamp), or a timestamp read as UTC.
  timezone: (e, args, at) => {
    utcOnly(args[0], at);
    const v = e.value(args[1]);
    const local = v.type === 'timestamp' || v.type === 'unknown';
    return expr(e.as(v, local ? 'timestamp' : 'timestamptz', at).sql, local ? 'timestamptz' : 'timestamp');
  },
  regexp_like: (e, args, at) => {
    if (args.length !== 2) return unsupported('regexp_like with flags', at);
    return expr(`match(${e.argAs(args[0], 'text', at)}, ${e.argAs(args[1], 'text', at)})`, 'bool');
  },
  // to_char of a timestamp or date with a constant pattern (BigQuery's FORMAT_TIMESTAMP translates to it).
  to_char: (e, args, at) => {
    if (args.length !== 2) return unsupported('to_char without a pattern', at);
    const v = e.value(args[0]);
    if (v.type !== 'timestamptz' && v.type !== 'timestamp' && v.type !== 'date') return unsupported(`to_char of ${v.type}`, at);
    return expr(`formatDateTime(${v.sql}, ${chString(toCharFormat(constText(args[1], 'a to_char pattern', at), at))}, 'UTC')`, 'text');
  },
  // The log schema's own: text that is JSON as jsonb, else NULL (sql/schema.sql).
  try_jsonb: (e, args, at) => {
    const x = e.argAs(args[0], 'text', at);
    return { sql: '', type: 'jsonb', json: { root: `if(isValidJSON(${x}), ${x}, NULL)`, path: [], parsed: true } };
  },
  regexp_replace: (e, args, at) => {
    if (args.length < 3 || args.length > 4) return unsupported('regexp_replace with a start position', at);
    const flags = args[3] === undefined ? '' : constText(args[3], 'regexp_replace flags', at);
    if (!/^[gi]*$/.test(flags)) return unsupported(`regexp_replace flags '${flags}'`, at);
    const pattern = e.argAs(args[1], 'text', at);
    const c = wrapped(args[2], 'A_Const');
    if (c?.['isnull'] === true) return expr('NULL', 'text');
    const replacement = c && 'sval' in c ? String((c['sval'] as Json)['sval'] ?? '') : unsupported('a regexp_replace replacement that is not a constant', at);
    // PostgreSQL's \1…\9 and \& (the whole match) are ClickHouse's \1…\9 and \0.
    const printed = replacement.replace(/\\(.)?/g, (_m, ch: string | undefined) => (ch === '&' ? '\\0' : ch !== undefined && /[1-9\\]/.test(ch) ? `\\${ch}` : unsupported(`the escape \\${ch ?? ''} in a regexp_replace replacement`, at)));
    const p = flags.includes('i') ? `concat('(?i)', ${pattern})` : pattern;
    return expr(`${flags.includes('g') ? 'replaceRegexpAll' : 'replaceRegexpOne'}(${e.argAs(args[0], 'text', at)}, ${p}, ${chString(printed)})`, 'text');
  },
  // concat skips NULLs and prints integers and booleans as PostgreSQL does.
  concat: (e, args, at) => {
    if (args.length === 0) return unsupported('concat()', at);
    return expr(`concat(${args.map((a) => `ifNull(${e.textOf(a, at)}, '')`).join(', ')}, '')`, 'text');
  },
  jsonb_build_object: buildObject,
  jsonb_build_array: buildArray,
  json_build_array: buildArray,
  jsonb_array_length: arrayLength,
  json_array_length: arrayLength,
  json_build_object: buildObject,
  jsonb_typeof: jsonTypeof,
  json_typeof: jsonTypeof,
  jsonb_extract_path_text: (e, args, at) => extractPath(e, args, '->>', at),
  json_extract_path_text: (e, args, at) => extractPath(e, args, '->>', at),
  jsonb_extract_path: (e, args, at) => extractPath(e, args, '->', at),
  json_extract_path: (e, args, at) => extractPath(e, args, '->', at),
});

/** to_char's template patterns → formatDateTime's, for a UTC session (PostgreSQL: "Data Type Formatting Functions"). */
const TO_CHAR: readonly (readonly [string, string])[] = [
  ['HH24', '%H'], ['HH12', '%I'], ['YYYY', '%Y'], ['MON', '%b'], ['Mon', '%b'], ['TZH', '+00'], ['TZM', '00'],
  ['MM', '%m'], ['DD', '%d'], ['MI', '%i'], ['SS', '%S'], ['US', '%f'], ['AM', '%p'], ['PM', '%p'],
];

/** A to_char pattern as formatDateTime's; patterns it cannot print alike (FM, MS, Month, …) are refused. */
function toCharFormat(pattern: string, at: string): string {
  let out = '';
  for (let i = 0; i < pattern.length;) {
    if (pattern[i] === '"') {
      const end = pattern.indexOf('"', i + 1);
      if (end < 0 || pattern.slice(i + 1, end).includes('\\')) return unsupported('a to_char pattern with an unterminated or escaped quote', at);
      out += pattern.slice(i + 1, end).replaceAll('%', '%%');
      i = end + 1;
      continue;
    }
    const hit = TO_CHAR.find(([p]) => pattern.startsWith(p, i));
    if (hit !== undefined) {
      // MON is upper case in PostgreSQL (JAN); formatDateTime's %b is Jan: only Mon matches.
      if (hit[0] === 'MON') return unsupported('the to_char pattern MON', at);
      out += hit[1];
      i += hit[0].length;
    } else if (/[A-Za-z]/.test(pattern[i]!)) {
      return unsupported(`the to_char pattern at "${pattern.slice(i, i + 4)}"`, at);
    } else {
      out += pattern[i] === '%' ? '%%' : pattern[i];
      i++;
    }
  }
  return out;
}

function numeric(name: string): Emit {
  return (e, args, at) => {
    if (args.length !== 1) return unsupported(`${name} with ${args.length} arguments`, at);
    const v = e.value(args[0]);
    const x = v.type === 'unknown' ? e.as(v, 'numeric', at) : v;
    if (x.type === 'null') return expr('NULL', 'numeric');
    if (!isNumber(x.type)) return unsupported(`${name} of ${x.type}`, at);
    return expr(`${name}(${x.sql})`, x.type);
  };
}

/** substring(s, start[, count]): positions before 1 count toward `count`, as in PostgreSQL. */
function substring(e: Emitter, args: unknown[], at: string): Expr {
  const s = e.argAs(args[0], 'text', at);
  const second = e.emit(args[1]);
  if (args.length === 2 && (second.type === 'text' || second.type === 'unknown')) {
    // substring(s from pattern): the first group's match (or the whole match), NULL without one.
    const p = e.as(second, 'text', at).sql;
    return expr(`if(match(${s}, ${p}), extract(${s}, ${p}), NULL)`, 'text');
  }
  if (args.length < 2 || args.length > 3) return unsupported('substring with an escape (SIMILAR)', at);
  const start = e.argAs(args[1], 'int', at);
  // NULL when a position or a length is (ClickHouse's greatest() would skip it).
  if (args[2] === undefined) return expr(`if(${start} IS NULL, NULL, substringUTF8(${s}, greatest(${start}, 1)))`, 'text');
  const count = e.argAs(args[2], 'int', at);
  return expr(`if(${start} IS NULL OR ${count} IS NULL, NULL, substringUTF8(${s}, greatest(${start}, 1), greatest(${start} + ${count} - greatest(${start}, 1) + throwIf(${count} < 0, 'negative substring length not allowed'), 0)))`, 'text');
}

/**
 * jsonb_build_object(k, v, …) as JSON text (the decoder prints it as jsonb does): keys constant,
 * values text, integers, booleans or JSON, whose JSON spelling is the same on both engines.
 */
function buildObject(e: Emitter, args: unknown[], at: string): Expr {
  if (args.length % 2 !== 0) return unsupported('jsonb_build_object with an odd number of arguments', at);
  const parts: string[] = [];
  for (let i = 0; i < args.length; i += 2) {
    const key = constText(args[i], 'a JSON object key', at);
    parts.push(chString(`${i === 0 ? '' : ','}${JSON.stringify(key)}:`), jsonOf(e, args[i + 1], 'jsonb_build_object', at));
  }
  return expr(`concat('{', ${parts.join(', ')}, '}')`, 'jsonb');
}

/** jsonb_build_array(v, …) as JSON text, its values as jsonb_build_object's. */
function buildArray(e: Emitter, args: unknown[], at: string): Expr {
  const parts = args.flatMap((a, i) => [...(i === 0 ? [] : ["','"]), jsonOf(e, a, 'jsonb_build_array', at)]);
  return expr(`concat('[', ${[...parts, "']'"].join(', ')})`, 'jsonb');
}

/** A value's JSON text: text, integers, booleans and JSON spell alike on both engines; the rest is refused. */
function jsonOf(e: Emitter, node: unknown, fn: string, at: string): string {
  const raw = e.value(node);
  const v = raw.type === 'unknown' ? e.as(raw, 'text', at) : raw;
  if (v.type === 'jsonb') return `ifNull(${v.sql}, 'null')`;
  if (v.type === 'null') return "'null'";
  // An integer is its digits: toJSONString would quote a 64-bit one (the session quotes them for the answer).
  if (v.type === 'int') return `ifNull(toString(${v.sql}), 'null')`;
  if (v.type === 'text') return `ifNull(toJSONString(${v.sql}), 'null')`;
  if (v.type === 'bool') return `multiIf(${v.sql} IS NULL, 'null', ${v.sql}, 'true', 'false')`;
  return unsupported(`a ${v.type} value in ${fn}`, at);
}

/** jsonb_array_length: an array's length; a scalar or object is PostgreSQL's error. */
function arrayLength(e: Emitter, args: unknown[], at: string): Expr {
  const v = e.value(args[0]);
  if (v.type !== 'jsonb') return unsupported(`jsonb_array_length of ${v.type}`, at);
  const isArray = `JSONType(assumeNotNull(${v.sql})) = 'Array'`;
  return expr(`multiIf(${v.sql} IS NULL, NULL, ${isArray}, toInt64(JSONLength(assumeNotNull(${v.sql}))), toInt64(throwIf(${v.sql} IS NOT NULL AND NOT ${isArray}, 'cannot get array length of a non-array')))`, 'int');
}

function jsonTypeof(e: Emitter, args: unknown[], at: string): Expr {
  const v = e.emit(args[0]);
  if (v.type !== 'jsonb') return unsupported(`jsonb_typeof of ${v.type}`, at);
  const j = v.json ?? { root: v.sql, path: [] };
  const kinds = topLevelKinds(j);
  if (kinds !== undefined) return expr(`if(mapContains(${kinds.map}, ${kinds.key}), toString(${kinds.map}[${kinds.key}]), NULL)`, 'text');
  const a = [j.root, ...j.path].join(', ');
  const name = `transform(toString(JSONType(${a})), ['Object', 'Array', 'String', 'Int64', 'UInt64', 'Double', 'Bool', 'Null'], ['object', 'array', 'string', 'number', 'number', 'number', 'boolean', 'null'], NULL)`;
  return expr(j.path.length === 0 ? name : `if(JSONHas(${a}), ${name}, NULL)`, 'text');
}

function extractPath(e: Emitter, args: unknown[], op: '->' | '->>', at: string): Expr {
  let v = e.emit(args[0]);
  for (const [i, key] of args.slice(1).entries()) v = e.jsonPath(v, i === args.length - 2 ? op : '->', key, at);
  return v;
}

/** Every function of the sandbox's allow-list this file prints (the rest are refused by name). */
export const PRINTED_FUNCTIONS: ReadonlySet<string> = Object.freeze(new Set([
  ...Object.keys(SCALARS), ...Object.keys(AGGREGATES), ...RANKING, ...Object.keys(VALUE_WINDOWS), 'lag', 'lead', 'percentile_cont', 'percentile_disc', 'string_agg', 'array_agg',
]));

/** One FuncCall: a scalar, an aggregate (with FILTER, DISTINCT), or a window call. */
export function callFunction(e: Emitter, body: Json, at: string): Expr {
  const name = stringList(body['funcname']).at(-1) ?? '';
  const args = (body['args'] as unknown[] | undefined) ?? [];
  const over = body['over'] as Json | undefined;
  if (name === 'string_agg') return stringAgg(e, body, args, over, at);
  if (name === 'array_agg') return arrayAgg(e, body, args, over, at);
  if (body['agg_order'] !== undefined && !body['agg_within_group']) return unsupported(`ORDER BY inside ${name}()`, at);
  if (body['func_variadic']) return unsupported('VARIADIC', at);
  let call: Expr;
  if ((name === 'percentile_cont' || name === 'percentile_disc') && body['agg_within_group']) call = percentile(e, name, body, at);
  else if (AGGREGATES[name] !== undefined || RANKING.has(name) || name === 'lag' || name === 'lead') call = aggregateOrWindow(e, name, body, args, over, at);
  else if (VALUE_WINDOWS[name] !== undefined) {
    if (over === undefined || args.length !== 1) return unsupported(`${name}() without OVER or with ${args.length} arguments`, at);
    const v = name === 'ntile' ? e.as(e.emit(args[0]), 'int', at) : e.value(args[0]);
    call = expr(`${VALUE_WINDOWS[name]}(${v.sql})`, name === 'ntile' ? 'int' : v.type);
  }
  else {
    const scalar = SCALARS[name];
    if (scalar === undefined || body['agg_star'] || body['agg_distinct'] || body['agg_filter'] !== undefined || over !== undefined) return unsupported(`function ${name}()`, at);
    return scalar(e, args, at);
  }
  return over === undefined ? call : expr(`${call.sql} OVER ${windowSpec(e, over, name === 'lag' || name === 'lead', at)}`, call.type);
}

