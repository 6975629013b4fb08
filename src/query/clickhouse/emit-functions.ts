/**
 * Function calls of the sandbox's allow-list (allow-lists.ts) as ClickHouse prints them with
 * PostgreSQL's meaning; a function not in this table is refused on the ClickHouse engine by name.
 * Aggregates take FILTER as ClickHouse's `If` combinator; window calls get their OVER clause here.
 */
import { stringList, wrapped, type Json } from '../sandbox/sql-parser.ts';
import { chString, elementOf, expr, isNumber, unsupported, type Expr, type PgType } from './emit-types.ts';
import { topLevelKinds, type ExprEmitter } from './emit-expression.ts';

type Emit = (e: ExprEmitter, args: unknown[], at: string) => Expr;

/** `f(args)` printed as `name(args)`, the arguments read as `argTypes` and the result `result`. */
const plain = (name: string, argTypes: readonly PgType[], result: PgType, minArgs = argTypes.length): Emit => (e, args, at) => {
  if (args.length < minArgs || args.length > argTypes.length) return unsupported(`${name} with ${args.length} arguments`, at);
  const typed = args.map((a, i) => typedArg(e, a, argTypes[i]!, at));
  return expr(`${name}(${typed.join(', ')})`, result);
};

function typedArg(e: ExprEmitter, node: unknown, type: PgType, at: string): string {
  const v = e.emit(node);
  if (type === 'numeric' && v.type === 'int') return e.read(v, at).sql;
  return e.as(v, type, at).sql;
}

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
  year: (x) => `toYear(${x})`, quarter: (x) => `toQuarter(${x})`, month: (x) => `toMonth(${x})`, week: (x) => `toISOWeek(${x})`,
  day: (x) => `toDayOfMonth(${x})`, doy: (x) => `toDayOfYear(${x})`, dow: (x) => `(toDayOfWeek(${x}) % 7)`, isodow: (x) => `toDayOfWeek(${x})`,
  hour: (x) => `toHour(${x})`, minute: (x) => `toMinute(${x})`,
  second: (x) => `((toUnixTimestamp64Micro(${x}) % 60000000) / 1000000)`,
  milliseconds: (x) => `((toUnixTimestamp64Micro(${x}) % 60000000) / 1000)`,
  microseconds: (x) => `(toUnixTimestamp64Micro(${x}) % 60000000)`,
});

function utcOnly(node: unknown, at: string): void {
  if (node !== undefined && !['utc', 'etc/utc', 'gmt', 'z'].includes(constText(node, 'a time zone', at).toLowerCase())) unsupported('a time zone other than UTC', at);
}

