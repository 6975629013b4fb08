/**
 * A validated caller SELECT printed as ClickHouse SQL (docs/clickhouse.md): FROM items with the
 * names PostgreSQL scopes (a caller's CTEs renamed, so one named like a stored CTE reads the stored
 * one, as in PostgreSQL), every column qualified, output names as PostgreSQL gives them, ORDER BY
 * and GROUP BY positions and output names resolved here, named windows inlined.
 */
import { outputName } from '../bigquery/qualify.ts';
import { nodeType, reject, stringList, wrapped, type Json, type Locator } from '../sandbox/sql-parser.ts';
import { chIdent, elementOf, expr, jsonValueText, unsupported, type Column, type Expr, type ExprScope, type PgType, type Printed } from './emit-types.ts';
import { ExprEmitter } from './emit-expression.ts';
import { sortKey } from './emit-windows.ts';

/** A FROM item as printed: the name PostgreSQL sees it by and the columns it offers. */
interface Rel {
  readonly name: string;
  readonly columns: readonly Column[];
  /** A stored CTE's: it carries `metadata_kinds` beside `metadata` (compose-clickhouse.ts). */
  readonly kinds?: boolean;
}

/** A CTE visible to the statement: what it is printed as and its columns. */
interface Cte {
  readonly printed: string;
  readonly columns: readonly Column[];
}

/** Names visible to one SELECT: its FROM items, its CTEs, and the enclosing statement's. */
class Scope implements ExprScope {
  readonly rels: Rel[] = [];
  /** Columns a USING join merged: an unqualified name means the merged value, as in PostgreSQL. */
  readonly merged = new Map<string, Expr>();
  windows: readonly Json[] = [];
  constructor(readonly printer: SelectPrinter, readonly ctes: ReadonlyMap<string, Cte>, readonly parent?: Scope) {}

  column(fields: readonly string[], at: string): Expr {
    if (fields.length > 2) return unsupported(`the qualified name ${fields.join('.')}`, at);
    // Not here: an enclosing query's (a correlated subquery; ClickHouse 25.8 and later run those).
    const [rel, col] = this.lookup(fields, at) ?? reject(`column "${fields.join('.')}" does not exist${at}`);
    if (rel.name === '') return expr(col.name, col.type); // a USING join's merged column, printed already
    const value = expr(`${chIdent(rel.name)}.${chIdent(col.name)}`, col.type);
    return rel.kinds && col.name === 'metadata' ? { ...value, kinds: `${chIdent(rel.name)}.\`metadata_kinds\`` } : value;
  }

  private lookup(fields: readonly string[], at: string): [Rel, Column] | undefined {
    return this.find(fields, at) ?? this.parent?.lookup(fields, at);
  }

  private find(fields: readonly string[], at: string): [Rel, Column] | undefined {
    const name = fields.at(-1)!;
    const merged = fields.length === 1 ? this.merged.get(name) : undefined;
    if (merged !== undefined) return [{ name: '', columns: [] }, { name: merged.sql, type: merged.type }];
    const rels = fields.length === 2 ? this.rels.filter((r) => r.name === fields[0]) : this.rels;
    const hits = rels.flatMap((r) => r.columns.filter((c) => c.name === name).map((c): [Rel, Column] => [r, c]));
    if (hits.length > 1) reject(`column reference "${fields.join('.')}" is ambiguous${at}`);
    if (hits.length === 0 && fields.length === 1 && this.rels.some((r) => r.name === name)) return unsupported(`the whole row of ${name} as a value`, at);
    return hits[0];
  }

  subquery(select: Json): Printed {
    return this.printer.select(select, this, false);
  }

  window(name: string, at: string): Json {
    const def = this.windows.map((w) => wrapped(w, 'WindowDef')!).find((w) => w['name'] === name);
    return def ?? reject(`window "${name}" does not exist${at}`);
  }

  at(location: unknown): string {
    return this.printer.locator.at(location);
  }

  cte(name: string): Cte | undefined {
    return this.ctes.get(name) ?? this.parent?.cte(name);
  }
}

