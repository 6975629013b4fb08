/**
 * BigQuery-dialect caller SQL → PostgreSQL, on the parse tree (docs/logflare-compat.md). The pre-pass
 * (bigquery-lexer.ts) makes the text parseable; this file rewrites the tree:
 * - `UNNEST(metadata) AS m`, `UNNEST(m.request) AS r` (CROSS, comma, or LEFT … ON TRUE joins) leave
 *   the FROM clause; `r.path` becomes a JSON path on the CTE's `metadata` column, read as jsonb where
 *   it is selected, grouped or ordered (keeps the stored JSON type), as text where compared with text
 *   or passed to a function, as numeric where compared with a number or aggregated;
 * - a name a SELECT item is known by, in GROUP BY, means that item (BigQuery's rule);
 * - BigQuery functions and types become PostgreSQL ones (functions.ts).
 * The result is deparsed and then validated by the unchanged sandbox like any caller SQL: nothing
 * here is trusted to keep a caller inside the stored CTEs.
 */
import { deparseSync } from 'pgsql-deparser';
import { HttpError } from '../../shared/errors.ts';
import { checkTopLevel, parseCaller, preflight } from '../sandbox/caller-sql.ts';
import { nodeType, reject, wrapped, type Json, type SqlParser } from '../sandbox/sql-parser.ts';
import { prePass, type PrePassed } from './bigquery-lexer.ts';
import { rewriteCall, rewriteCast } from './functions.ts';
import type { Rewriter } from './rewriter.ts';
import { arrayCast, rewriteSubscript } from './array-subscripts.ts';
import { fillAliases, markAliases, takeQualify, wrapQualified } from './qualify.ts';
import { readPath, Scope, type Binding, type Ctx } from './record-scope.ts';
import { and, call, caseWhen, coalesce, column, columnFields, constKind, locationOf, names, nullConst, op, replaceNodes, text, cast, int, type Node } from './nodes.ts';

/** Positions in the caller's text for parse-tree locations (UTF-8 bytes of the pre-passed text). */
class Positions {
  private bytes: Buffer | undefined;
  constructor(private readonly passed: PrePassed) {}

  /** " at character N" (1-based, in what the caller sent) for a byte location of the pre-passed text. */
  at(location: unknown): string {
    if (typeof location !== 'number' || location < 0) return '';
    this.bytes ??= Buffer.from(this.passed.text, 'utf8');
    return this.atCursor(this.bytes.subarray(0, location).toString('utf8').length);
  }

  /** The same for a 0-based character index of the pre-passed text (a syntax error's cursor). */
  atCursor(index: number | undefined): string {
    if (index === undefined || index < 0) return '';
    const origin = this.passed.origin[Math.min(index, this.passed.origin.length - 1)];
    return origin === undefined ? '' : ` at character ${origin + 1}`;
  }
}

/**
 * Translate one BigQuery statement; `tables` are the stored CTE names. Throws `invalid_sql` naming
 * the construct and its position when it cannot.
 */
export function translateBigQuery(parser: SqlParser, sql: string, tables: readonly string[]): string {
  if (typeof sql !== 'string' || sql.trim() === '') reject('sql is empty');
  const passed = prePass(sql);
  const positions = new Positions(passed);
  preflight(parser, passed.text, positions);
  const stmts = parseCaller(parser, passed.text, positions);
  if (stmts.length !== 1) reject(`sql must be exactly one statement; found ${stmts.length}`);
  const select = checkTopLevel(stmts[0]!.stmt);
  try {
    new Translator(positions, parser).select(select, new Scope(null, new Set(tables)));
  } catch (err) {
    if (err instanceof HttpError) throw err;
    // A tree shape the rewrite did not foresee: refused, never a 500 (the fuzz suite looks for these).
    return reject('sql could not be translated');
  }
  try {
    return deparseSync({ version: 180004, stmts: [{ stmt: { SelectStmt: select } }] } as never);
  } catch (err) {
    // A node the deparser does not know: refused by name, never a 500.
    const type = /node type: (\w+)/.exec(err instanceof Error ? err.message : '')?.[1];
    return reject(`sql uses a construct that cannot be translated${type ? ` (${type})` : ''}`);
  }
}

class Translator {
  constructor(
    private readonly positions: Positions,
    private readonly parser: SqlParser,
  ) {}

