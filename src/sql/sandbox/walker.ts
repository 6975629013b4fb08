/**
 * The allow-list walk over a caller's parse tree: every node, function, type and operator is
 * checked against allow-lists.ts, and table names against the CTEs in scope, scoped the way
 * PostgreSQL scopes WITH names.
 */
import {
  ALLOWED_FUNCTIONS,
  ALLOWED_NODES,
  ALLOWED_SQL_VALUE_FUNCTIONS,
  ALLOWED_TYPES,
  BARE_FIELDS,
  DENIED_NODES,
  MAX_AST_DEPTH,
} from './allow-lists.ts';
import { describeStatement, nodeType, reject, stringList, wrapped, type Json, type Locator } from './sql-parser.ts';

type Scope = ReadonlySet<string>;

/**
 * Walks the whole caller parse tree: every array element and property is visited, wrapped nodes
 * are checked against ALLOWED_NODES, and CTE names are scoped the way PostgreSQL scopes them.
 */
export class Walker {
  constructor(private readonly locator: Locator) {}

  /** Any value: wrapped node, bare struct of a known field type, list, or scalar. */
  value(value: unknown, scope: Scope, depth: number, bareType?: string): void {
    if (Array.isArray(value)) {
      for (const item of value) this.value(item, scope, depth);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const type = nodeType(value);
    if (type) this.node(type, (value as Json)[type] as Json, scope, depth + 1);
    else if (bareType) this.node(bareType, value as Json, scope, depth + 1);
    else this.children(value as Json, scope, depth + 1);
  }

  private children(body: Json, scope: Scope, depth: number, skip?: string): void {
    for (const [key, child] of Object.entries(body)) {
      if (key !== skip) this.value(child, scope, depth, BARE_FIELDS[key]);
    }
  }

  private node(type: string, body: Json, scope: Scope, depth: number): void {
    const at = this.locator.at(body['location']);
    if (depth > MAX_AST_DEPTH) reject(`sql is nested too deeply (more than ${MAX_AST_DEPTH} levels)${at}`);
    const denied = DENIED_NODES[type];
    if (denied) reject(`${denied}${at}`);
    if (type.endsWith('Stmt') && type !== 'SelectStmt') reject(`${describeStatement(type)} is not allowed${at}`);
    if (!ALLOWED_NODES.has(type)) reject(`${type} is not allowed${at}`);
    switch (type) {
      case 'SelectStmt': return this.select(body, scope, depth);
      case 'WithClause': this.ctes(body, scope, depth); return; // only reached via SelectStmt in practice
      case 'CommonTableExpr': return this.cte(body, scope, depth);
      case 'RangeVar': return this.rangeVar(body, scope, at);
      case 'FuncCall': this.funcCall(body, at); break;
      case 'TypeName': this.typeName(body, at); break;
      case 'A_Expr': this.operator(body['name'], at); break;
      case 'SortBy': this.operator(body['useOp'], at); break; // ORDER BY x USING op
      case 'SubLink': this.operator(body['operName'], at); break; // x op ANY (subquery)
      case 'SQLValueFunction':
        if (!ALLOWED_SQL_VALUE_FUNCTIONS.has(String(body['op']))) {
          reject(`${String(body['op']).replace('SVFOP_', '')} is not allowed${at}`);
        }
        break;
    }
    this.children(body, scope, depth);
  }

  /** A SELECT: its own WITH names are visible in its body (and in later or, if RECURSIVE, all CTEs). */
  select(body: Json, scope: Scope, depth: number): void {
    const into = body['intoClause'] as { rel?: { location?: number } } | undefined;
    if (into !== undefined) reject(`${DENIED_NODES['IntoClause']}${this.locator.at(into.rel?.location)}`);
    const inner = body['withClause'] ? this.ctes(body['withClause'] as Json, scope, depth) : scope;
    this.children(body, inner, depth, 'withClause');
  }

  /** Visit each CTE with the names it can see; return the scope for the statement body. */
  private ctes(withClause: Json, scope: Scope, depth: number): Scope {
    const ctes = Array.isArray(withClause['ctes']) ? withClause['ctes'] : [];
    const names = ctes.map((c) => String(wrapped(c, 'CommonTableExpr')?.['ctename'] ?? ''));
    const all = new Set([...scope, ...names]);
    let seen = new Set(scope);
    for (const [i, cte] of ctes.entries()) {
      // Non-recursive: a CTE sees only earlier siblings, and its own name means the outer relation.
      this.value(cte, withClause['recursive'] ? all : seen, depth);
      seen = new Set([...seen, names[i] ?? '']);
    }
    return all;
  }

  private cte(body: Json, scope: Scope, depth: number): void {
    const query = body['ctequery'];
    const type = nodeType(query);
    if (type !== 'SelectStmt') {
      reject(`data-modifying CTE "${String(body['ctename'])}" (${type ?? 'unknown'}) is not allowed${this.locator.at(body['location'])}`);
    }
    this.children(body, scope, depth);
  }

  private rangeVar(body: Json, scope: Scope, at: string): void {
    const name = String(body['relname']);
    if (body['schemaname'] !== undefined || body['catalogname'] !== undefined) {
      const full = [body['catalogname'], body['schemaname'], name].filter((p) => p !== undefined).join('.');
      reject(`schema-qualified table "${full}" is not allowed; read the stored CTEs (${[...scope].join(', ')})${at}`);
    }
    if (!scope.has(name)) {
      reject(`table "${name}" is not one of the stored query's CTEs or a CTE defined in sql (in scope: ${[...scope].join(', ')})${at}`);
    }
  }

  private funcCall(body: Json, at: string): void {
    const names = stringList(body['funcname']);
    const qualified = names.length === 2 && names[0] === 'pg_catalog';
    const name = names[names.length - 1] ?? '';
    if ((names.length !== 1 && !qualified) || !ALLOWED_FUNCTIONS.has(name)) {
      reject(`function ${names.join('.')}() is not allowed${at}`);
    }
  }

  private typeName(body: Json, at: string): void {
    const names = stringList(body['names']);
    const name = names[names.length - 1] ?? '';
    const qualifiedOk = names.length === 1 || (names.length === 2 && names[0] === 'pg_catalog');
    if (!qualifiedOk || !ALLOWED_TYPES.has(name) || body['setof'] || body['pct_type']) {
      reject(`type ${names.join('.')} is not allowed${at}`);
    }
  }

  /** `OPERATOR(schema.op)` could reach operators outside pg_catalog. */
  private operator(name: unknown, at: string): void {
    const names = stringList(name);
    if (names.length > 1 && !(names.length === 2 && names[0] === 'pg_catalog')) {
      reject(`operator ${names.join('.')} is not allowed${at}`);
    }
  }
}