/** Prints one caller statement; counts its CTEs so each gets a name of its own. */
export class SelectPrinter {
  private cteCount = 0;
  /** The stored CTEs the statement reads (only those are sent). */
  readonly storedRead = new Set<string>();

  constructor(readonly locator: Locator, private readonly stored: ReadonlyMap<string, readonly Column[]>, private readonly withKinds: ReadonlySet<string> = new Set()) {}

  /** The caller's whole statement: its outputs named as PostgreSQL names them, booleans as Bool. */
  statement(select: Json): Printed {
    return this.select(select, new Scope(this, new Map()), true);
  }

  select(body: Json, outer: Scope, top: boolean): Printed {
    const at = this.locator.at(body['location']);
    const withClause = body['withClause'] as Json | undefined;
    const ctes = new Map<string, Cte>();
    const scope = new Scope(this, ctes, outer);
    const head = withClause === undefined ? '' : this.ctes(withClause, scope, ctes);
    if (Array.isArray(body['valuesLists'])) return unsupported('VALUES', at);
    if (body['op'] !== undefined && body['op'] !== 'SETOP_NONE') return this.setOperation(body, scope, head, top, at);
    if (body['intoClause'] !== undefined || body['lockingClause'] !== undefined) return unsupported('this clause', at);

    const from = ((body['fromClause'] as unknown[] | undefined) ?? []).map((item) => this.fromItem(item, scope));
    scope.windows = (body['windowClause'] as Json[] | undefined) ?? [];
    const e = new ExprEmitter(scope);
    const targets = this.targets((body['targetList'] as unknown[] | undefined) ?? [], scope, e, at);
    const distinct = body['distinctClause'] as unknown[] | undefined;
    if (distinct !== undefined && (distinct.length !== 1 || nodeType(distinct[0]) !== undefined)) return unsupported('DISTINCT ON', at);

    const outputs = top ? lastOfEachName(targets) : uniqueNames(targets, at);
    // ClickHouse has no NULL array (PostgreSQL's answer for an aggregate of no rows): arrays are
    // read inside the statement (indexed, counted), never answered.
    // An array answered is its JSON text (the decoder splices it as JSON), of the element types whose
    // JSON is PostgreSQL's; an empty array that stands for NULL (array_agg of no rows) is NULL.
    const array = top ? outputs.find((t) => elementOf(t.value.type) !== undefined && !JSON_ELEMENTS.has(elementOf(t.value.type)!)) : undefined;
    if (array !== undefined) return unsupported(`an array of ${elementOf(array.value.type)} as a result column ("${array.name}"; select its elements)`, at);
    const answered = (v: Expr): string =>
      elementOf(v.type) === undefined ? v.sql
        : v.nullIfEmpty ? `if(empty(${v.sql}), NULL, ${jsonValueText(v)})`
        : v.nullIfAllNull ? `if(arrayAll(x -> x IS NULL, ${v.sql}), NULL, ${jsonValueText(v)})`
        : jsonValueText(v);
    const list = outputs.map((t) => `${top && t.value.type === 'bool' ? `toBool(${t.value.sql})` : top ? answered(t.value) : t.value.sql} AS ${chIdent(t.name)}`);
    let sql = `${head}SELECT ${distinct ? 'DISTINCT ' : ''}${list.length > 0 ? list.join(', ') : unsupported('a SELECT without columns', at)}`;
    if (from.length > 0) sql += ` FROM ${from.join(' CROSS JOIN ')}`;
    if (body['whereClause'] !== undefined) sql += ` WHERE ${e.condition(body['whereClause'])}`;
    const group = (body['groupClause'] as unknown[] | undefined) ?? [];
    if (group.length > 0) sql += ` GROUP BY ${group.map((g) => this.groupKey(g, targets, scope, e)).join(', ')}`;
    if (body['havingClause'] !== undefined) sql += ` HAVING ${e.condition(body['havingClause'])}`;
    sql += this.orderAndLimit(body, (node) => outputRef(node, targets, scope) ?? e.value(node), at);
    return { sql, columns: outputs.map((t) => ({ name: t.name, type: t.value.type === 'unknown' ? 'text' : top && elementOf(t.value.type) !== undefined ? 'jsonb' : t.value.type })) };
  }

