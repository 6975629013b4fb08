/**
 * BigQuery's QUALIFY (docs/logflare-compat.md): a filter on window functions, evaluated after
 * HAVING and before DISTINCT, ORDER BY and LIMIT. PostgreSQL has no such clause, so the pre-pass
 * (bigquery-lexer.ts) parks the condition in HAVING as `bq_qualify(cond)` and the tree rewrite
 * here turns the SELECT into the equivalent subquery:
 *
 *   SELECT q.bq_q1 AS a, (q.bq_q2).* FROM (SELECT x AS bq_q1, t AS bq_q2, cond AS bq_keep, sort AS bq_s1 …) AS q
 *   WHERE q.bq_keep [DISTINCT, ORDER BY, LIMIT moved here]
 *
 * Every output keeps the name PostgreSQL would have given it without QUALIFY (`FigureColname`'s rules
 * below), `*` travels as a whole-row value expanded again outside, and the condition may name the
 * SELECT's aliases (BigQuery's rule) by taking a copy of the aliased expression.
 */
import { nodeType, wrapped, type Json } from '../sandbox/sql-parser.ts';
import { QUALIFY_MARK } from './bigquery-lexer.ts';
import { column, columnFields, names, replaceNodes, type Node } from './nodes.ts';

const SUBQUERY = 'bq_qualified';
const KEEP = 'bq_keep';
/** Clauses evaluated after QUALIFY: they move to the outer SELECT. */
const AFTER = ['distinctClause', 'sortClause', 'limitCount', 'limitOffset', 'limitOption'] as const;

/** Take the QUALIFY condition out of a SELECT's HAVING (where the pre-pass parked it), if any. */
export function takeQualify(body: Json): Node | undefined {
  const having = body['havingClause'] as Node | undefined;
  const marker = (n: unknown): Node | undefined => {
    const fn = wrapped(n, 'FuncCall');
    return fn && names(fn['funcname']).join('.') === QUALIFY_MARK ? ((fn['args'] as Node[] | undefined)?.[0] ?? {}) : undefined;
  };
  const alone = marker(having);
  if (alone !== undefined) {
    delete body['havingClause'];
    return alone;
  }
  const both = wrapped(having, 'BoolExpr');
  const args = both?.['boolop'] === 'AND_EXPR' ? (both['args'] as Node[]) : undefined;
  const last = args && args.length === 2 ? marker(args[1]) : undefined;
  if (last === undefined) return undefined;
  body['havingClause'] = args![0]!;
  return last;
}

/** The node an alias reference becomes until translation is done: no rewrite reads it as a name. */
const ALIAS = 'BqAlias';