const SCALARS: Readonly<Record<string, Emit>> = Object.freeze({
  lower: plain('lowerUTF8', ['text'], 'text'),
  initcap: plain('initcapUTF8', ['text'], 'text'),
  bit_length: (e, args, at) => expr(`(length(${typedArg(e, args[0], 'text', at)}) * 8)`, 'int'),
  trim: plain('trimBoth', ['text', 'text'], 'text', 1),
  // concat_ws skips NULLs (the separator too, when it is NULL the answer is NULL).
  concat_ws: (e, args, at) => {
    if (args.length < 2) return unsupported('concat_ws with fewer than two arguments', at);
    const sep = typedArg(e, args[0], 'text', at);
    return expr(`if(${sep} IS NULL, NULL, arrayStringConcat(arrayFilter(x -> x IS NOT NULL, [${args.slice(1).map((a) => e.textOf(a, at)).join(', ')}]), assumeNotNull(${sep})))`, 'text');
  },
  regexp_count: (e, args, at) => {
    if (args.length !== 2) return unsupported('regexp_count with a start or flags', at);
    return expr(`countMatches(${typedArg(e, args[0], 'text', at)}, ${typedArg(e, args[1], 'text', at)})`, 'int');
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
    return expr(`toDateTime64(${typedArg(e, args[0], 'numeric', at)}, 6, 'UTC')`, 'timestamptz');
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
    return expr(`length(${v.sql})`, 'int');
  },
  md5: (e, args, at) => expr(`lower(hex(MD5(${typedArg(e, args[0], 'text', at)})))`, 'text'),
  position: plain('positionUTF8', ['text', 'text'], 'int'),
  split_part: (e, args, at) => {
    if (args.length !== 3) return unsupported('split_part without three arguments', at);
    const [s, d, n] = args.map((a, i) => typedArg(e, a, i === 2 ? 'int' : 'text', at));
    return expr(`splitByString(${d}, ${s})[${n} + throwIf(${n} = 0, 'field position must not be zero')]`, 'text');
  },
  substr: substring,
  substring,
  abs: numeric('abs'),
  ceil: numeric('ceil'),
  ceiling: numeric('ceil'),
  floor: numeric('floor'),
  trunc: numeric('trunc'),
  sign: numeric('sign'),
  sqrt: plain('sqrt', ['numeric'], 'numeric'),
  cbrt: plain('cbrt', ['numeric'], 'numeric'),
  exp: plain('exp', ['numeric'], 'numeric'),
  ln: plain('log', ['numeric'], 'numeric'),
  log: plain('log10', ['numeric'], 'numeric'),
  log10: plain('log10', ['numeric'], 'numeric'),
  power: plain('pow', ['numeric', 'numeric'], 'numeric'),
  pow: plain('pow', ['numeric', 'numeric'], 'numeric'),
  pi: plain('pi', [], 'numeric'),
  degrees: plain('degrees', ['numeric'], 'numeric'),
  radians: plain('radians', ['numeric'], 'numeric'),
  round: (e, args, at) => {
    // PostgreSQL rounds numeric half away from zero; ClickHouse's round() is banker's on floats.
    const x = typedArg(e, args[0], 'numeric', at);
    const scale = args[1] === undefined ? '0' : typedArg(e, args[1], 'int', at);
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
    return expr(`toDateTime64(${fn}(${typedArg(e, args[1], 'timestamptz', at)}), 6, 'UTC')`, 'timestamptz');
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
    return expr(`match(${typedArg(e, args[0], 'text', at)}, ${typedArg(e, args[1], 'text', at)})`, 'bool');
  },
  // The log schema's own: text that is JSON as jsonb, else NULL (sql/schema.sql).
  try_jsonb: (e, args, at) => {
    const x = typedArg(e, args[0], 'text', at);
    return { sql: '', type: 'jsonb', json: { root: `if(isValidJSON(${x}), ${x}, NULL)`, path: [], parsed: true } };
  },
  regexp_replace: (e, args, at) => {
    if (args.length < 3 || args.length > 4) return unsupported('regexp_replace with a start position', at);
    const flags = args[3] === undefined ? '' : constText(args[3], 'regexp_replace flags', at);
    if (!/^[gi]*$/.test(flags)) return unsupported(`regexp_replace flags '${flags}'`, at);
    const pattern = typedArg(e, args[1], 'text', at);
    const c = wrapped(args[2], 'A_Const');
    const replacement = c && 'sval' in c ? String((c['sval'] as Json)['sval'] ?? '') : unsupported('a regexp_replace replacement that is not a constant', at);
    // PostgreSQL's \1…\9 and \& (the whole match) are ClickHouse's \1…\9 and \0.
    const printed = replacement.replace(/\\(.)?/g, (_m, ch: string | undefined) => (ch === '&' ? '\\0' : ch !== undefined && /[1-9\\]/.test(ch) ? `\\${ch}` : unsupported(`the escape \\${ch ?? ''} in a regexp_replace replacement`, at)));
    const p = flags.includes('i') ? `concat('(?i)', ${pattern})` : pattern;
    return expr(`${flags.includes('g') ? 'replaceRegexpAll' : 'replaceRegexpOne'}(${typedArg(e, args[0], 'text', at)}, ${p}, ${chString(printed)})`, 'text');
  },
  // concat skips NULLs and prints integers and booleans as PostgreSQL does.
  concat: (e, args, at) => {
    if (args.length === 0) return unsupported('concat()', at);
    return expr(`concat(${args.map((a) => `ifNull(${e.textOf(a, at)}, '')`).join(', ')}, '')`, 'text');
  },
  jsonb_build_object: buildObject,
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

function numeric(name: string): Emit {
  return (e, args, at) => {
    if (args.length !== 1) return unsupported(`${name} with ${args.length} arguments`, at);
    const v = e.value(args[0]);
    const x = v.type === 'unknown' ? e.as(v, 'numeric', at) : v;
    if (!isNumber(x.type)) return unsupported(`${name} of ${x.type}`, at);
    return expr(`${name}(${x.sql})`, x.type);
  };
}

/** substring(s, start[, count]): positions before 1 count toward `count`, as in PostgreSQL. */
function substring(e: ExprEmitter, args: unknown[], at: string): Expr {
  const s = typedArg(e, args[0], 'text', at);
  const second = e.emit(args[1]);
  if (args.length === 2 && (second.type === 'text' || second.type === 'unknown')) {
    // substring(s from pattern): the first group's match (or the whole match), NULL without one.
    const p = e.as(second, 'text', at).sql;
    return expr(`if(match(${s}, ${p}), extract(${s}, ${p}), NULL)`, 'text');
  }
  if (args.length < 2 || args.length > 3) return unsupported('substring with an escape (SIMILAR)', at);
  const start = typedArg(e, args[1], 'int', at);
  if (args[2] === undefined) return expr(`substringUTF8(${s}, greatest(${start}, 1))`, 'text');
  const count = typedArg(e, args[2], 'int', at);
  return expr(`substringUTF8(${s}, greatest(${start}, 1), greatest(${start} + ${count} - greatest(${start}, 1) + throwIf(${count} < 0, 'negative substring length not allowed'), 0))`, 'text');
}

/**
 * jsonb_build_object(k, v, …) as JSON text (the decoder prints it as jsonb does): keys constant,
 * values text, integers, booleans or JSON, whose JSON spelling is the same on both engines.
 */
function buildObject(e: ExprEmitter, args: unknown[], at: string): Expr {
  if (args.length % 2 !== 0) return unsupported('jsonb_build_object with an odd number of arguments', at);
  const parts: string[] = [];
  for (let i = 0; i < args.length; i += 2) {
    const key = constText(args[i], 'a JSON object key', at);
    const raw = e.value(args[i + 1]);
    const v = raw.type === 'unknown' ? e.as(raw, 'text', at) : raw;
    let json: string;
    if (v.type === 'jsonb') json = `ifNull(${v.sql}, 'null')`;
    else if (v.type === 'text' || v.type === 'int' || v.type === 'null') json = `toJSONString(${v.sql})`;
    else if (v.type === 'bool') json = `multiIf(${v.sql} IS NULL, 'null', ${v.sql}, 'true', 'false')`;
    else return unsupported(`a ${v.type} value in jsonb_build_object`, at);
    parts.push(chString(`${i === 0 ? '' : ','}${JSON.stringify(key)}:`), json);
  }
  return expr(`concat('{', ${parts.join(', ')}, '}')`, 'jsonb');
}

/** jsonb_array_length: an array's length; a scalar or object is PostgreSQL's error. */
function arrayLength(e: ExprEmitter, args: unknown[], at: string): Expr {
  const v = e.value(args[0]);
  if (v.type !== 'jsonb') return unsupported(`jsonb_array_length of ${v.type}`, at);
  const isArray = `JSONType(assumeNotNull(${v.sql})) = 'Array'`;
  return expr(`multiIf(${v.sql} IS NULL, NULL, ${isArray}, toInt64(JSONLength(assumeNotNull(${v.sql}))), toInt64(throwIf(${v.sql} IS NOT NULL AND NOT ${isArray}, 'cannot get array length of a non-array')))`, 'int');
}

function jsonTypeof(e: ExprEmitter, args: unknown[], at: string): Expr {
  const v = e.emit(args[0]);
  if (v.type !== 'jsonb') return unsupported(`jsonb_typeof of ${v.type}`, at);
  const j = v.json ?? { root: v.sql, path: [] };
  const kinds = topLevelKinds(j);
  if (kinds !== undefined) return expr(`if(mapContains(${kinds.map}, ${kinds.key}), toString(${kinds.map}[${kinds.key}]), NULL)`, 'text');
  const a = [j.root, ...j.path].join(', ');
  const name = `transform(toString(JSONType(${a})), ['Object', 'Array', 'String', 'Int64', 'UInt64', 'Double', 'Bool', 'Null'], ['object', 'array', 'string', 'number', 'number', 'number', 'boolean', 'null'], NULL)`;
  return expr(j.path.length === 0 ? name : `if(JSONHas(${a}), ${name}, NULL)`, 'text');
}

function extractPath(e: ExprEmitter, args: unknown[], op: '->' | '->>', at: string): Expr {
  let v = e.emit(args[0]);
  for (const [i, key] of args.slice(1).entries()) v = e.jsonPath(v, i === args.length - 2 ? op : '->', key, at);
  return v;
}

/** Aggregates: PostgreSQL's name → ClickHouse's, and the type of the answer. */
type Aggregate = { readonly name: string; readonly result: (arg: PgType) => PgType };
const same = (t: PgType): PgType => t;
const numericResult = (): PgType => 'numeric';
const boolResult = (): PgType => 'bool';
const AGGREGATES: Readonly<Record<string, Aggregate>> = Object.freeze<Record<string, Aggregate>>({
  count: { name: 'count', result: (): PgType => 'int' },
  sum: { name: 'sum', result: same },
  avg: { name: 'avg', result: numericResult },
  min: { name: 'min', result: same },
  max: { name: 'max', result: same },
  bool_and: { name: 'min', result: boolResult },
  bool_or: { name: 'max', result: boolResult },
  every: { name: 'min', result: boolResult },
  stddev: { name: 'stddevSamp', result: numericResult },
  stddev_samp: { name: 'stddevSamp', result: numericResult },
  stddev_pop: { name: 'stddevPop', result: numericResult },
  variance: { name: 'varSamp', result: numericResult },
  var_samp: { name: 'varSamp', result: numericResult },
  var_pop: { name: 'varPop', result: numericResult },
});

/** Window-only functions without arguments. */
const RANKING: ReadonlySet<string> = new Set(['row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist']);

/** Window-only functions with arguments: ClickHouse's name (the NULL-respecting variants: PostgreSQL's). */
const VALUE_WINDOWS: Readonly<Record<string, string>> = Object.freeze({
  first_value: 'first_value_respect_nulls', last_value: 'last_value_respect_nulls', ntile: 'ntile',
});

/** Every function of the sandbox's allow-list this file prints (the rest are refused by name). */
export const PRINTED_FUNCTIONS: ReadonlySet<string> = Object.freeze(new Set([
  ...Object.keys(SCALARS), ...Object.keys(AGGREGATES), ...RANKING, ...Object.keys(VALUE_WINDOWS), 'lag', 'lead', 'percentile_cont', 'percentile_disc',
]));

/** One FuncCall: a scalar, an aggregate (with FILTER, DISTINCT), or a window call. */
export function callFunction(e: ExprEmitter, body: Json, at: string): Expr {
  const name = stringList(body['funcname']).at(-1) ?? '';
  const args = (body['args'] as unknown[] | undefined) ?? [];
  const over = body['over'] as Json | undefined;
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

function aggregateOrWindow(e: ExprEmitter, name: string, body: Json, args: unknown[], over: Json | undefined, at: string): Expr {
  if (RANKING.has(name)) {
    if (over === undefined || args.length > 0) return unsupported(`${name}() without OVER`, at);
    return expr(`${name}()`, name === 'percent_rank' || name === 'cume_dist' ? 'numeric' : 'int');
  }
  if (name === 'lag' || name === 'lead') {
    if (over === undefined) return unsupported(`${name}() without OVER`, at);
    const v = e.value(args[0]);
    const offset = args[1] === undefined ? '1' : typedArg(e, args[1], 'int', at);
    const fallback = args[2] === undefined ? 'NULL' : e.as(e.emit(args[2]), v.type, at).sql;
    // The InFrame forms read within the frame, which windowSpec opens to the whole partition;
    // toNullable so a row without a neighbour is NULL, not ClickHouse's type default.
    return expr(`${name}InFrame(toNullable(${v.sql}), ${offset}, ${fallback})`, v.type);
  }
  const agg = AGGREGATES[name]!;
  const filter = body['agg_filter'] === undefined ? undefined : e.condition(body['agg_filter']);
  if (body['agg_star']) return expr(filter === undefined ? 'count()' : `countIf(${filter})`, 'int');
  if (args.length !== 1) return unsupported(`${name} with ${args.length} arguments`, at);
  const v = e.value(args[0]);
  const arg = v.type === 'unknown' ? e.as(v, 'text', at) : v;
  if (['sum', 'avg'].includes(name) && !isNumber(arg.type) && arg.type !== 'null') return unsupported(`${name} of ${arg.type}`, at);
  if (agg.name !== 'count' && agg.name !== 'min' && agg.name !== 'max' && arg.type === 'jsonb') return unsupported(`${name} of jsonb`, at);
  if ((name === 'min' || name === 'max') && arg.type === 'jsonb') return unsupported(`${name} of jsonb`, at);
  const distinct = body['agg_distinct'] ? 'DISTINCT ' : '';
  const samp = agg.name.endsWith('Samp');
  if (filter === undefined) {
    const call = `${agg.name}(${distinct}${arg.sql})`;
    return expr(samp ? `if(count(${distinct}${arg.sql}) < 2, NULL, ${call})` : call, agg.result(arg.type));
  }
  if (distinct !== '') return unsupported('DISTINCT with FILTER', at);
  if (samp) return expr(`if(countIf(${arg.sql} IS NOT NULL AND ${filter}) < 2, NULL, ${agg.name}If(${arg.sql}, ${filter}))`, agg.result(arg.type));
  // count(x) FILTER counts the rows where x is not null and the filter holds.
  if (agg.name === 'count') return expr(`countIf(${arg.sql} IS NOT NULL AND ${filter})`, 'int');
  return expr(`${agg.name}If(${arg.sql}, ${filter})`, agg.result(arg.type));
}

/**
 * percentile_cont(p) WITHIN GROUP (ORDER BY x): interpolated, as quantileExactInclusive is;
 * percentile_disc(p): the first value whose position in order reaches p, NULLs left out.
 */
function percentile(e: ExprEmitter, name: string, body: Json, at: string): Expr {
  const order = ((body['agg_order'] as unknown[]) ?? []).map((s) => wrapped(s, 'SortBy')!);
  if (order.length !== 1 || (order[0]!['sortby_dir'] !== 'SORTBY_DEFAULT' && order[0]!['sortby_dir'] !== 'SORTBY_ASC')) return unsupported('percentile_cont ordered other than ascending by one value', at);
  const arg = (body['args'] as unknown[])[0];
  const fractions = wrapped(wrapped(arg, 'TypeCast')?.['arg'] ?? arg, 'A_ArrayExpr');
  if (name === 'percentile_disc' && fractions !== undefined) return percentilesDisc(e, body, order[0]!, fractions, at);
  const c = wrapped(wrapped(arg, 'TypeCast')?.['arg'] ?? arg, 'A_Const');
  const p = c && 'fval' in c ? Number((c['fval'] as Json)['fval']) : c && 'ival' in c ? Number((c['ival'] as Json)['ival'] ?? 0) : NaN;
  if (!(p >= 0 && p <= 1)) return unsupported(`${name} of a fraction that is not a constant between 0 and 1`, at);
  if (name === 'percentile_disc') {
    if (body['agg_filter'] !== undefined) return unsupported('percentile_disc with FILTER', at);
    const v = e.value(order[0]!['node']);
    if (v.type === 'jsonb' || v.type === 'other') return unsupported(`percentile_disc of ${v.type}`, at);
    return expr(`if(count(${v.sql}) = 0, NULL, arraySort(groupArray(${v.sql}))[toUInt64(greatest(1, ceil(${p} * count(${v.sql}))))])`, v.type);
  }
  const x = typedArg(e, order[0]!['node'], 'numeric', at);
  if (body['agg_filter'] !== undefined) return expr(`quantileExactInclusiveIf(${p})(${x}, ${e.condition(body['agg_filter'])})`, 'numeric');
  return expr(`quantileExactInclusive(${p})(${x})`, 'numeric');
}

/** A constant fraction between 0 and 1 (libpg-query: an Integer for 0 and 1, a Float otherwise). */
function fraction(node: unknown, name: string, at: string): number {
  const c = wrapped(wrapped(node, 'TypeCast')?.['arg'] ?? node, 'A_Const');
  const p = c && 'fval' in c ? Number((c['fval'] as Json)['fval']) : c && 'ival' in c ? Number((c['ival'] as Json)['ival'] ?? 0) : NaN;
  return p >= 0 && p <= 1 ? p : unsupported(`${name} of a fraction that is not a constant between 0 and 1`, at);
}

/** percentile_disc(ARRAY[p, …]): the value at each fraction (the array BigQuery's APPROX_QUANTILES is made of). */
function percentilesDisc(e: ExprEmitter, body: Json, sort: Json, fractions: Json, at: string): Expr {
  if (body['agg_filter'] !== undefined) return unsupported('percentile_disc with FILTER', at);
  const ps = ((fractions['elements'] as unknown[] | undefined) ?? []).map((f) => fraction(f, 'percentile_disc', at));
  const v = e.value(sort['node']);
  if (v.type === 'jsonb' || v.type === 'other' || elementOf(v.type) !== undefined) return unsupported(`percentile_disc of ${v.type}`, at);
  const sorted = `arraySort(groupArray(${v.sql}))`;
  // The sorted values travel into the lambda as an argument: an aggregate cannot be read inside one.
  return expr(`arrayMap((p, s) -> if(length(s) = 0, NULL, s[toUInt64(greatest(1, ceil(p * length(s))))]), [${ps.map((p) => `toFloat64(${p})`).join(', ')}], arrayWithConstant(${ps.length}, ${sorted}))`, `${v.type}[]` as PgType);
}

/** An OVER clause; a named window is inlined. lag/lead see the whole partition, as PostgreSQL's do. */
function windowSpec(e: ExprEmitter, over: Json, wholePartition: boolean, at: string): string {
  let def = over;
  if (typeof over['name'] === 'string') def = e.scope.window(over['name'], at);
  if (typeof def['refname'] === 'string') {
    if ((def['partitionClause'] as unknown[] | undefined)?.length || !(def['orderClause'] as unknown[] | undefined)?.length) {
      return unsupported('a window that refines another', at);
    }
    def = { ...e.scope.window(def['refname'], at), orderClause: def['orderClause'] };
  }
  const parts: string[] = [];
  const partition = (def['partitionClause'] as unknown[] | undefined) ?? [];
  if (partition.length > 0) parts.push(`PARTITION BY ${partition.map((p) => e.value(p).sql).join(', ')}`);
  const order = (def['orderClause'] as unknown[] | undefined) ?? [];
  if (order.length > 0) parts.push(`ORDER BY ${order.map((s) => sortKey(wrapped(s, 'SortBy')!, e.value(wrapped(s, 'SortBy')!['node']), at)).join(', ')}`);
  if (wholePartition) parts.push('ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING');
  else {
    const frame = frameClause(e, def, at);
    if (frame !== '') parts.push(frame);
  }
  return `(${parts.join(' ')})`;
}

/** PostgreSQL's frame options (nodes/parsenodes.h, FRAMEOPTION_*). */
const F = Object.freeze({
  NONDEFAULT: 0x1, RANGE: 0x2, ROWS: 0x4, GROUPS: 0x8, BETWEEN: 0x10,
  START_UNBOUNDED_PRECEDING: 0x20, END_UNBOUNDED_PRECEDING: 0x40, START_UNBOUNDED_FOLLOWING: 0x80, END_UNBOUNDED_FOLLOWING: 0x100,
  START_CURRENT_ROW: 0x200, END_CURRENT_ROW: 0x400, START_OFFSET_PRECEDING: 0x800, END_OFFSET_PRECEDING: 0x1000,
  START_OFFSET_FOLLOWING: 0x2000, END_OFFSET_FOLLOWING: 0x4000, EXCLUDE: 0x8000 | 0x10000 | 0x20000,
});

/** `ROWS|RANGE BETWEEN … AND …` as written; the default frame (RANGE … CURRENT ROW) is ClickHouse's too. */
function frameClause(e: ExprEmitter, def: Json, at: string): string {
  const o = Number(def['frameOptions'] ?? 0);
  if (!(o & F.NONDEFAULT)) return '';
  if (o & (F.GROUPS | F.EXCLUDE)) return unsupported('GROUPS frames and EXCLUDE', at);
  const offset = (node: unknown): string => {
    const n = wrapped(node, 'A_Const');
    if (n === undefined || !('ival' in n)) return unsupported('a frame offset that is not an integer constant', at);
    return String(Number((n['ival'] as Json)['ival'] ?? 0));
  };
  const bound = (unboundedPreceding: number, unboundedFollowing: number, current: number, preceding: number, following: number, node: unknown): string => {
    if (o & unboundedPreceding) return 'UNBOUNDED PRECEDING';
    if (o & unboundedFollowing) return 'UNBOUNDED FOLLOWING';
    if (o & current) return 'CURRENT ROW';
    if (o & preceding) return `${offset(node)} PRECEDING`;
    if (o & following) return `${offset(node)} FOLLOWING`;
    return 'CURRENT ROW';
  };
  const start = bound(F.START_UNBOUNDED_PRECEDING, F.START_UNBOUNDED_FOLLOWING, F.START_CURRENT_ROW, F.START_OFFSET_PRECEDING, F.START_OFFSET_FOLLOWING, def['startOffset']);
  const end = o & F.BETWEEN ? bound(F.END_UNBOUNDED_PRECEDING, F.END_UNBOUNDED_FOLLOWING, F.END_CURRENT_ROW, F.END_OFFSET_PRECEDING, F.END_OFFSET_FOLLOWING, def['endOffset']) : 'CURRENT ROW';
  if ((o & F.RANGE) && /\d/.test(start + end)) return unsupported('a RANGE frame with an offset', at);
  void e;
  return `${o & F.ROWS ? 'ROWS' : 'RANGE'} BETWEEN ${start} AND ${end}`;
}

/** `x ASC|DESC NULLS FIRST|LAST`, always explicit: PostgreSQL puts NULLs first in DESC, ClickHouse last. */
export function sortKey(sort: Json, value: Expr, at: string): string {
  let desc: boolean;
  switch (sort['sortby_dir']) {
    case 'SORTBY_DESC': desc = true; break;
    case 'SORTBY_USING': {
      const op = stringList(sort['useOp']).at(-1);
      if (op !== '<' && op !== '>') return unsupported(`ORDER BY … USING ${op}`, at);
      desc = op === '>';
      break;
    }
    default: desc = false;
  }
  const nulls = sort['sortby_nulls'] === 'SORTBY_NULLS_FIRST' ? 'FIRST' : sort['sortby_nulls'] === 'SORTBY_NULLS_LAST' ? 'LAST' : desc ? 'FIRST' : 'LAST';
  const direction = `${desc ? 'DESC' : 'ASC'} NULLS ${nulls}`;
  return (value.type === 'jsonb' ? jsonbSortKeys(value.sql) : [value.sql]).map((k) => `${k} ${direction}`).join(', ');
}

/**
 * jsonb's order (PostgreSQL: null < string < number < boolean < array < object; numbers by value)
 * as sort keys over JSON text: its kind, then the number, string or boolean, then the text.
 */
function jsonbSortKeys(v: string): string[] {
  const type = `toString(JSONType(${v}))`;
  return [
    `multiIf(${v} IS NULL, NULL, ${type} = 'Null', 1, ${type} = 'String', 2, ${type} IN ('Int64', 'UInt64', 'Double'), 3, ${type} = 'Bool', 4, ${type} = 'Array', 5, 6)`,
    `if(${type} IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(${v}), NULL)`,
    `if(${type} = 'String', JSONExtractString(${v}), NULL)`,
    `if(${type} = 'Bool', JSONExtractBool(${v}), NULL)`,
    v,
  ];
}