  /** `WITH a AS (…), …` with each CTE renamed; a CTE sees only the ones before it (no RECURSIVE). */
  private ctes(withClause: Json, scope: Scope, into: Map<string, Cte>): string {
    const at = this.locator.at(withClause['location']);
    if (withClause['recursive']) return unsupported('WITH RECURSIVE', at);
    const items: string[] = [];
    for (const item of withClause['ctes'] as unknown[]) {
      const cte = wrapped(item, 'CommonTableExpr')!;
      const cteAt = this.locator.at(cte['location']);
      if (cte['search_clause'] !== undefined || cte['cycle_clause'] !== undefined) unsupported('SEARCH or CYCLE', cteAt);
      const printed = this.select(wrapped(cte['ctequery'], 'SelectStmt')!, scope, false);
      const columns = renamed(printed.columns, stringList(cte['aliascolnames']), cteAt);
      const name = `caller_cte_${++this.cteCount}`;
      items.push(`${chIdent(name)} AS (SELECT ${columns.map((c, i) => `${chIdent(printed.columns[i]!.name)} AS ${chIdent(c.name)}`).join(', ')} FROM (${printed.sql}))`);
      into.set(String(cte['ctename']), { printed: name, columns });
    }
    return `WITH ${items.join(', ')} `;
  }

  private setOperation(body: Json, scope: Scope, head: string, top: boolean, at: string): Printed {
    const op = String(body['op']);
    const all = body['all'] === true;
    const word = { SETOP_UNION: 'UNION', SETOP_INTERSECT: 'INTERSECT', SETOP_EXCEPT: 'EXCEPT' }[op];
    if (word === undefined || (all && word !== 'UNION')) return unsupported(`${word ?? op}${all ? ' ALL' : ''}`, at);
    const left = this.select(body['larg'] as Json, scope, top);
    const right = this.select(body['rarg'] as Json, scope, top);
    if (left.columns.length !== right.columns.length) reject(`each ${word} query must have the same number of columns${at}`);
    const columns = left.columns.map((c, i) => ({ name: c.name, type: unionType(c.type, right.columns[i]!.type, at) }));
    const arms = `SELECT * FROM (${left.sql}) ${word} ${all ? 'ALL' : 'DISTINCT'} SELECT * FROM (${right.sql})`;
    const byName = (node: unknown): Expr => {
      const i = wrapped(node, 'A_Const')?.['ival'] !== undefined ? Number((wrapped(node, 'A_Const')!['ival'] as Json)['ival'] ?? 0) - 1 : columns.findIndex((c) => stringList(wrapped(node, 'ColumnRef')?.['fields']).join('.') === c.name);
      return columns[i] ? expr(chIdent(columns[i]!.name), columns[i]!.type) : unsupported(`ORDER BY other than an output column of ${word}`, at);
    };
    const tail = this.orderAndLimit(body, byName, at);
    return { sql: tail === '' && head === '' ? arms : `${head}SELECT * FROM (${arms})${tail}`, columns };
  }

  private orderAndLimit(body: Json, key: (node: unknown) => Expr, at: string): string {
    let sql = '';
    const order = (body['sortClause'] as unknown[] | undefined) ?? [];
    if (order.length > 0) sql += ` ORDER BY ${order.map((s) => wrapped(s, 'SortBy')!).map((s) => sortKey(s, key(s['node']), this.locator.at(s['location']))).join(', ')}`;
    const count = limitValue(body['limitCount'], at);
    const offset = limitValue(body['limitOffset'], at);
    if (count !== undefined) sql += ` LIMIT ${count}${body['limitOption'] === 'LIMIT_OPTION_WITH_TIES' ? ' WITH TIES' : ''}`;
    else if (offset !== undefined) sql += ' LIMIT 18446744073709551615';
    if (offset !== undefined) sql += ` OFFSET ${offset}`;
    return sql;
  }