/** Mark single-name references to a SELECT alias in the condition (before it is translated). */
export function markAliases(cond: Node, outputs: readonly (string | undefined)[]): void {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    const fields = columnFields(node);
    if (fields?.length === 1 && outputs.includes(fields[0])) {
      delete (node as Json)['ColumnRef'];
      (node as Json)[ALIAS] = { index: outputs.indexOf(fields[0]) };
      return;
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(cond);
}

/** The translated condition with each marked alias replaced by a copy of the SELECT item it names. */
export function fillAliases(node: Node, items: readonly Node[]): Node {
  return replaceNodes(node, (n) => {
    const alias = wrapped(n, ALIAS);
    return alias === undefined ? undefined : items[alias['index'] as number];
  });
}

/**
 * Rewrite `body` in place into the filtering subquery; `fail` refuses what has no exact form.
 * `cond` is the translated condition with aliases already replaced.
 */
export function wrapQualified(body: Json, cond: Node, fail: (what: string, at: unknown) => never): void {
  const inner: Json = { ...body };
  const outer: Json = { op: 'SETOP_NONE' };
  for (const key of AFTER) {
    if (inner[key] !== undefined) outer[key] = inner[key];
    delete inner[key];
  }
  if ((outer['distinctClause'] as unknown[] | undefined)?.some((d) => nodeType(d) !== undefined)) {
    fail('DISTINCT ON with QUALIFY is not supported', (outer['distinctClause'] as unknown[])[0]);
  }
  const innerTargets: Node[] = [];
  const outerTargets: Node[] = [];
  ((inner['targetList'] as Node[] | undefined) ?? []).forEach((t, i) => {
    const res = wrapped(t, 'ResTarget')!;
    const name = `bq_q${i + 1}`;
    const ref = wrapped(res['val'], 'ColumnRef');
    const fields = (ref?.['fields'] as unknown[] | undefined) ?? [];
    if (ref && nodeType(fields[fields.length - 1]) === 'A_Star') {
      // `*` / `t.*`: the row travels as one whole-row value and is expanded again outside.
      const relation = fields.length > 1 ? names(fields.slice(0, -1)) : [onlyRelation(inner, fail, t)];
      innerTargets.push(target(column(...relation), name));
      outerTargets.push({ ResTarget: { val: { A_Indirection: { arg: column(SUBQUERY, name), indirection: [{ A_Star: {} }] } } } });
      return;
    }
    innerTargets.push(target(res['val'] as Node, name));
    outerTargets.push(target(column(SUBQUERY, name), outputName(res)));
  });
  innerTargets.push(target(cond, KEEP));
  const sort = outer['sortClause'] as Node[] | undefined;
  const outputs = outerTargets.map((o) => wrapped(o, 'ResTarget')!['name']);
  sort?.forEach((s, k) => {
    const by = wrapped(s, 'SortBy')!;
    const fields = columnFields(by['node']);
    // An output's name or position means the same outside; any other expression is computed inside.
    if ((fields?.length === 1 && outputs.includes(fields[0])) || wrapped(by['node'], 'A_Const')) return;
    innerTargets.push(target(by['node'] as Node, `bq_s${k + 1}`));
    by['node'] = column(SUBQUERY, `bq_s${k + 1}`);
  });
  inner['targetList'] = innerTargets;
  outer['targetList'] = outerTargets;
  outer['fromClause'] = [{ RangeSubselect: { subquery: { SelectStmt: inner }, alias: { aliasname: SUBQUERY } } }];
  outer['whereClause'] = column(SUBQUERY, KEEP);
  for (const key of Object.keys(body)) delete body[key];
  Object.assign(body, outer);
}

const target = (val: Node, name: string | undefined): Node => ({ ResTarget: { val, ...(name === undefined ? {} : { name }) } });

/** The one relation a bare `*` expands, by the name it is known by in FROM. */
function onlyRelation(select: Json, fail: (what: string, at: unknown) => never, at: unknown): string {
  const from = (select['fromClause'] as Node[] | undefined) ?? [];
  const item = from.length === 1 ? from[0] : undefined;
  const type = nodeType(item);
  const body = type ? ((item as Json)[type] as Json) : undefined;
  const alias = (body?.['alias'] as Json | undefined)?.['aliasname'];
  if (typeof alias === 'string') return alias;
  if (type === 'RangeVar' && typeof body!['relname'] === 'string') return body!['relname'];
  return fail('QUALIFY with SELECT * needs exactly one table in FROM; name the columns or use t.*', at);
}

/** The column name PostgreSQL gives a SELECT item (parser/parse_target.c, FigureColname). */
export function outputName(res: Json): string {
  if (typeof res['name'] === 'string') return res['name'];
  return figure(res['val']) ?? '?column?';
}

function figure(node: unknown): string | undefined {
  const type = nodeType(node);
  const body = type ? ((node as Json)[type] as Json) : {};
  switch (type) {
    case 'ColumnRef': {
      const fields = body['fields'] as unknown[];
      return wrapped(fields[fields.length - 1], 'String')?.['sval'] as string | undefined;
    }
    case 'A_Indirection': {
      const fieldNames = (body['indirection'] as unknown[]).map((i) => wrapped(i, 'String')?.['sval']).filter((n) => typeof n === 'string');
      return (fieldNames.at(-1) as string | undefined) ?? figure(body['arg']);
    }
    case 'FuncCall':
      return names(body['funcname']).at(-1);
    case 'A_Expr':
      return body['kind'] === 'AEXPR_NULLIF' ? 'nullif' : undefined;
    case 'TypeCast':
      // CASE names its column only weakly: a cast of it is named by the type.
      return (nodeType(body['arg']) === 'CaseExpr' ? undefined : figure(body['arg'])) ?? names((body['typeName'] as Json)['names']).at(-1);
    case 'CollateClause':
      return figure(body['arg']);
    case 'CaseExpr':
      return 'case';
    case 'CoalesceExpr':
      return 'coalesce';
    case 'MinMaxExpr':
      return body['op'] === 'IS_GREATEST' ? 'greatest' : 'least';
    case 'A_ArrayExpr':
      return 'array';
    case 'RowExpr':
      return 'row';
    case 'GroupingFunc':
      return 'grouping';
    case 'SubLink': {
      const kind = body['subLinkType'];
      if (kind === 'EXISTS_SUBLINK') return 'exists';
      if (kind === 'ARRAY_SUBLINK') return 'array';
      if (kind !== 'EXPR_SUBLINK') return undefined;
      const first = ((wrapped(body['subselect'], 'SelectStmt')?.['targetList'] as Json[] | undefined) ?? [])[0];
      const res = wrapped(first, 'ResTarget');
      return res ? outputName(res) : undefined;
    }
    case 'SQLValueFunction':
      return SQL_VALUE_NAMES[String(body['op'])];
    default:
      return undefined;
  }
}

const SQL_VALUE_NAMES: Readonly<Record<string, string>> = Object.freeze({
  SVFOP_CURRENT_DATE: 'current_date', SVFOP_CURRENT_TIME: 'current_time', SVFOP_CURRENT_TIME_N: 'current_time',
  SVFOP_CURRENT_TIMESTAMP: 'current_timestamp', SVFOP_CURRENT_TIMESTAMP_N: 'current_timestamp',
  SVFOP_LOCALTIME: 'localtime', SVFOP_LOCALTIME_N: 'localtime', SVFOP_LOCALTIMESTAMP: 'localtimestamp',
  SVFOP_LOCALTIMESTAMP_N: 'localtimestamp',
});
