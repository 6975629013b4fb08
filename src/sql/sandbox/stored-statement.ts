/**
 * Analysis of a stored statement that allows caller SQL, done once per stored query at start-up:
 * where its WITH clause ends, which CTEs it defines, which `$n` only its final SELECT uses.
 * Stored SQL is trusted (it ships with the service); a problem here is a definition error, not a 400.
 */
import type { ClickHouseSandbox } from '../clickhouse/compose-clickhouse.ts';
import { cteNamesOf, wrapped, type Json, type SqlParser, type Statements, type Token } from './sql-parser.ts';

/** What composing caller SQL needs from a stored statement. */
export interface SandboxTemplate {
  /** The parser, so composing needs no other handle. */
  readonly parser: SqlParser;
  /** The stored text from its start up to (not including) the final SELECT: `with a as (…), b as (…)`. */
  readonly withText: string;
  /** Top-level CTE names, in order, exactly as PostgreSQL folds them. */
  readonly cteNames: readonly string[];
  /** `$n` used only by the dropped final SELECT; still referenced so the bind count matches. */
  readonly orphanParams: readonly number[];
  /** On the ClickHouse engine: caller sql is printed for it (clickhouse/), with these stored CTEs. */
  readonly clickhouse?: ClickHouseSandbox;
}

/** Analyse a stored (bound, `$n`) statement; throws a plain Error saying why it cannot be sandboxed. */
export function prepareSandbox(parser: SqlParser, sql: string): SandboxTemplate {
  const fail = (why: string): never => {
    throw new Error(`stored statement cannot be sandboxed: ${why}`);
  };
  const parse = (text: string): Statements => {
    try {
      return parser.parse(text);
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error));
    }
  };
  const stmts = parse(sql);
  if (stmts.length !== 1) fail(`expected one statement, found ${stmts.length}`);
  const select = wrapped(stmts[0]?.stmt, 'SelectStmt');
  const withClause = select?.['withClause'] as Json | undefined;
  if (!select || !withClause) return fail('it must be a SELECT that starts with WITH');
  const ctes = (withClause['ctes'] as unknown[]).map((c) => wrapped(c, 'CommonTableExpr') ?? fail('malformed WITH'));
  const cteNames = ctes.map((c) => String(c['ctename']));

  const tokens = parser.codeTokens(sql);
  if (tokens[0]?.text.toLowerCase() !== 'with') fail('it must start with WITH');
  const finalStart = finalSelectStart(tokens, Number(ctes[ctes.length - 1]?.['location'] ?? 0));
  if (finalStart === undefined) return fail('could not find the final SELECT after the WITH clause');
  const withText = Buffer.from(sql, 'utf8').subarray(0, finalStart).toString('utf8').trimEnd();

  // Prove the cut: the WITH text followed by a trivial SELECT must parse to the same CTEs.
  const check = wrapped(parse(`${withText}\nselect 1`)[0]?.stmt, 'SelectStmt');
  if (JSON.stringify(cteNamesOf(check?.['withClause'] as Json | undefined)) !== JSON.stringify(cteNames)) fail('the WITH clause could not be isolated');

  const inWith = paramNumbers(withClause);
  const orphanParams = [...paramNumbers(select)].filter((n) => !inWith.has(n)).sort((a, b) => a - b);
  return Object.freeze({ parser, withText, cteNames: Object.freeze(cteNames), orphanParams: Object.freeze(orphanParams) });
}

/**
 * Byte offset where the final SELECT begins: after the last CTE's `AS [NOT MATERIALIZED] (body)`
 * and its optional SEARCH/CYCLE clauses, the first depth-0 SELECT, VALUES, TABLE or "(".
 */