  /** SELECT items: `*` and `t.*` expanded, each output named as PostgreSQL names it. */
  private targets(list: unknown[], scope: Scope, e: ExprEmitter, at: string): Target[] {
    const out: Target[] = [];
    for (const item of list) {
      const res = wrapped(item, 'ResTarget')!;
      const ref = wrapped(res['val'], 'ColumnRef');
      const fields = ref?.['fields'] as unknown[] | undefined;
      if (fields !== undefined && nodeType(fields.at(-1)) === 'A_Star') {
        const qualifier = stringList(fields.slice(0, -1));
        const rels = qualifier.length === 0 ? scope.rels : scope.rels.filter((r) => r.name === qualifier[0]);
        if (rels.length === 0) reject(`missing FROM-clause entry for ${qualifier.length === 0 ? 'SELECT *' : `table "${qualifier.join('.')}"`}${this.locator.at(ref!['location'])}`);
        // `*` over a USING join: the merged columns first, once, as PostgreSQL lists them.
        const merged = qualifier.length === 0 ? scope.merged : new Map<string, Expr>();
        for (const [name, value] of merged) out.push({ name, value });
        for (const r of rels) for (const c of r.columns) if (!merged.has(c.name)) out.push({ name: c.name, value: expr(`${chIdent(r.name)}.${chIdent(c.name)}`, c.type) });
        continue;
      }
      const value = e.value(res['val']);
      out.push({ name: outputName(res), value: value.type === 'unknown' ? e.as(value, 'text', at) : value });
    }
    return out;
  }

  private groupKey(node: unknown, targets: readonly Target[], scope: Scope, e: ExprEmitter): string {
    const at = this.locator.at((wrapped(node, nodeType(node) ?? '') ?? {})['location']);
    if (nodeType(node) === 'GroupingSet') return unsupported('GROUPING SETS, ROLLUP and CUBE', at);
    const position = wrapped(node, 'A_Const')?.['ival'];
    if (position !== undefined) return targetAt(targets, Number((position as Json)['ival'] ?? 0), at).value.sql;
    // GROUP BY reads an input column before an output name.
    const fields = stringList(wrapped(node, 'ColumnRef')?.['fields']);
    if (fields.length === 1 && !scope.rels.some((r) => r.columns.some((c) => c.name === fields[0]))) {
      const named = targets.find((t) => t.name === fields[0]);
      if (named) return named.value.sql;
    }
    return e.value(node).sql;
  }

  /**
   * The output columns of a stored (trusted) SELECT, typed where this printer can: its FROM items
   * that are log tables or earlier CTEs, each SELECT item printed or, failing that, `other`.
   */
  targetTypes(body: Json): Column[] {
    if (body['op'] !== undefined && body['op'] !== 'SETOP_NONE') return this.targetTypes(body['larg'] as Json);
    const scope = new Scope(this, new Map());
    for (const item of (body['fromClause'] as unknown[] | undefined) ?? []) {
      try {
        this.fromItem(item, scope);
      } catch {
        // a FROM item of the stored statement's own (a rollup table): its columns stay unknown
      }
    }
    const e = new ExprEmitter(scope);
    return ((body['targetList'] as unknown[] | undefined) ?? []).map((item) => {
      const res = wrapped(item, 'ResTarget')!;
      let type: PgType = 'other';
      try {
        type = e.value(res['val']).type;
      } catch {
        // computed with what a caller cannot write: passed along, not computed with
      }
      return { name: outputName(res), type: type === 'unknown' ? 'text' : type };
    });
  }

