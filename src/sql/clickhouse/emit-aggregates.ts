/**
 * Aggregates and window functions printed for ClickHouse with PostgreSQL's meaning (emit-functions.ts
 * dispatches to them): FILTER as the `If` combinator, sample statistics NULL below two values, lag and
 * lead over the whole partition, percentile_cont and percentile_disc (one fraction or several).
 */
import { wrapped, type Json } from '../sandbox/sql-parser.ts';
import { elementOf, expr, isNumber, unsupported, type Expr, type PgType, type Emitter } from './emit-types.ts';

/** Aggregates: PostgreSQL's name → ClickHouse's, and the type of the answer. */
type Aggregate = { readonly name: string; readonly result: (arg: PgType) => PgType };
const same = (t: PgType): PgType => t;
const numericResult = (): PgType => 'numeric';
const boolResult = (): PgType => 'bool';
export const AGGREGATES: Readonly<Record<string, Aggregate>> = Object.freeze<Record<string, Aggregate>>({
  count: { name: 'count', result: (): PgType => 'int' },
  sum: { name: 'sum', result: same },
  avg: { name: 'avg', result: numericResult },
  min: { name: 'min', result: same },
  max: { name: 'max', result: same },
  bool_and: { name: 'min', result: boolResult },
  bool_or: { name: 'max', result: boolResult },
  every: { name: 'min', result: boolResult },
  bit_and: { name: 'groupBitAnd', result: same },
  bit_or: { name: 'groupBitOr', result: same },
  bit_xor: { name: 'groupBitXor', result: same },
  stddev: { name: 'stddevSamp', result: numericResult },
  stddev_samp: { name: 'stddevSamp', result: numericResult },
  stddev_pop: { name: 'stddevPop', result: numericResult },
  variance: { name: 'varSamp', result: numericResult },
  var_samp: { name: 'varSamp', result: numericResult },
  var_pop: { name: 'varPop', result: numericResult },
});

/** Window-only functions without arguments. */
export const RANKING: ReadonlySet<string> = new Set(['row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist']);

/** Window-only functions with arguments: ClickHouse's name (the NULL-respecting variants: PostgreSQL's). */
export const VALUE_WINDOWS: Readonly<Record<string, string>> = Object.freeze({
  first_value: 'first_value_respect_nulls', last_value: 'last_value_respect_nulls', ntile: 'ntile',
});