function finalSelectStart(tokens: readonly Token[], lastCteLocation: number): number | undefined {
  let depth = 0;
  let seenAs = false;
  let bodyClosed = false;
  for (const token of tokens) {
    if (token.start < lastCteLocation) continue;
    const text = token.text.toLowerCase();
    const keyword = token.keywordKind !== 0;
    if (depth === 0 && bodyClosed && (text === '(' || (keyword && (text === 'select' || text === 'values' || text === 'table')))) {
      return token.start;
    }
    if (text === '(' || text === '[') depth++;
    else if (text === ')' || text === ']') {
      depth--;
      if (depth === 0 && seenAs) bodyClosed = true;
    } else if (depth === 0 && keyword && text === 'as') seenAs = true;
  }
  return undefined;
}

/** Every `$n` number under a parse-tree value. */
function paramNumbers(value: unknown, found = new Set<number>()): Set<number> {
  if (Array.isArray(value)) for (const v of value) paramNumbers(v, found);
  else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'ParamRef') found.add(Number((v as Json)['number']));
      else paramNumbers(v, found);
    }
  }
  return found;
}

/** What start-up reads off a stored statement's PostgreSQL parse tree (registry.ts). */
export interface StatementFacts {
  /**
   * The tables it reads that are not CTEs of its own: `[schema.]name` of every RangeVar whose name
   * no WITH clause anywhere in it defines (stored SQL is trusted; finer scoping is the sandbox's).
   */
  readonly tables: readonly string[];
  /**
   * The one `$n` of the top-level LIMIT and of the OFFSET, by the SQLSTATE PostgreSQL raises for a
   * negative value there (2201W, 2201X): those messages quote no value, so this is how such an
   * error names the parameter it is about.
   */
  readonly clauseParams: Readonly<Record<string, number>>;
  /** The top-level `LIMIT n` when it is a literal integer. */
  readonly literalLimit: number | undefined;
}

/** One parse of `sql` (bound, `$n`), read for its StatementFacts; throws the parser's error when it does not parse. */
export function statementFacts(parser: SqlParser, sql: string): StatementFacts {
  const tree = parser.parse(sql);
  const ctes = new Set<string>();
  const tables: { schema: string | undefined; name: string }[] = [];
  eachNode(tree, (type, body) => {
    if (type === 'CommonTableExpr' && typeof body['ctename'] === 'string') ctes.add(body['ctename']);
    if (type === 'RangeVar' && typeof body['relname'] === 'string') {
      tables.push({ schema: typeof body['schemaname'] === 'string' ? body['schemaname'] : undefined, name: body['relname'] });
    }
  });
  const read = tables.filter((t) => t.schema !== undefined || !ctes.has(t.name)).map((t) => (t.schema === undefined ? t.name : `${t.schema}.${t.name}`));

  const select = wrapped(tree[0]?.stmt, 'SelectStmt');
  const onlyParam = (clause: unknown): number | undefined => {
    const found = new Set<number>();
    eachNode(clause, (type, body) => {
      if (type === 'ParamRef' && typeof body['number'] === 'number') found.add(body['number']);
    });
    return found.size === 1 ? [...found][0] : undefined;
  };
  const clauseParams: Record<string, number> = {};
  const limit = onlyParam(select?.['limitCount']);
  const offset = onlyParam(select?.['limitOffset']);
  if (limit !== undefined) clauseParams['2201W'] = limit;
  if (offset !== undefined) clauseParams['2201X'] = offset;
  const ival = (wrapped(select?.['limitCount'], 'A_Const')?.['ival'] as Json | undefined)?.['ival'];

  return Object.freeze({
    tables: Object.freeze([...new Set(read)]),
    clauseParams: Object.freeze(clauseParams),
    literalLimit: typeof ival === 'number' ? ival : undefined,
  });
}

/** Calls `fn` with every property of every object in a parse tree, depth first (a wrapped node's type and body among them). */
function eachNode(tree: unknown, fn: (key: string, body: Json) => void): void {
  if (Array.isArray(tree)) {
    for (const item of tree) eachNode(item, fn);
    return;
  }
  if (tree === null || typeof tree !== 'object') return;
  for (const [key, child] of Object.entries(tree as Json)) {
    if (child !== null && typeof child === 'object' && !Array.isArray(child)) fn(key, child as Json);
    eachNode(child, fn);
  }
}
