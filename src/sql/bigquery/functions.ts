/**
 * BigQuery functions and types → PostgreSQL (docs/logflare-compat.md has the table). Each rewrite gets
 * its arguments already translated, read in the context the function needs (a numeric aggregate
 * reads a JSON field as a number, a string function as text).
 */
import { AGG_LIMIT_MARK, SAFE_CAST_MARK } from './bigquery-lexer.ts';
import { arrayCast, MAX_APPROX_SIZE } from './array-subscripts.ts';
import { jsonAt, jsonTextAt, scalarText } from './json-paths.ts';
import { extractPart, PARSE_KINDS, parseShape, toCharFormat } from './time-formats.ts';
import { rewriteString, STRING_FUNCTIONS } from './strings.ts';
import { re2Arg } from './re2.ts';
import { DATE_FUNCTIONS, dateValued, rewriteDate, truncTemplate } from './dates.ts';
import type { Ctx } from './record-scope.ts';
import type { Rewriter } from './rewriter.ts';
import { nodeType, wrapped, type Json } from '../sandbox/sql-parser.ts';
import { and, boolConst, call, caseWhen, cast, coalesce, columnFields, constKind, int, intConst, interval, names, nullIf, op, stringConst, text, type Node } from './nodes.ts';


/** Aggregates and maths whose arguments are numbers. */
const NUMERIC_ARGS: ReadonlySet<string> = new Set([
  'sum', 'avg', 'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp', 'abs', 'round', 'ceil', 'ceiling',
  'floor', 'trunc', 'sqrt', 'power', 'pow', 'exp', 'ln', 'log', 'log10', 'mod', 'sign', 'percentile_cont',
]);

/** BigQuery functions with no translation: named in the refusal instead of failing later as "not allowed". */
const UNSUPPORTED: ReadonlySet<string> = new Set([
  'farm_fingerprint', 'sha1', 'sha512', 'net.host', 'net.reg_domain',
]);

/** BigQuery maths that is FLOAT64 whatever its arguments: computed in float8, as BigQuery does. */
const FLOAT_MATH: ReadonlySet<string> = new Set(['sqrt', 'cbrt', 'exp', 'ln', 'log10', 'cos', 'sin', 'tan', 'acos', 'asin', 'atan', 'atan2', 'cot']);

/** JSON text without the spaces PostgreSQL's jsonb prints (`{"a": [1, 2]}` → `{"a":[1,2]}`), strings kept as they are: BigQuery's form. */
const compactJson = (json: Node): Node => call('regexp_replace', [json, text('("(?:[^"\\\\]|\\\\.)*")|\\s+'), text('\\1'), text('g')]);

/** Functions whose translation never fails at run time: their SAFE. form is themselves. */
const NEVER_FAIL: ReadonlySet<string> = new Set([
  'bq_json_value', 'bq_json_query', 'json_extract', 'json_extract_scalar', 'json_extract_array', 'json_value_array',
  'to_json_string', 'format_timestamp', 'format_datetime', 'format_date', 'lower', 'upper', 'length', 'concat', 'starts_with', 'ends_with',
]);