  private fail(what: string, node: unknown): never {
    return reject(`${what}${this.positions.at(locationOf(node))}`);
  }

  /** Rewrite a SELECT body in place. */
  select(body: Json, outer: Scope): void {
    let tables = outer.tables;
    const withClause = body['withClause'] as Json | undefined;
    if (withClause) {
      const ctes = (withClause['ctes'] as unknown[]) ?? [];
      const names = ctes.map((c) => String(wrapped(c, 'CommonTableExpr')?.['ctename'] ?? ''));
      tables = new Set([...tables, ...names]);
      for (const cte of ctes) {
        const query = wrapped(wrapped(cte, 'CommonTableExpr')?.['ctequery'], 'SelectStmt');
        if (query) this.select(query, new Scope(null, tables));
      }
    }
    if (body['op'] !== undefined && body['op'] !== 'SETOP_NONE') {
      for (const side of ['larg', 'rarg']) this.select(body[side] as Json, new Scope(outer, tables));
      return;
    }
    const scope = new Scope(outer, tables);
    const present: Node[] = [];
    const from = (body['fromClause'] as unknown[] | undefined) ?? [];
    const kept: Node[] = [];
    for (const item of from) {
      const out = this.fromItem(item as Node, scope, present, false);
      if (out) kept.push(out);
    }
    if (from.length > 0) body['fromClause'] = kept;
    if (from.length > 0 && kept.length === 0) this.fail('FROM must name a table before UNNEST', from[0]);

    const qualify = takeQualify(body);
    const targets = (body['targetList'] as Node[] | undefined) ?? [];
    const outputs = targets.map((t) => this.target(t, scope));
    if (body['whereClause'] !== undefined || present.length > 0) {
      const where = body['whereClause'] === undefined ? [] : [this.expr(body['whereClause'] as Node, 'bool', scope)];
      body['whereClause'] = and(...where, ...present);
    }
    const group = body['groupClause'] as Node[] | undefined;
    if (group) {
      body['groupClause'] = group.map((g) => {
        const fields = columnFields(g);
        const index = fields?.length === 1 ? outputs.indexOf(fields[0]!) : -1;
        return index >= 0 ? int(index + 1) : this.expr(g, 'json', scope);
      });
    }
    if (body['havingClause'] !== undefined) body['havingClause'] = this.expr(body['havingClause'] as Node, 'bool', scope);
    const sort = body['sortClause'] as Node[] | undefined;
    if (sort) for (const s of sort) this.sortBy(s, scope, outputs);
    for (const key of ['distinctClause', 'windowClause', 'limitCount', 'limitOffset']) {
      if (body[key] !== undefined) body[key] = this.expr(body[key] as Node, 'json', scope);
    }
    if (qualify !== undefined) {
      // Aliases in the condition mean the (translated) SELECT items they name: BigQuery's rule.
      markAliases(qualify, outputs);
      const items = targets.map((t) => wrapped(t, 'ResTarget')?.['val'] as Node);
      wrapQualified(body, fillAliases(this.expr(qualify, 'bool', scope), items), (what, at) => this.fail(what, at));
    }
  }

  private sortBy(s: Node, scope: Scope, outputs: readonly (string | undefined)[]): void {
    const sortBy = wrapped(s, 'SortBy');
    if (!sortBy) return;
    const fields = columnFields(sortBy['node']);
    // A bare name of a SELECT item: PostgreSQL binds ORDER BY names to output columns first, too.
    if (fields?.length === 1 && outputs.includes(fields[0])) return;
    sortBy['node'] = this.expr(sortBy['node'] as Node, 'json', scope);
  }

  /** Rewrite one SELECT item; returns the name it is known by. */
  private target(t: Node, scope: Scope): string | undefined {
    const res = wrapped(t, 'ResTarget');
    if (!res) return undefined;
    const val = res['val'] as Node;
    const fields = columnFields(val);
    res['val'] = this.expr(val, 'json', scope);
    if (typeof res['name'] === 'string') return res['name'];
    if (fields === undefined) return undefined;
    const last = fields[fields.length - 1]!;
    // A rewritten name (a JSON path) keeps the name it was selected by (`request.method` → method).
    if (res['val'] !== val) res['name'] = last;
    return last;
  }

