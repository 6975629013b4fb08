/**
 * BigQuery's array subscripts (`[OFFSET(i)]` and kin, marked by the pre-pass) and quantile arrays
 * in PostgreSQL's terms (docs/logflare-compat.md).
 */
import { SUBSCRIPT_MARKS } from './bigquery-lexer.ts';
import { wrapped, type Json } from '../sandbox/sql-parser.ts';
import type { Rewriter } from './rewriter.ts';
import { and, call, caseWhen, cast, coalesce, int, intConst, names, nullConst, op, text, type Node } from './nodes.ts';

/** Largest n of APPROX_QUANTILES(x, n) and APPROX_TOP_*(…, n) (BigQuery states no bound; this keeps plans small). */
export const MAX_APPROX_SIZE = 1000;

export const arrayCast = (arg: Node, elementType: string): Node => ({
  TypeCast: { arg, typeName: { names: [{ String: { sval: elementType } }], typemod: -1, arrayBounds: [{ Integer: { ival: -1 } }] } },
});

/** The marker call the pre-pass writes for each subscript form → its name, 0-based or not, and whether it raises. */
const SUBSCRIPTS: ReadonlyMap<string, { name: string; zeroBased: boolean; safe: boolean }> = new Map(
  Object.entries(SUBSCRIPT_MARKS).map(([form, mark]) => [mark, { name: form.toUpperCase(), zeroBased: form.endsWith('offset'), safe: form.startsWith('safe_') }]),
);

/**
 * `array[OFFSET(n)]` and its kin (marked by the pre-pass) → PostgreSQL's 1-based subscript.
 * SAFE_ forms are NULL out of range, as PostgreSQL's subscript is; OFFSET and ORDINAL raise, as
 * BigQuery does: the index becomes a cast of a message naming the subscript, which fails (class
 * 22, a 400 naming it) only when it is out of range. A NULL array or index gives NULL.
 */
/** The element type of an array literal of constants all of one kind (integers, strings), else undefined. */
function literalArrayType(node: Node): string | undefined {
  const elements = wrapped(node, 'A_ArrayExpr')?.['elements'] as Node[] | undefined;
  if (elements === undefined || elements.length === 0) return undefined;
  const kinds = new Set(elements.map((e) => (wrapped(e, 'A_Const')?.['ival'] !== undefined ? 'int8' : wrapped(e, 'A_Const')?.['sval'] !== undefined ? 'text' : 'other')));
  return kinds.size === 1 && !kinds.has('other') ? [...kinds][0] : undefined;
}

export function rewriteSubscript(body: Json, node: Node, r: Rewriter): Node | undefined {
  const indirection = body['indirection'] as Node[];
  const markAt = indirection.findIndex((i) => SUBSCRIPTS.has(names((wrapped(wrapped(i, 'A_Indices')?.['uidx'], 'FuncCall') ?? {})['funcname'])[0] ?? ''));
  if (markAt === -1) return undefined;
  if (indirection.length !== 1) r.fail('an array subscript on anything but a whole array (one [OFFSET(n)] at a time) is not supported', node);
  const mark = wrapped(wrapped(indirection[0], 'A_Indices')!['uidx'], 'FuncCall')!;
  const form = SUBSCRIPTS.get(names(mark['funcname'])[0]!)!;
  const args = (mark['args'] as Node[] | undefined) ?? [];
  if (args.length !== 1) r.fail(`${form.name} takes one index`, node);
  const quantile = quantileAt(body['arg'] as Node, args[0]!, form, r, node);
  if (quantile !== undefined) return quantile;
  const literal = literalArrayType(body['arg'] as Node);
  // An array literal subscripted is cast to its type, so that PostgreSQL's grammar (and its printer) reads `(…)[i]`.
  const array = literal === undefined ? r.arg(body['arg'] as Node, 'text') : arrayCast(r.arg(body['arg'] as Node, 'text'), literal);
  const index = r.arg(args[0]!, 'numeric');
  const pgIndex = form.zeroBased ? op('+', index, int(1)) : index;
  let subscript = pgIndex;
  if (!form.safe) {
    const low = form.zeroBased ? int(0) : int(1);
    const inRange = and(op('>=', structuredClone(index), low), op(form.zeroBased ? '<' : '<=', structuredClone(index), call('cardinality', [structuredClone(array)])));
    const message = op('||', op('||', op('||', op('||', text(`${form.name}(`), cast(structuredClone(index), 'text')), text(') is out of bounds: the array has ')), cast(coalesce([call('cardinality', [structuredClone(array)]), int(0)]), 'text')), text(' elements'));
    subscript = caseWhen([[{ BoolExpr: { boolop: 'OR_EXPR', args: [{ NullTest: { arg: structuredClone(array), nulltesttype: 'IS_NULL' } }, { NullTest: { arg: structuredClone(index), nulltesttype: 'IS_NULL' } }, inRange] } }, pgIndex]], cast(message, 'int4'));
  }
  body['arg'] = array;
  body['indirection'] = [{ A_Indices: { uidx: subscript } }];
  return node;
}

/**
 * `APPROX_QUANTILES(x, n)[OFFSET(k)]` with a constant k (how Studio asks for p50/p95/p99): the one
 * quantile, `percentile_disc(k / n) WITHIN GROUP (ORDER BY x)`, instead of all n + 1 and a
 * subscript. Out of range: NULL for the SAFE_ forms, else refused here, naming it.
 */
function quantileAt(arrayNode: Node, indexNode: Node, form: { name: string; zeroBased: boolean; safe: boolean }, r: Rewriter, at: Node): Node | undefined {
  const fc = wrapped(arrayNode, 'FuncCall');
  if (fc === undefined || names(fc['funcname']).join('.') !== 'approx_quantiles' || fc['over'] !== undefined) return undefined;
  const k = intConst(indexNode);
  const args = (fc['args'] as Node[] | undefined) ?? [];
  const n = intConst(args[1]);
  if (k === undefined || n === undefined || args.length !== 2 || n < 1 || n > MAX_APPROX_SIZE) return undefined;
  const position = form.zeroBased ? k : k - 1;
  if (position < 0 || position > n) {
    if (form.safe) return nullConst();
    return r.fail(`${form.name}(${k}) is out of bounds: APPROX_QUANTILES(…, ${n}) has ${n + 1} elements`, at);
  }
  const sortBy: Node = { SortBy: { node: r.arg(args[0]!, 'numeric'), sortby_dir: 'SORTBY_DEFAULT', sortby_nulls: 'SORTBY_NULLS_DEFAULT' } };
  return call('percentile_disc', [cast({ A_Const: { fval: { fval: String(position / n) } } }, 'float8')], { agg_order: [sortBy], agg_within_group: true });
}