const TRUNC_UNITS: ReadonlySet<string> = new Set(['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'isoweek', 'month', 'quarter', 'year', 'isoyear']);
const UNIT_SECONDS: Readonly<Record<string, number>> = Object.freeze({ microsecond: 1e-6, millisecond: 1e-3, second: 1, minute: 60, hour: 3600, day: 86400 });

/** BigQuery type name → PostgreSQL type name; DATETIME is handled apart (a conversion, not a cast). */
const TYPES: Readonly<Record<string, string>> = Object.freeze({
  int64: 'int8', integer: 'int8', smallint: 'int8', bigint: 'int8', tinyint: 'int8', byteint: 'int8', float64: 'float8',
  numeric: 'numeric', bignumeric: 'numeric', decimal: 'numeric', bigdecimal: 'numeric', string: 'text', bool: 'bool',
  boolean: 'bool', bytes: 'bytea', date: 'date', timestamp: 'timestamptz', time: 'time', json: 'jsonb', interval: 'interval',
});

const INT_TEXT = '^\\s*[-+]?[0-9]+\\s*$';
const NUMBER_TEXT = '^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]{1,3})?\\s*$';
const bigintBound = (value: string): Node => ({ A_Const: { fval: { fval: value } } });

export function rewriteCall(body: Json, node: Node, r: Rewriter): Node {
  const fname = names(body['funcname']);
  const name = fname.join('.');
  const raw = (body['args'] as Node[] | undefined) ?? [];
  if (fname.length === 2 && fname[0] === 'safe') {
    // SAFE.f: NULL where f would fail. f's translation never fails (the JSON functions, formats),
    // so it is f; PARSE_TIMESTAMP's refusal becomes NULL; any other f could fail in ways a
    // statement cannot catch, and is refused by name.
    const inner = fname[1]!;
    const parses = PARSE_KINDS[inner] !== undefined;
    if (!parses && !NEVER_FAIL.has(inner)) r.fail(`the SAFE. prefix (${name}) is not supported: ${inner.toUpperCase()} can fail in ways a statement cannot catch`, node);
    const unsafe: Json = { ...body, funcname: [{ String: { sval: inner } }] };
    const out = rewriteCall(unsafe, { FuncCall: unsafe }, r);
    // A PARSE_ function's refusal is its CASE's ELSE: without it, NULL.
    if (parses) delete wrapped(out, 'CaseExpr')!['defresult'];
    return out;
  }
  if (UNSUPPORTED.has(name)) r.fail(`function ${name.toUpperCase()} is not supported`, node);
  if (STRING_FUNCTIONS.has(name)) return rewriteString(name, raw, node, r);
  if (DATE_FUNCTIONS.has(name)) return rewriteDate(name, raw, node, r, (n, allowed) => datePart(n, r, allowed));
  if (FLOAT_MATH.has(name)) return call(name, raw.map((a) => cast(r.arg(a, 'numeric'), 'float8')));
  const args = (ctx: Ctx): Node[] => raw.map((a) => r.arg(a, ctx));
  const arity = (n: number): void => {
    if (raw.length !== n) r.fail(`${name.toUpperCase()} takes ${n} argument${n === 1 ? '' : 's'}`, node);
  };
  const window = (out: Node): Node => {
    // An aggregate used as a window function (`count(*) over (…)`) keeps its OVER clause.
    const fc = wrapped(out, 'FuncCall');
    if (fc && body['over'] !== undefined) fc['over'] = overClause(body['over'] as Node, r);
    return out;
  };
  switch (name) {
    case 'regexp_contains': {
      arity(2);
      const [s, re] = args('text');
      return op('~', s!, re2Arg(re!, raw[1], name));
    }
    case 'ifnull': {
      arity(2);
      const ctx = r.siblingCtx(raw);
      return coalesce(args(ctx === 'json' ? 'text' : ctx));
    }
    case 'safe_divide': {
      arity(2);
      const [a, b] = args('numeric');
      return op('/', cast(a!, 'numeric'), nullIf(b!, int(0)));
    }
    case 'countif':
      arity(1);
      return window(call('count', [], { agg_star: true, agg_filter: r.arg(raw[0]!, 'bool') }));
    case 'starts_with': {
      arity(2);
      return call('starts_with', args('text'));
    }
    case 'ends_with': {
      arity(2);
      const [s, p] = args('text');
      return op('=', call('right', [s!, call('length', [p!])]), structuredClone(p!));
    }
    case 'logical_or':
    case 'logical_and':
      arity(1);
      return window(call(name === 'logical_or' ? 'bool_or' : 'bool_and', args('bool')));
    case 'if': {
      arity(3);
      const ctx = r.siblingCtx(raw.slice(1));
      return caseWhen([[r.arg(raw[0]!, 'bool'), r.arg(raw[1]!, ctx === 'json' ? 'text' : ctx)]], r.arg(raw[2]!, ctx === 'json' ? 'text' : ctx));
    }
    case 'timestamp_trunc':
    case 'datetime_trunc':
    case 'date_trunc': {
      // PostgreSQL's own date_trunc('unit', x) passes through unchanged.
      if (constKind(raw[0]) === 'string') return plain(body, node, r);
      if (raw.length !== 2 && raw.length !== 3) r.fail(`${name.toUpperCase()} takes a value and a date part`, node);
      if (raw.length === 3) r.fail(`${name.toUpperCase()} with a time zone argument is not supported (the service works in UTC)`, raw[2]);
      const unit = datePart(raw[1]!, r, TRUNC_UNITS);
      // The value's type is the result's: a DATE stays a DATE (DATE_TRUNC of a date), a DATETIME a DATETIME.
      const type = name === 'timestamp_trunc' ? 'timestamptz' : name === 'datetime_trunc' ? 'timestamp' : dateValued(raw[0]) ? 'date' : 'timestamptz';
      const value = constKind(raw[0]) === 'null' ? cast(r.arg(raw[0]!, 'text'), type) : r.arg(raw[0]!, 'text');
      return cast(r.template(truncTemplate(unit), { bq_v: value }), type);
    }
    case 'timestamp_sub':
    case 'datetime_sub':
    case 'date_sub':
    case 'timestamp_add':
    case 'datetime_add':
    case 'date_add': {
      arity(2);
      const [value, span] = args('text');
      // DATE_ADD and DATE_SUB take and give a DATE (a month past the last day is the new month's last).
      if (name.startsWith('date_')) return cast(op(name.endsWith('_sub') ? '-' : '+', cast(value!, 'date'), span!), 'date');
      return op(name.endsWith('_sub') ? '-' : '+', value!, span!);
    }
    case 'timestamp_diff': {
      arity(3);
      const unit = datePart(raw[2]!, r, new Set(Object.keys(UNIT_SECONDS)));
      const diff = call('date_part', [text('epoch'), op('-', r.arg(raw[0]!, 'text'), r.arg(raw[1]!, 'text'))]);
      return cast(call('trunc', [op('/', diff, { A_Const: { fval: { fval: String(UNIT_SECONDS[unit]) } } })]), 'int8');
    }
    case 'unix_seconds':
    case 'unix_millis':
    case 'unix_micros': {
      arity(1);
      const ts = cast(r.arg(raw[0]!, 'text'), 'timestamptz');
      const seconds = cast(call('date_part', [text('epoch'), call('date_trunc', [text('second'), ts])]), 'int8');
      if (name === 'unix_seconds') return seconds;
      // Exact: whole seconds from the epoch, plus the microseconds within the second.
      const micros = op('+', op('*', seconds, int(1_000_000)), op('%', cast(call('date_part', [text('microseconds'), structuredClone(ts)]), 'int8'), int(1_000_000)));
      return name === 'unix_micros' ? micros : op('/', micros, int(1000));
    }
    case 'timestamp_seconds':
    case 'timestamp_millis':
    case 'timestamp_micros': {
      arity(1);
      const unit = name === 'timestamp_seconds' ? '1 second' : name === 'timestamp_millis' ? '1 millisecond' : '1 microsecond';
      return op('+', cast(text('epoch'), 'timestamptz'), op('*', r.arg(raw[0]!, 'numeric'), interval(unit)));
    }
    case 'date':
      if (raw.length === 3) return call('make_date', raw.map((a) => cast(r.arg(a, 'numeric'), 'int4')));
      if (raw.length !== 1) return plain(body, node, r);
      return cast(utcWallTime(r.arg(raw[0]!, 'text')), 'date');
    case 'datetime':
      if (raw.length === 6) return call('make_timestamp', raw.map((a, i) => cast(r.arg(a, 'numeric'), i === 5 ? 'float8' : 'int4')));
      arity(1);
      return utcWallTime(r.arg(raw[0]!, 'text'));
    case 'regexp_extract': {
      arity(2);
      const [s, re] = args('text');
      return call('substring', [s!, re2Arg(re!, raw[1], name)]);
    }
    case 'regexp_replace':
      if (raw.length !== 3) return plain(body, node, r);
      // BigQuery replaces every match; PostgreSQL only the first unless told 'g'.
      const [s, re, by] = args('text');
      return call('regexp_replace', [s!, re2Arg(re!, raw[1], name), by!, text('g')]);
    case 'array_length':
      if (raw.length !== 1) return plain(body, node, r);
      return call('cardinality', args('text'));
    case 'bq_json_value':
    case 'json_extract_scalar':
    case 'bq_json_query':
    case 'json_extract': {
      // BigQuery's JSON functions over text that may not be JSON (NULL then) or over a JSON value.
      const shown = name === 'bq_json_value' ? 'JSON_VALUE' : name === 'bq_json_query' ? 'JSON_QUERY' : name.toUpperCase();
      if (raw.length !== 2) r.fail(`${shown} takes a value and a JSONPath`, node);
      if (name === 'bq_json_query' || name === 'json_extract') return compactJson(jsonTextAt(raw[0]!, raw[1]!, shown, r));
      return scalarText(jsonAt(raw[0]!, raw[1]!, shown, r));
    }
    case 'json_extract_array':
    case 'json_value_array': {
      // The array at the path, each element as JSON text (EXTRACT) or as a scalar's text (VALUE, NULL
      // for an element that is an object or array); NULL when the path holds no array.
      if (raw.length !== 2) r.fail(`${name.toUpperCase()} takes a value and a JSONPath`, node);
      const value = jsonAt(raw[0]!, raw[1]!, name.toUpperCase(), r);
      const element = { ColumnRef: { fields: [{ String: { sval: 'bq_element' } }] } };
      const shown = name === 'json_extract_array' ? cast(element, 'text') : scalarText(element);
      const elements: Node = {
        SubLink: {
          subLinkType: 'ARRAY_SUBLINK',
          subselect: { SelectStmt: { targetList: [{ ResTarget: { val: shown } }], fromClause: [{ RangeFunction: { functions: [{ List: { items: [call('jsonb_array_elements', [structuredClone(value)]), {}] } }], alias: { aliasname: 'bq_elements', colnames: [{ String: { sval: 'bq_element' } }] } } }], limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' } },
        },
      };
      // Cast, so that a subscript may follow (PostgreSQL's grammar cannot subscript a bare CASE).
      return arrayCast(caseWhen([[op('=', call('jsonb_typeof', [value]), text('array')), elements]]), 'text');
    }
    case 'bq_timestamp': {
      // TIMESTAMP(string[, 'UTC']) or TIMESTAMP(date or datetime): PostgreSQL's timestamptz input, in UTC.
      if (raw.length !== 1 && raw.length !== 2) r.fail('TIMESTAMP takes a value and an optional time zone', node);
      if (raw.length === 2) utcOnly(raw[1]!, 'TIMESTAMP', r);
      return cast(r.arg(raw[0]!, 'text'), 'timestamptz');
    }
    case 'parse_timestamp':
    case 'parse_datetime':
    case 'parse_date': {
      const kind = PARSE_KINDS[name]!;
      const shown = name.toUpperCase();
      if (raw.length !== 2 && !(raw.length === 3 && name === 'parse_timestamp')) r.fail(`${shown} takes a format and a string${name === 'parse_timestamp' ? " (and optionally 'UTC')" : ''}`, node);
      if (raw.length === 3) utcOnly(raw[2]!, shown, r);
      const shape = parseShape(raw[0]!, shown, kind, r);
      const value = cast(r.arg(raw[1]!, 'text'), 'text');
      // Only text of exactly the format's shape is read (PostgreSQL's input reads it the same way);
      // anything else fails with a message naming the function, as BigQuery refuses it.
      const refusal = cast(op('||', op('||', text(`${shown}: "`), structuredClone(value)), text('" does not match the format')), kind.type);
      return caseWhen([[op('~', structuredClone(value), text(shape)), cast(value, kind.type)]], refusal);
    }
    case 'approx_top_count':
    case 'approx_top_sum': {
      // The n most frequent values (or largest sums of a weight) with their counts, as an array of
      // {value, count|sum} objects, most first (ties by value): exact, so a valid approximate answer.
      const counting = name === 'approx_top_count';
      arity(counting ? 2 : 3);
      const nNode = raw[raw.length - 1];
      const n = intConst(nNode);
      if (n === undefined || n < 1 || n > MAX_APPROX_SIZE) return r.fail(`${name.toUpperCase()} needs a whole number from 1 to ${MAX_APPROX_SIZE} as its last argument`, nNode ?? node);
      const key = counting ? 'count' : 'sum';
      const values = call('array_agg', [r.arg(raw[0]!, 'text')]);
      const weights = counting ? undefined : call('array_agg', [r.arg(raw[1]!, 'numeric')]);
      const measure = counting ? 'count(*)' : 'sum(bq_w)';
      return r.template(
        `(select jsonb_agg(jsonb_build_object('value', bq_top.bq_v, '${key}', bq_top.bq_m) order by bq_top.bq_m desc, bq_top.bq_v) from (select bq_v, ${measure} as bq_m from unnest(bq_values${counting ? '' : ', bq_weights'}) as bq_u(bq_v${counting ? '' : ', bq_w'}) group by bq_v order by ${measure} desc, bq_v limit ${n}) as bq_top)`,
        counting ? { bq_values: values } : { bq_values: values, bq_weights: weights! },
      );
    }
    case 'approx_quantiles': {
      // Exact quantiles are valid approximate ones: n + 1 boundaries, minimum to maximum, each the
      // first value at or past its fraction of the ordered non-null values (percentile_disc).
      arity(2);
      const n = intConst(raw[1]);
      if (n === undefined || n < 1 || n > MAX_APPROX_SIZE) return r.fail(`APPROX_QUANTILES needs a whole number of quantiles from 1 to ${MAX_APPROX_SIZE} as its second argument`, raw[1] ?? node);
      const fractions = Array.from({ length: n + 1 }, (_, i): Node => ({ A_Const: { fval: { fval: String(i / n) } } }));
      const sortBy: Node = { SortBy: { node: r.arg(raw[0]!, 'numeric'), sortby_dir: 'SORTBY_DEFAULT', sortby_nulls: 'SORTBY_NULLS_DEFAULT' } };
      return window(call('percentile_disc', [arrayCast({ A_ArrayExpr: { elements: fractions } }, 'float8')], { agg_order: [sortBy], agg_within_group: true }));
    }
    case 'any_value':
      // Some value of the group (BigQuery may pick a NULL too): the first one aggregated.
      arity(1);
      return { A_Indirection: { arg: window(call('array_agg', args('json'))), indirection: [{ A_Indices: { uidx: int(1) } }] } };
    case 'string_agg': {
      if (raw.length !== 1 && raw.length !== 2) r.fail('STRING_AGG takes a value and an optional delimiter', node);
      // BigQuery's delimiter defaults to a comma; PostgreSQL's is required.
      const out = plain(body, node, r);
      const fc = wrapped(out, 'FuncCall')!;
      if (raw.length === 1) fc['args'] = [...(fc['args'] as Node[]), text(',')];
      return out;
    }
    case 'bq_struct': {
      // STRUCT(x AS a, col) → a JSON object; `s.a` then reads it like a record field (record-scope.ts).
      const fields = new Map<string, Node>();
      for (const a of raw) {
        const named = wrapped(a, 'NamedArgExpr');
        const value = (named ? named['arg'] : a) as Node;
        const fieldName = typeof named?.['name'] === 'string' ? named['name'] : columnFields(value)?.at(-1);
        if (fieldName === undefined) r.fail('STRUCT fields need a name (x AS name)', a);
        if (fields.has(fieldName)) r.fail(`STRUCT field "${fieldName}" is named twice`, a);
        fields.set(fieldName, r.arg(value, 'json'));
      }
      return call('jsonb_build_object', [...fields].flatMap(([k, v]) => [text(k), v]));
    }
    case 'to_json_string':
      // JSON text of the value; objects and arrays of jsonb as PostgreSQL prints them (`{"a": 1}`).
      arity(1);
      // A string literal is BigQuery's STRING (to PostgreSQL an unknown, which to_json cannot take).
      // NULL is the JSON text null; objects and arrays without jsonb's spaces.
      if (constKind(raw[0]) === 'null') return text('null');
      return compactJson(cast(call('to_json', constKind(raw[0]) === 'string' ? [cast(args('json')[0]!, 'text')] : args('json')), 'text'));
    case 'generate_array':
    case 'generate_timestamp_array':
    case 'generate_date_array': {
      if (raw.length !== 3 && !(raw.length === 2 && name === 'generate_array')) r.fail(`${name.toUpperCase()} takes a start, an end and ${name === 'generate_array' ? 'an optional step' : 'an INTERVAL step'}`, node);
      const [start, end, step] = args(name === 'generate_array' ? 'numeric' : 'text');
      const series = call('generate_series', step === undefined ? [start!, end!] : [start!, end!, step]);
      const values = name === 'generate_date_array' ? cast(series, 'date') : series;
      return { SubLink: { subLinkType: 'ARRAY_SUBLINK', subselect: { SelectStmt: { targetList: [{ ResTarget: { val: values } }], limitOption: 'LIMIT_OPTION_DEFAULT', op: 'SETOP_NONE' } } } };
    }
    case 'format_timestamp':
    case 'format_datetime':
    case 'format_date': {
      if (raw.length !== 2 && !(raw.length === 3 && name === 'format_timestamp')) r.fail(`${name.toUpperCase()} takes a format and a value${name === 'format_timestamp' ? ' (and an optional time zone)' : ''}`, node);
      if (raw.length === 3) utcOnly(raw[2]!, name.toUpperCase(), r);
      const value = constKind(raw[1]) === 'null' ? cast(r.arg(raw[1]!, 'text'), name === 'format_date' ? 'date' : name === 'format_datetime' ? 'timestamp' : 'timestamptz') : r.arg(raw[1]!, 'text');
      return call('to_char', [value, text(toCharFormat(raw[0]!, name.toUpperCase(), r))]);
    }
    case 'log':
      // LOG(x) is the natural logarithm; LOG(x, base) takes the base second (PostgreSQL's first).
      if (raw.length === 1) return call('ln', [cast(r.arg(raw[0]!, 'numeric'), 'float8')]);
      arity(2);
      return cast(call('log', [cast(r.arg(raw[1]!, 'numeric'), 'numeric'), cast(r.arg(raw[0]!, 'numeric'), 'numeric')]), 'float8');
    case 'pow':
    case 'power':
      arity(2);
      return call('power', args('numeric').map((a) => cast(a, 'float8')));
    case 'round':
    case 'trunc':
      // Halves away from zero, as BigQuery rounds (PostgreSQL's float8 round would round them to even).
      if (raw.length !== 1 && raw.length !== 2) r.fail(`${name.toUpperCase()} takes a value and an optional number of places`, node);
      return call(name, [cast(r.arg(raw[0]!, 'numeric'), 'numeric'), ...(raw.length === 2 ? [cast(r.arg(raw[1]!, 'numeric'), 'int4')] : [])]);
    case 'ieee_divide':
      // Only where the quotient is a number: a division by zero is an error (BigQuery's ±inf and NaN have no JSON form).
      arity(2);
      return op('/', ...(args('numeric').map((a) => cast(a, 'float8')) as [Node, Node]));
    case 'is_inf':
      arity(1);
      return op('=', call('abs', [cast(r.arg(raw[0]!, 'numeric'), 'float8')]), cast(text('Infinity'), 'float8'));
    case 'is_nan':
      arity(1);
      return op('=', cast(r.arg(raw[0]!, 'numeric'), 'float8'), cast(text('NaN'), 'float8'));
    case 'array_concat':
      if (raw.length === 0) r.fail('ARRAY_CONCAT takes at least one array', node);
      return args('text').reduce((a, b) => op('||', a, b));
    case 'array_reverse':
      arity(1);
      return r.template('array(select bq_e from unnest(bq_a) with ordinality as bq_u(bq_e, bq_i) order by bq_i desc)', { bq_a: r.arg(raw[0]!, 'text') });
    case AGG_LIMIT_MARK: {
      // ARRAY_AGG(… LIMIT n) (the pre-pass moved the LIMIT out): the first n values aggregated.
      arity(2);
      const n = intConst(raw[1]);
      if (n === undefined || n < 0) return r.fail('ARRAY_AGG\'s LIMIT needs a whole number', raw[1] ?? node);
      return { A_Indirection: { arg: r.arg(raw[0]!, 'text'), indirection: [{ A_Indices: { is_slice: true, lidx: int(1), uidx: int(n) } }] } };
    }
    case 'pg_catalog.extract':
      return extractPart(body, node, r);
    case 'approx_count_distinct':
      arity(1);
      return window(call('count', args('text'), { agg_distinct: true }));
    default:
      return plain(body, node, r);
  }
}

/** A time zone argument: only 'UTC' (the service works in UTC), else refused naming the function. */
function utcOnly(zone: Node, fn: string, r: Rewriter): void {
  if (stringConst(zone) !== 'UTC') r.fail(`${fn} with a time zone other than 'UTC' is not supported (the service works in UTC)`, zone);
}

/** A function PostgreSQL has under the same name: translate its arguments and clauses in place. */
function plain(body: Json, node: Node, r: Rewriter): Node {
  const name = names(body['funcname']).pop() ?? '';
  const ctx: Ctx = NUMERIC_ARGS.has(name) ? 'numeric' : 'text';
  if (body['args'] !== undefined) body['args'] = (body['args'] as Node[]).map((a) => r.arg(a, ctx));
  if (body['agg_filter'] !== undefined) body['agg_filter'] = r.arg(body['agg_filter'] as Node, 'bool');
  if (body['agg_order'] !== undefined) body['agg_order'] = (body['agg_order'] as Node[]).map((s) => r.arg(s, 'json'));
  if (body['over'] !== undefined) body['over'] = overClause(body['over'] as Node, r);
  return node;
}

/** An OVER clause is a bare WindowDef; its PARTITION BY and ORDER BY read paths as jsonb. */
function overClause(over: Node, r: Rewriter): Node {
  return (r.arg({ WindowDef: over }, 'json') as Json)['WindowDef'] as Node;
}

/** A date part written as a bare word (`minute`) or a string ('minute'). */
function datePart(node: Node, r: Rewriter, allowed: ReadonlySet<string>): string {
  const fields = columnFields(node);
  const word = fields?.length === 1 ? fields[0] : stringConst(node);
  const unit = typeof word === 'string' ? word.toLowerCase() : undefined;
  if (unit === undefined || !allowed.has(unit)) {
    return r.fail(`date part ${unit?.toUpperCase() ?? nodeType(node) ?? '?'} is not supported here (one of ${[...allowed].join(', ').toUpperCase()})`, node);
  }
  return unit;
}

/** UTC wall-clock time of a timestamp: BigQuery's DATETIME of a TIMESTAMP. */
function utcWallTime(value: Node): Node {
  return call('timezone', [text('UTC'), cast(value, 'timestamptz')]);
}

/** `CAST(x AS T)`, `x::T` and `SAFE_CAST(x AS T)` (marked by the pre-pass). */
export function rewriteCast(body: Json, node: Node, r: Rewriter): Node {
  const typeName = body['typeName'] as Json;
  const typeNames = names(typeName['names']);
  const safe = typeNames.length === 2 && typeNames[0] === SAFE_CAST_MARK;
  const bqType = (typeNames[typeNames.length - 1] ?? '').toLowerCase();
  const isArray = Array.isArray(typeName['arrayBounds']);
  const target = bqType === 'datetime' ? 'datetime' : TYPES[bqType] ?? bqType;
  const arg = r.arg(body['arg'] as Node, target === 'jsonb' || target === 'json' ? 'json' : 'text');
  if (isArray) {
    if (safe) r.fail('SAFE_CAST to an array type is not supported', node);
    body['arg'] = arg;
    return node;
  }
  if (!safe) {
    if (target === 'datetime') return utcWallTime(arg);
    // BigQuery reads a hexadecimal string as an integer ('0x1F' → 31); PostgreSQL before 16 does not.
    const hex = target === 'int8' ? /^\s*([+-]?)0[xX]([0-9a-fA-F]{1,16})\s*$/.exec(stringConst(body['arg']) ?? '') : null;
    if (hex !== null) return cast(text(String(BigInt(`0x${hex[2]}`) * (hex[1] === '-' ? -1n : 1n))), 'int8');
    if (TYPES[bqType] === undefined) {
      // A PostgreSQL type name: kept as written, type modifiers included.
      body['arg'] = arg;
      return node;
    }
    return cast(arg, target);
  }
  // SAFE_CAST: NULL instead of an error, decided on the value's text before any cast is attempted.
  const asText = (): Node => cast(structuredClone(arg), 'text');
  switch (target) {
    case 'text':
      return asText();
    case 'int8':
      return caseWhen([[op('~', asText(), text(INT_TEXT)), caseWhen([[
        and(op('>=', cast(asText(), 'numeric'), bigintBound('-9223372036854775808')), op('<=', cast(asText(), 'numeric'), bigintBound('9223372036854775807'))),
        cast(cast(asText(), 'numeric'), 'int8'),
      ]])]]);
    case 'float8':
    case 'numeric':
      return caseWhen([[op('~', asText(), text(NUMBER_TEXT)), cast(asText(), target)]]);
    case 'bool':
      return caseWhen([
        [op('=', call('lower', [call('btrim', [asText()])]), text('true')), boolConst(true)],
        [op('=', call('lower', [call('btrim', [asText()])]), text('false')), boolConst(false)],
      ]);
    default:
      return r.fail(`SAFE_CAST to ${bqType.toUpperCase()} is not supported`, node);
  }
}