  /** One FROM item: UNNESTs of JSON records are recorded in scope and removed (null). */
  private fromItem(item: Node, scope: Scope, present: Node[], outerJoin: boolean): Node | null {
    const type = nodeType(item);
    const body = type ? (item[type] as Json) : {};
    if (type === 'RangeVar') {
      const name = String(body['relname']);
      const alias = String((body['alias'] as Json | undefined)?.['aliasname'] ?? name);
      if (body['schemaname'] === undefined && !scope.tables.has(name)) {
        this.fail(`table "${name}" is not available here; sql reads ${[...scope.tables].join(', ')}`, item);
      }
      scope.relations.set(alias, 'stored');
      return item;
    }
    if (type === 'RangeFunction') {
      const binding = this.unnestBinding(body, scope);
      const alias = (body['alias'] as Json | undefined)?.['aliasname'];
      if (binding) {
        if (typeof alias !== 'string') this.fail('UNNEST of a record needs an alias (UNNEST(metadata) AS m)', item);
        scope.unnests.set(alias, binding);
        if (!outerJoin && binding.path.length > 0) {
          present.push(op('=', call('jsonb_typeof', [readPath(binding, 'json')]), text('object')));
        }
        return null;
      }
      body['functions'] = this.expr(body['functions'] as Node, 'text', scope);
      if (typeof alias === 'string') scope.relations.set(alias, 'other');
      return item;
    }
    if (type === 'RangeSubselect') {
      const sub = wrapped(body['subquery'], 'SelectStmt');
      if (sub) this.select(sub, scope);
      const alias = (body['alias'] as Json | undefined)?.['aliasname'];
      if (typeof alias === 'string') scope.relations.set(alias, 'other');
      return item;
    }
    if (type === 'JoinExpr') {
      const left = body['jointype'] === 'JOIN_LEFT';
      const larg = this.fromItem(body['larg'] as Node, scope, present, outerJoin);
      if (larg === null) this.fail('FROM must name a table before UNNEST', body['larg']);
      const quals = body['quals'] as Node | undefined;
      const trueQuals = quals === undefined || constKind(quals) === 'bool';
      const rarg = this.fromItem(body['rarg'] as Node, scope, present, outerJoin || left);
      if (rarg === null) {
        if (body['jointype'] !== 'JOIN_INNER' && !left) this.fail('only CROSS, INNER and LEFT joins of UNNEST are supported', item);
        if (!trueQuals) {
          if (left) this.fail('LEFT JOIN UNNEST(…) supports only ON TRUE', quals);
          present.push(this.expr(quals!, 'bool', scope));
        }
        return larg;
      }
      body['larg'] = larg;
      body['rarg'] = rarg;
      if (quals !== undefined) body['quals'] = this.expr(quals, 'bool', scope);
      return item;
    }
    return item;
  }

  /** `unnest(<json record reference>)` → its binding; undefined for any other function. */
  private unnestBinding(body: Json, scope: Scope): Binding | undefined {
    const fns = body['functions'] as unknown[];
    const items = wrapped(fns?.[0], 'List')?.['items'] as unknown[] | undefined;
    const fn = wrapped(items?.[0], 'FuncCall');
    if (fns.length !== 1 || !fn || names(fn['funcname']).join('.') !== 'unnest') return undefined;
    const args = fn['args'] as unknown[] | undefined;
    const fields = args?.length === 1 ? columnFields(args[0]) : undefined;
    if (fields === undefined) return undefined;
    const resolved = scope.resolve(fields);
    if (resolved) return resolved;
    // unnest(metadata) / unnest(t.metadata): the column itself is the record.
    if (fields.length === 1) return { base: column(fields[0]!), path: [] };
    if (fields.length === 2 && scope.relation(fields[0]!)) return { base: column(fields[0]!, fields[1]!), path: [] };
    return undefined;
  }

  /** A column reference rewritten to a JSON path where it names a field of an unnested record. */
  private columnRef(node: Node, ctx: Ctx, scope: Scope): Node {
    const fields = columnFields(node);
    const reads = fields === undefined ? undefined : scope.reads(fields);
    if (reads === undefined) return node;
    const nodes = reads.map((b) => readPath(b, ctx));
    return nodes.length === 1 ? nodes[0]! : coalesce(nodes);
  }

  /** Whether a node is (or will become) a JSON path read. */
  private isPath(node: Node, scope: Scope): boolean {
    const fields = columnFields(node);
    return fields !== undefined && scope.reads(fields) !== undefined;
  }