  /** A FROM item: a stored or caller CTE, a subquery, or a join of them; printed `… AS name`. */
  fromItem(item: unknown, scope: Scope): string {
    const type = nodeType(item);
    const body = type ? ((item as Json)[type] as Json) : {};
    const at = this.locator.at(body['location']);
    const alias = body['alias'] as Json | undefined;
    switch (type) {
      case 'RangeVar': {
        const name = String(body['relname']);
        const own = scope.cte(name);
        const stored = own === undefined ? this.stored.get(name) : undefined;
        if (own === undefined && stored === undefined) return reject(`relation "${name}" does not exist${at}`);
        if (stored !== undefined) this.storedRead.add(name);
        const kinds = own === undefined && this.withKinds.has(name) && stringList(alias?.['colnames']).length === 0;
        return this.relation(own?.printed ?? name, own?.columns ?? stored!, String(alias?.['aliasname'] ?? name), stringList(alias?.['colnames']), scope, at, undefined, kinds);
      }
      case 'RangeSubselect': {
        if (body['lateral']) return unsupported('LATERAL', at);
        if (alias === undefined) return unsupported('a subquery in FROM without an alias', at);
        const printed = this.select(wrapped(body['subquery'], 'SelectStmt')!, scope, false);
        return this.relation(`(${printed.sql})`, printed.columns, String(alias['aliasname']), stringList(alias['colnames']), scope, at, printed.columns);
      }
      case 'JoinExpr': {
        if (body['isNatural'] || body['join_using_alias'] !== undefined) return unsupported('NATURAL joins and a USING alias (write ON or USING)', at);
        if (alias !== undefined) return unsupported('an alias on a join', at);
        const before = scope.rels.length;
        const left = this.fromItem(body['larg'], scope);
        const middle = scope.rels.length;
        const right = this.fromItem(body['rarg'], scope);
        const kind = { JOIN_INNER: 'INNER', JOIN_LEFT: 'LEFT', JOIN_RIGHT: 'RIGHT', JOIN_FULL: 'FULL' }[String(body['jointype'])] ?? unsupported(String(body['jointype']), at);
        const using = stringList(body['usingClause']);
        if (using.length > 0) {
          const side = (rels: readonly Rel[], name: string): Expr => {
            const hits = rels.flatMap((r) => r.columns.filter((c) => c.name === name).map((c) => expr(`${chIdent(r.name)}.${chIdent(c.name)}`, c.type)));
            return hits.length === 1 ? hits[0]! : reject(`column "${name}" specified in USING clause does not exist or is ambiguous${at}`);
          };
          const pairs = using.map((name) => [name, side(scope.rels.slice(before, middle), name), side(scope.rels.slice(middle), name)] as const);
          for (const [name, l, r] of pairs) {
            const value = kind === 'FULL' ? expr(`coalesce(${l.sql}, ${r.sql})`, l.type) : kind === 'RIGHT' ? r : l;
            scope.merged.set(name, value);
          }
          return `${left} ${kind} JOIN ${right} ON ${pairs.map(([, l, r]) => `${l.sql} = ${r.sql}`).join(' AND ')}`;
        }
        if (body['quals'] === undefined) return `${left} CROSS JOIN ${right}`;
        return `${left} ${kind} JOIN ${right} ON ${new ExprEmitter(scope).condition(body['quals'])}`;
      }
      case 'RangeFunction': {
        // unnest(array) AS x: a row per element (arrayJoin), of an array that reads no column.
        const items = (wrapped((body['functions'] as unknown[] | undefined)?.[0], 'List')?.['items'] as unknown[] | undefined) ?? [];
        const fn = wrapped(items[0], 'FuncCall');
        const args = (fn?.['args'] as unknown[] | undefined) ?? [];
        if (fn === undefined || stringList(fn['funcname']).at(-1) !== 'unnest' || args.length !== 1 || (body['functions'] as unknown[]).length !== 1 || body['ordinality'] === true) return unsupported('a function in FROM other than unnest of one array', at);
        if (JSON.stringify(args[0]).includes('"ColumnRef"')) return unsupported('unnest of an array that reads a column', at);
        const arr = new ExprEmitter(scope).value(args[0]);
        const element = elementOf(arr.type) ?? unsupported(`unnest of ${arr.type}`, at);
        const name = String(alias?.['aliasname'] ?? 'unnest');
        const column = stringList(alias?.['colnames'])[0] ?? name;
        return this.relation(`(SELECT arrayJoin(${arr.sql}) AS ${chIdent(column)})`, [{ name: column, type: element }], name, [], scope, at);
      }
      default: return unsupported(type ?? 'this FROM item', at);
    }
  }