export function aggregateOrWindow(e: Emitter, name: string, body: Json, args: unknown[], over: Json | undefined, at: string): Expr {
  if (RANKING.has(name)) {
    if (over === undefined || args.length > 0) return unsupported(`${name}() without OVER`, at);
    return expr(`${name}()`, name === 'percent_rank' || name === 'cume_dist' ? 'numeric' : 'int');
  }
  if (name === 'lag' || name === 'lead') {
    if (over === undefined) return unsupported(`${name}() without OVER`, at);
    const v = e.value(args[0]);
    const offset = args[1] === undefined ? '1' : e.argAs(args[1], 'int', at);
    const fallback = args[2] === undefined ? 'NULL' : e.as(e.emit(args[2]), v.type, at);
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
export function percentile(e: Emitter, name: string, body: Json, at: string): Expr {
  const order = ((body['agg_order'] as unknown[]) ?? []).map((s) => wrapped(s, 'SortBy')!);
  if (order.length !== 1 || (order[0]!['sortby_dir'] !== 'SORTBY_DEFAULT' && order[0]!['sortby_dir'] !== 'SORTBY_ASC')) return unsupported('percentile_cont ordered other than ascending by one value', at);
  const arg = (body['args'] as unknown[])[0];
  const fractions = wrapped(wrapped(arg, 'TypeCast')?.['arg'] ?? arg, 'A_ArrayExpr');
  if (name === 'percentile_disc') {
    const ps = fractions === undefined ? [fraction(arg, name, at)] : ((fractions['elements'] as unknown[] | undefined) ?? []).map((f) => fraction(f, name, at));
    const values = percentilesDisc(e, body, order[0]!, ps, at);
    return fractions === undefined ? expr(`${values.sql}[1]`, elementOf(values.type)!) : values;
  }
  const p = fraction(arg, name, at);
  const x = e.argAs(order[0]!['node'], 'numeric', at);
  if (body['agg_filter'] !== undefined) return expr(`quantileExactInclusiveIf(${p})(${x}, ${e.condition(body['agg_filter'])})`, 'numeric');
  return expr(`quantileExactInclusive(${p})(${x})`, 'numeric');
}

/** A constant fraction between 0 and 1 (libpg-query: an Integer for 0 and 1, a Float otherwise). */
function fraction(node: unknown, name: string, at: string): number {
  const c = wrapped(wrapped(node, 'TypeCast')?.['arg'] ?? node, 'A_Const');
  const p = c && 'fval' in c ? Number((c['fval'] as Json)['fval']) : c && 'ival' in c ? Number((c['ival'] as Json)['ival'] ?? 0) : NaN;
  return p >= 0 && p <= 1 ? p : unsupported(`${name} of a fraction that is not a constant between 0 and 1`, at);
}

/** percentile_disc at each fraction (BigQuery's APPROX_QUANTILES is made of these): the first value whose position in order reaches it. */
function percentilesDisc(e: Emitter, body: Json, sort: Json, ps: readonly number[], at: string): Expr {
  if (body['agg_filter'] !== undefined) return unsupported('percentile_disc with FILTER', at);
  const v = e.value(sort['node']);
  if (v.type === 'jsonb' || v.type === 'other' || elementOf(v.type) !== undefined) return unsupported(`percentile_disc of ${v.type}`, at);
  const sorted = `arraySort(groupArray(${v.sql}))`;
  // The sorted values travel into the lambda as an argument: an aggregate cannot be read inside one.
  // Of no values PostgreSQL's answer is NULL, not an array of NULLs.
  return { ...expr(`arrayMap((p, s) -> if(length(s) = 0, NULL, s[toUInt64(greatest(1, ceil(p * length(s))))]), [${ps.map((p) => `toFloat64(${p})`).join(', ')}], arrayWithConstant(${ps.length}, ${sorted}))`, `${v.type}[]` as PgType), nullIfAllNull: true };
}

/**
 * The values of an ordered aggregate (`ORDER BY key, …` inside the call) as a ClickHouse array of
 * `value`, in PostgreSQL's order: ascending keys with NULLs last, descending with NULLs first.
 * Every key descending: the whole sort reversed. Some: a descending number or timestamp sorts by
 * its negation, its NULLs first by their flag; a descending text beside ascending keys is refused.
 * `keep` filters the rows (string_agg leaves NULL values out); no keys: ClickHouse's order, as
 * PostgreSQL's is its own.
 */
function orderedValues(e: Emitter, body: Json, value: string, keep: string, what: string, at: string): string {
  const order = ((body['agg_order'] as unknown[] | undefined) ?? []).map((s) => wrapped(s, 'SortBy')!);
  if (order.some((s) => s['sortby_nulls'] !== 'SORTBY_NULLS_DEFAULT' || (s['sortby_dir'] !== 'SORTBY_DEFAULT' && s['sortby_dir'] !== 'SORTBY_ASC' && s['sortby_dir'] !== 'SORTBY_DESC'))) return unsupported(`${what} ordered with NULLS or USING`, at);
  const descending = order.map((s) => s['sortby_dir'] === 'SORTBY_DESC');
  const reversed = descending.length > 0 && descending.every(Boolean);
  const keys = order.map((s, i) => {
    const k = e.value(s['node']);
    if (k.type !== 'text' && k.type !== 'int' && k.type !== 'numeric' && k.type !== 'timestamptz' && k.type !== 'timestamp') return unsupported(`${what} ordered by ${k.type}`, at);
    if (reversed || !descending[i]) return `isNull(${k.sql}), ${k.sql}`;
    if (k.type === 'text') return unsupported(`${what} ordered by text descending beside ascending keys`, at);
    return `isNotNull(${k.sql}), -toFloat64(${k.type.startsWith('timestamp') ? `toUnixTimestamp64Micro(${k.sql})` : k.sql})`;
  });
  // A one-element tuple keeps a NULL value, which groupArray would leave out.
  if (keys.length === 0) return `arrayMap(t -> t.1, groupArrayIf(tuple(${value}), ${keep}))`;
  return `arrayMap(t -> t.1, ${reversed ? 'arrayReverseSort' : 'arraySort'}(t -> t.2, groupArrayIf((${value}, tuple(${keys.join(', ')})), ${keep})))`;
}

/** string_agg(value, separator [ORDER BY key, …]): NULL values left out, NULL for none, in the order asked. */
export function stringAgg(e: Emitter, body: Json, args: unknown[], over: Json | undefined, at: string): Expr {
  if (over !== undefined || body['agg_distinct'] || body['agg_filter'] !== undefined || args.length !== 2) return unsupported('string_agg with OVER, DISTINCT, FILTER or other than two arguments', at);
  const v = e.argAs(args[0], 'text', at);
  const sep = e.argAs(args[1], 'text', at);
  return expr(`if(count(${v}) = 0, NULL, arrayStringConcat(${orderedValues(e, body, v, `${v} IS NOT NULL`, 'string_agg', at)}, ${sep}))`, 'text');
}

/**
 * array_agg(value [ORDER BY key, …]): every value, NULLs included, in the order asked; an array
 * the statement indexes or counts (an array is not a result column on ClickHouse). PostgreSQL's
 * array_agg of no rows is NULL, never an empty array, so an empty one here means NULL (nullIfEmpty).
 */
export function arrayAgg(e: Emitter, body: Json, args: unknown[], over: Json | undefined, at: string): Expr {
  if (over !== undefined || body['agg_distinct'] || body['agg_filter'] !== undefined || args.length !== 1) return unsupported('array_agg with OVER, DISTINCT, FILTER or other than one argument', at);
  const v = e.value(args[0]);
  if (elementOf(v.type) !== undefined || v.type === 'jsonb' || v.type === 'other' || v.type === 'interval') return unsupported(`array_agg of ${v.type}`, at);
  const type = v.type === 'unknown' || v.type === 'null' ? 'text' : v.type;
  return { ...expr(orderedValues(e, body, v.sql, '1', 'array_agg', at), `${type}[]` as PgType), nullIfEmpty: true };
}