  /** How JSON paths among sibling operands are read: like the constant beside them, else as text. */
  private siblingCtx(nodes: readonly Node[], scope: Scope): Ctx {
    let ctx: Ctx | undefined;
    for (const n of nodes) {
      const kind = constKind(n);
      if (kind === 'number') return 'numeric';
      if (kind === 'bool') ctx = 'bool';
      else if (kind === 'string' || (kind === undefined && !this.isPath(n, scope))) ctx ??= 'text';
    }
    return ctx ?? (nodes.every((n) => this.isPath(n, scope)) ? 'json' : 'text');
  }

  /** Rewrite an expression; `ctx` says how a JSON path directly here is read. */
  expr(node: Node, ctx: Ctx, scope: Scope): Node {
    if (Array.isArray(node)) return (node as unknown as Node[]).map((n) => this.expr(n, ctx, scope)) as unknown as Node;
    if (node === null || typeof node !== 'object') return node;
    const type = nodeType(node);
    if (type === undefined) return this.children(node, 'text', scope);
    const body = node[type] as Json;
    if (type.startsWith('Json')) this.fail('SQL/JSON functions (JSON_VALUE, JSON_QUERY, JSON_EXISTS, …) are not supported', node);
    switch (type) {
      case 'ColumnRef':
        return this.columnRef(node, ctx, scope);
      case 'A_Expr':
        return this.aExpr(body, node, scope);
      case 'BoolExpr':
        body['args'] = this.expr(body['args'] as Node, 'bool', scope);
        return node;
      case 'NullTest':
        body['arg'] = this.expr(body['arg'] as Node, 'text', scope);
        return node;
      case 'BooleanTest':
        body['arg'] = this.expr(body['arg'] as Node, 'bool', scope);
        return node;
      case 'FuncCall':
        return rewriteCall(body, node, this.rewriter(scope));
      case 'A_Indirection':
        return rewriteSubscript(body, node, this.rewriter(scope)) ?? (this.children(body, 'text', scope), node);
      case 'TypeCast':
        return rewriteCast(body, node, this.rewriter(scope));
      case 'CaseExpr': {
        const results = [...((body['args'] as Node[]) ?? []).map((w) => wrapped(w, 'CaseWhen')?.['result'] as Node), body['defresult'] as Node].filter(Boolean);
        const resultCtx = ctx === 'numeric' ? 'numeric' : this.siblingCtx(results, scope) === 'numeric' ? 'numeric' : 'text';
        const testCtx = body['arg'] === undefined ? 'bool' : 'text';
        if (body['arg'] !== undefined) body['arg'] = this.expr(body['arg'] as Node, 'text', scope);
        for (const w of (body['args'] as Node[]) ?? []) {
          const when = wrapped(w, 'CaseWhen')!;
          when['expr'] = this.expr(when['expr'] as Node, testCtx, scope);
          when['result'] = this.expr(when['result'] as Node, resultCtx, scope);
        }
        if (body['defresult'] !== undefined) body['defresult'] = this.expr(body['defresult'] as Node, resultCtx, scope);
        return node;
      }
      case 'CoalesceExpr':
      case 'MinMaxExpr': {
        const args = body['args'] as Node[];
        body['args'] = this.expr(args as unknown as Node, ctx === 'numeric' ? 'numeric' : this.siblingCtx(args, scope) === 'json' ? 'text' : this.siblingCtx(args, scope), scope);
        // BigQuery's GREATEST and LEAST are NULL when any argument is; PostgreSQL's skip NULLs.
        if (type === 'MinMaxExpr') {
          const tests = (body['args'] as Node[]).map((a): Node => ({ NullTest: { arg: structuredClone(a), nulltesttype: 'IS_NULL' } }));
          return caseWhen([[tests.length === 1 ? tests[0]! : { BoolExpr: { boolop: 'OR_EXPR', args: tests } }, nullConst()]], node);
        }
        return node;
      }
      case 'A_ArrayExpr': {
        this.children(body, ctx === 'json' ? 'text' : ctx, scope);
        // An array of NULLs only is BigQuery's ARRAY<INT64>; to PostgreSQL it would be text[].
        const elements = (body['elements'] as Node[] | undefined) ?? [];
        return elements.length > 0 && elements.every((e) => constKind(e) === 'null') ? arrayCast(node, 'int8') : node;
      }
      case 'SubLink': {
        if (body['testexpr'] !== undefined) body['testexpr'] = this.expr(body['testexpr'] as Node, 'text', scope);
        const sub = wrapped(body['subselect'], 'SelectStmt');
        if (sub) this.select(sub, scope);
        return node;
      }
      case 'SelectStmt':
        this.select(body, scope);
        return node;
      case 'SortBy':
        body['node'] = this.expr(body['node'] as Node, 'json', scope);
        return node;
      case 'List':
        // IN (…) and BETWEEN … AND … lists: read like the operand they are compared with.
        if (body['items'] !== undefined) body['items'] = this.expr(body['items'] as Node, ctx, scope);
        return node;
      case 'WindowDef':
        for (const key of ['partitionClause', 'orderClause']) if (body[key] !== undefined) body[key] = this.expr(body[key] as Node, 'json', scope);
        return node;
      default:
        this.children(body, 'text', scope);
        return node;
    }
  }