  /** `source AS name`, with PostgreSQL's column aliases applied; the name joins the scope. */
  private relation(source: string, columns: readonly Column[], name: string, colnames: string[], scope: Scope, at: string, inner: readonly Column[] = columns, kinds = false): string {
    if (scope.rels.some((r) => r.name === name)) reject(`table name "${name}" specified more than once${at}`);
    const cols = renamed(columns, colnames, at);
    scope.rels.push({ name, columns: cols, ...(kinds ? { kinds } : {}) });
    if (colnames.length === 0) return `${source} AS ${chIdent(name)}`;
    return `(SELECT ${cols.map((c, i) => `${chIdent(inner[i]!.name)} AS ${chIdent(c.name)}`).join(', ')} FROM ${source}) AS ${chIdent(name)}`;
  }
}

/** Array element types whose JSON (toJSONString) is what PostgreSQL's array answers. */
const JSON_ELEMENTS: ReadonlySet<PgType> = new Set(['int', 'numeric', 'text', 'bool']);

interface Target {
  readonly name: string;
  readonly value: Expr;
}

/** PostgreSQL's answer keeps, for a repeated name, the first position and the last value (a row object). */
function lastOfEachName(targets: readonly Target[]): Target[] {
  const out = new Map<string, Target>();
  for (const t of targets) out.set(t.name, out.has(t.name) ? { name: t.name, value: t.value } : t);
  return [...out.values()];
}

function uniqueNames(targets: readonly Target[], at: string): Target[] {
  const seen = new Set<string>();
  for (const t of targets) {
    if (seen.has(t.name)) return unsupported(`two columns named "${t.name}" in a subquery`, at);
    seen.add(t.name);
  }
  return [...targets];
}

function renamed(columns: readonly Column[], names: readonly string[], at: string): Column[] {
  if (names.length > columns.length) reject(`more column aliases (${names.length}) than columns (${columns.length})${at}`);
  return columns.map((c, i) => ({ name: names[i] ?? c.name, type: c.type }));
}

/** ORDER BY a position or an output name (PostgreSQL reads an output name first there). */
function outputRef(node: unknown, targets: readonly Target[], scope: Scope): Expr | undefined {
  const position = wrapped(node, 'A_Const')?.['ival'];
  if (position !== undefined) return targetAt(targets, Number((position as Json)['ival'] ?? 0), scope.at((wrapped(node, 'A_Const') ?? {})['location'])).value;
  const fields = stringList(wrapped(node, 'ColumnRef')?.['fields']);
  if (fields.length !== 1) return undefined;
  const named = targets.filter((t) => t.name === fields[0]);
  return named.length === 1 ? named[0]!.value : undefined;
}

function targetAt(targets: readonly Target[], n: number, at: string): Target {
  return targets[n - 1] ?? reject(`position ${n} is not in select list${at}`);
}

function limitValue(node: unknown, at: string): string | undefined {
  if (node === undefined) return undefined;
  const c = wrapped(node, 'A_Const');
  if (c?.['isnull']) return undefined;
  if (c && 'ival' in c) {
    const n = Number((c['ival'] as Json)['ival'] ?? 0);
    if (n < 0) reject(`LIMIT and OFFSET must not be negative${at}`);
    return String(n);
  }
  return unsupported('LIMIT or OFFSET that is not an integer constant', at);
}

function unionType(a: PgType, b: PgType, at: string): PgType {
  if (a === b || b === 'null') return a;
  if (a === 'null') return b;
  if ((a === 'int' && b === 'numeric') || (a === 'numeric' && b === 'int')) return 'numeric';
  return unsupported(`combining ${a} and ${b} columns`, at);
}

export type { Scope };