  /** What the function and cast rewrites (functions.ts) need from the walk, in this scope. */
  private rewriter(scope: Scope): Rewriter {
    return {
      arg: (n, c) => this.expr(n, c, scope),
      siblingCtx: (nodes) => this.siblingCtx(nodes, scope),
      fail: (what, at) => this.fail(what, at),
      template: (expr, holes) => {
        const select = wrapped(this.parser.parse(`select ${expr}`)[0]!.stmt, 'SelectStmt')!;
        return fillHoles(wrapped((select['targetList'] as Node[])[0], 'ResTarget')!['val'] as Node, holes);
      },
    };
  }

  private children(body: Json, ctx: Ctx, scope: Scope): Node {
    for (const [key, value] of Object.entries(body)) {
      if (value !== null && typeof value === 'object') body[key] = this.expr(value as Node, ctx, scope);
    }
    return body;
  }

  private aExpr(body: Json, node: Node, scope: Scope): Node {
    const kind = String(body['kind']);
    const name = names(body['name']).pop() ?? '';
    const l = body['lexpr'] as Node | undefined;
    const r = body['rexpr'] as Node | undefined;
    const list = Array.isArray(r) ? (r as Node[]) : wrapped(r, 'List') ? ((wrapped(r, 'List')!['items'] as Node[]) ?? []) : undefined;
    const operands = [l, ...(list ?? (r ? [r] : []))].filter((n): n is Node => n !== undefined);
    let ctx: Ctx;
    if (kind === 'AEXPR_LIKE' || kind === 'AEXPR_ILIKE' || kind === 'AEXPR_SIMILAR') ctx = 'text';
    else if (kind === 'AEXPR_OP' && ['+', '-', '*', '/', '%'].includes(name)) ctx = 'numeric';
    else if (kind === 'AEXPR_OP' && !['=', '<>', '!=', '<', '>', '<=', '>='].includes(name)) ctx = ['->', '->>', '#>', '#>>', '@>', '<@', '?', '?|', '?&'].includes(name) ? 'json' : 'text';
    else ctx = this.siblingCtx(operands, scope);
    if (l !== undefined) body['lexpr'] = this.expr(l, ctx, scope);
    if (r !== undefined) body['rexpr'] = this.expr(r, ctx, scope);
    // BigQuery's `/` is never integer division: 7 / 2 = 3.5.
    if (kind === 'AEXPR_OP' && name === '/' && body['lexpr'] !== undefined) body['lexpr'] = cast(body['lexpr'] as Node, 'numeric');
    // BigQuery's `^` is bitwise XOR, PostgreSQL's `#`; PostgreSQL's `^` is a power.
    if (kind === 'AEXPR_OP' && name === '^') body['name'] = [{ String: { sval: '#' } }];
    return node;
  }
}

/** A parsed template with each one-part column reference named in `holes` replaced by its node. */
function fillHoles(node: Node, holes: Readonly<Record<string, Node>>): Node {
  return replaceNodes(node, (n) => {
    const fields = columnFields(n);
    const hole = fields?.length === 1 ? holes[fields[0]!] : undefined;
    // A copy per use: a hole may appear more than once, and each place is its own node.
    return hole === undefined ? undefined : structuredClone(hole);
  });
}
