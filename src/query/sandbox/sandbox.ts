/**
 * Sandboxed caller SQL (DESIGN 5): a caller's single SELECT replaces the stored statement's final
 * SELECT and may read only the stored CTEs and CTEs it defines itself. Everything is decided on the
 * real PostgreSQL parse tree (libpg-query); nothing here rewrites the caller's SQL text, it is only
 * cut out of its own statement and pasted, unchanged, inside `select * from ( … ) as sandboxed`.
 *
 * Defence is layered: this allow-list walk, then the READ ONLY transaction, statement timeout and
 * fixed search_path of the engine, then max rows. Anything this file does not recognise is refused.
 */
import { loadModule, parseSync, scanSync, SqlError } from 'libpg-query';
import type { ParseResult } from 'libpg-query';
import { HttpError } from '../../errors.ts';

/** A stored statement as the registry holds it: SQL text with `@name` params, starting with WITH. */
export interface StoredStatement {
  sql: string;
}

/** What composing needs from a stored statement, computed once per statement text. */
export interface SandboxTemplate {
  /** The stored text from its start up to (not including) the final SELECT: `with a as (…), b as (…)`. */
  readonly withText: string;
  /** Top-level CTE names, in order, exactly as PostgreSQL folds them. */
  readonly cteNames: readonly string[];
  /** `$n` used only by the dropped final SELECT; still referenced so the bind count matches. */
  readonly orphanParams: readonly number[];
}

/** Caller SQL is refused above this many UTF-8 bytes, before any parsing. */
export const MAX_SQL_BYTES = 64 * 1024;
/**
 * Token budget for caller SQL. libpg-query serialises the parse tree recursively on the native stack:
 * a long operator chain (`1+1+…`, ~10k levels) overflows it, and after a few dozen such overflows the
 * WASM module is corrupted for good ("memory access out of bounds"). Measured: 3,000 tokens of the
 * worst chains still parse with 8,000 JS frames already on the stack, so nothing deep reaches it.
 */
export const MAX_SQL_TOKENS = 3000;
/** Parenthesis/bracket nesting allowed in caller SQL (checked on tokens, before parsing). */
export const MAX_PAREN_DEPTH = 100;
/**
 * Parse-tree nesting allowed when walking caller SQL (keeps our own recursion shallow). One binary
 * operator is one level, so this still admits a ~390-term `a || b || …` chain; logs.all is 20 deep.
 */
export const MAX_AST_DEPTH = 400;

/**
 * Functions a caller may call (unqualified or as `pg_catalog.name`). Pure computations only: no
 * catalog, file, network, session, sequence, lock or large-object access. Some SQL-standard syntax
 * parses to a `pg_catalog.*` call and is listed under its function name (extract, timezone for
 * AT TIME ZONE, btrim for TRIM, like_escape for LIKE … ESCAPE, …).
 */
export const ALLOWED_FUNCTIONS: ReadonlySet<string> = Object.freeze(new Set([
  // aggregates
  'count', 'sum', 'avg', 'min', 'max', 'bool_and', 'bool_or', 'every', 'bit_and', 'bit_or',
  'array_agg', 'string_agg', 'jsonb_agg', 'json_agg', 'jsonb_object_agg', 'json_object_agg',
  'percentile_cont', 'percentile_disc', 'mode', 'stddev', 'stddev_pop', 'stddev_samp',
  'variance', 'var_pop', 'var_samp', 'corr', 'covar_pop', 'covar_samp',
  'regr_avgx', 'regr_avgy', 'regr_count', 'regr_intercept', 'regr_r2', 'regr_slope',
  'regr_sxx', 'regr_sxy', 'regr_syy',
  // window
  'row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead',
  'first_value', 'last_value', 'nth_value',
  // strings
  'length', 'char_length', 'character_length', 'octet_length', 'bit_length', 'lower', 'upper',
  'initcap', 'trim', 'btrim', 'ltrim', 'rtrim', 'lpad', 'rpad', 'substr', 'substring', 'left',
  'right', 'replace', 'reverse', 'repeat', 'split_part', 'strpos', 'position', 'overlay',
  'concat', 'concat_ws', 'format', 'md5', 'starts_with', 'translate', 'to_hex', 'ascii', 'chr',
  'normalize', 'is_normalized', 'like_escape', 'similar_to_escape',
  // regular expressions
  'regexp_match', 'regexp_matches', 'regexp_replace', 'regexp_split_to_array',
  'regexp_split_to_table', 'regexp_count', 'regexp_like', 'regexp_substr', 'regexp_instr',
  // date and time
  'now', 'current_timestamp', 'clock_timestamp', 'statement_timestamp', 'transaction_timestamp',
  'date_trunc', 'date_part', 'extract', 'date_bin', 'age', 'make_interval', 'make_timestamp',
  'make_timestamptz', 'make_date', 'make_time', 'to_timestamp', 'to_char', 'to_date', 'to_number',
  'timezone', 'justify_days', 'justify_hours', 'justify_interval', 'isfinite', 'overlaps',
  // JSON
  'jsonb_build_object', 'json_build_object', 'jsonb_build_array', 'json_build_array',
  'jsonb_extract_path', 'jsonb_extract_path_text', 'json_extract_path', 'json_extract_path_text',
  'jsonb_array_elements', 'jsonb_array_elements_text', 'json_array_elements',
  'json_array_elements_text', 'jsonb_array_length', 'json_array_length', 'jsonb_each',
  'jsonb_each_text', 'json_each', 'json_each_text', 'jsonb_object_keys', 'json_object_keys',
  'jsonb_typeof', 'json_typeof', 'jsonb_strip_nulls', 'json_strip_nulls', 'jsonb_set',
  'jsonb_insert', 'jsonb_pretty', 'to_jsonb', 'to_json', 'jsonb_to_record', 'jsonb_to_recordset',
  'jsonb_path_query', 'jsonb_path_query_array', 'jsonb_path_query_first', 'jsonb_path_exists',
  'jsonb_path_match', 'row_to_json', 'array_to_json',
  // maths
  'abs', 'ceil', 'ceiling', 'floor', 'round', 'trunc', 'sign', 'sqrt', 'cbrt', 'power', 'pow',
  'exp', 'ln', 'log', 'log10', 'mod', 'div', 'width_bucket', 'random', 'pi', 'degrees', 'radians',
  'num_nulls', 'num_nonnulls',
  // arrays and set-returning helpers (statement timeout and max rows bound their output)
  'array_length', 'array_position', 'array_positions', 'array_remove', 'array_replace',
  'array_append', 'array_prepend', 'array_cat', 'array_to_string', 'string_to_array', 'unnest',
  'cardinality', 'array_upper', 'array_lower', 'array_dims', 'generate_series',
  'generate_subscripts',
]));

/**
 * Types a caller may cast to (`x::t`, `CAST`, `t 'literal'`, column definition lists). An allow-list
 * rather than a ban on reg* types: casts to regclass/regproc/… look names up in the catalogs, and
 * casts to a table's row type or a domain reveal schema; none of that is needed for log analysis.
 */
export const ALLOWED_TYPES: ReadonlySet<string> = Object.freeze(new Set([
  'text', 'varchar', 'bpchar', 'char', 'int2', 'int4', 'int8', 'smallint', 'integer', 'int',
  'bigint', 'float4', 'float8', 'real', 'numeric', 'decimal', 'bool', 'boolean', 'date', 'time',
  'timetz', 'timestamp', 'timestamptz', 'interval', 'json', 'jsonb', 'jsonpath', 'uuid', 'inet',
  'cidr', 'bytea',
]));

/**
 * SQLValueFunction variants a caller may use. CURRENT_USER, SESSION_USER, USER, CURRENT_ROLE,
 * CURRENT_CATALOG and CURRENT_SCHEMA are refused: they reveal the database role and layout and
 * no log query needs them.
 */
const ALLOWED_SQL_VALUE_FUNCTIONS: ReadonlySet<string> = Object.freeze(new Set([
  'SVFOP_CURRENT_DATE', 'SVFOP_CURRENT_TIME', 'SVFOP_CURRENT_TIME_N', 'SVFOP_CURRENT_TIMESTAMP',
  'SVFOP_CURRENT_TIMESTAMP_N', 'SVFOP_LOCALTIME', 'SVFOP_LOCALTIME_N', 'SVFOP_LOCALTIMESTAMP',
  'SVFOP_LOCALTIMESTAMP_N',
]));

/**
 * Parse-tree node types that may appear in caller SQL. Every node is checked against this list, so
 * a node type added by a future parser version is refused until someone decides it is harmless.
 */
const ALLOWED_NODES: ReadonlySet<string> = Object.freeze(new Set([
  'SelectStmt', 'WithClause', 'CommonTableExpr', 'CTESearchClause', 'CTECycleClause', 'ResTarget',
  'RangeVar', 'RangeSubselect', 'RangeFunction', 'JoinExpr', 'Alias', 'ColumnDef', 'SortBy',
  'WindowDef', 'GroupingSet', 'GroupingFunc', 'ColumnRef', 'A_Star', 'A_Const', 'A_Expr',
  'BoolExpr', 'FuncCall', 'NamedArgExpr', 'TypeCast', 'TypeName', 'SubLink', 'CaseExpr', 'CaseWhen',
  'CoalesceExpr', 'MinMaxExpr', 'NullTest', 'BooleanTest', 'A_Indirection', 'A_Indices',
  'A_ArrayExpr', 'RowExpr', 'CollateClause', 'SQLValueFunction', 'String', 'Integer', 'Float',
  'Boolean', 'BitString', 'List',
]));

/** Refused node types that deserve a clearer message than "not allowed". */
const DENIED_NODES: Readonly<Record<string, string>> = Object.freeze({
  IntoClause: 'SELECT … INTO is not allowed',
  LockingClause: 'FOR UPDATE/SHARE locking clauses are not allowed',
  RangeTableSample: 'TABLESAMPLE is not allowed',
  RangeTableFunc: 'XMLTABLE is not allowed',
  JsonTable: 'JSON_TABLE is not allowed',
  XmlExpr: 'XML functions are not allowed',
  XmlSerialize: 'XMLSERIALIZE is not allowed',
  ParamRef: 'parameters ($n) are not allowed in sql; only the stored query binds parameters',
});

/**
 * Fields whose value is a bare struct of a fixed type (libpg-query wraps only `Node` fields in
 * `{Type: …}`). Naming them makes the walk check e.g. the arms of a UNION as SELECTs and every type
 * name, instead of descending into them as anonymous objects.
 */
const BARE_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  larg: 'SelectStmt', // JoinExpr.larg/rarg are wrapped nodes and never reach this table
  rarg: 'SelectStmt',
  withClause: 'WithClause',
  intoClause: 'IntoClause',
  typeName: 'TypeName',
});

type Json = Record<string, unknown>;
type Scope = ReadonlySet<string>;

let loaded = false;

/** Load the parser's WASM module; call once at start-up before any other function here. */
export async function initSandbox(): Promise<void> {
  await loadModule();
  loaded = true;
}

/** Names of the top-level CTEs of a stored statement (bound SQL, `$n` params). */
export function storedCteNames(storedBoundSql: string): string[] {
  return [...prepareStored(storedBoundSql).cteNames];
}

/**
 * Validate `callerSql` and return the statement to run: the stored WITH clause followed by
 * `select * from (<callerSql>) as sandboxed`. Throws `HttpError('invalid_sql')` when refused.
 */
export function composeSandboxed(template: SandboxTemplate, callerSql: string): string {
  const caller = checkCallerSql(callerSql, template.cteNames);
  const head = `${template.withText}\nselect * from (\n`;
  // The newline before ")" ends a trailing "--" comment in the caller's text.
  const tail = template.orphanParams.length === 0
    ? '\n) as sandboxed'
    // Types the dropped params so PostgreSQL accepts the full bind list; `or true` folds away.
    : `\n) as sandboxed where (${template.orphanParams.map((n) => `$${n}::text`).join(', ')}) is null or true`;
  const composed = head + caller.text + tail;
  const offset = caller.startByte - Buffer.byteLength(head);
  verifyComposed(composed, template, new Locator(callerSql, offset));
  return composed;
}

/** Analyse a stored (bound) statement; the registry does this once per stored query at start-up. */
export function prepareStored(storedBoundSql: string): SandboxTemplate {
  return analyseStored(storedBoundSql);
}

/** Stored SQL is trusted (it is ours); a problem with it is a definition error, not a 400. */
function analyseStored(sql: string): SandboxTemplate {
  const fail = (why: string): never => {
    throw new Error(`stored statement cannot be sandboxed: ${why}`);
  };
  const stmts = parseTrusted(sql, fail);
  if (stmts.length !== 1) fail(`expected one statement, found ${stmts.length}`);
  const select = wrapped(stmts[0]?.stmt, 'SelectStmt');
  const withClause = select?.['withClause'] as Json | undefined;
  if (!select || !withClause) return fail('it must be a SELECT that starts with WITH');
  const ctes = (withClause['ctes'] as unknown[]).map((c) => wrapped(c, 'CommonTableExpr') ?? fail('malformed WITH'));
  const cteNames = ctes.map((c) => String(c['ctename']));

  const tokens = codeTokens(sql);
  if (tokens[0]?.text.toLowerCase() !== 'with') fail('it must start with WITH');
  const finalStart = finalSelectStart(tokens, Number(ctes[ctes.length - 1]?.['location'] ?? 0));
  if (finalStart === undefined) return fail('could not find the final SELECT after the WITH clause');
  const withText = Buffer.from(sql, 'utf8').subarray(0, finalStart).toString('utf8').trimEnd();

  // Prove the cut: the WITH text followed by a trivial SELECT must parse to the same CTEs.
  const check = wrapped(parseTrusted(`${withText}\nselect 1`, fail)[0]?.stmt, 'SelectStmt');
  const checkNames = ((check?.['withClause'] as Json | undefined)?.['ctes'] as unknown[] | undefined)
    ?.map((c) => wrapped(c, 'CommonTableExpr')?.['ctename']);
  if (JSON.stringify(checkNames) !== JSON.stringify(cteNames)) fail('the WITH clause could not be isolated');

  const inWith = paramNumbers(withClause);
  const orphanParams = [...paramNumbers(select)].filter((n) => !inWith.has(n)).sort((a, b) => a - b);
  return Object.freeze({ withText, cteNames: Object.freeze(cteNames), orphanParams: Object.freeze(orphanParams) });
}

interface Token { start: number; end: number; text: string; tokenName: string; keywordKind: number }

/** The scanner's tokens minus comments (it reports those as tokens too); offsets are UTF-8 bytes. */
function codeTokens(sql: string): Token[] {
  return scanSync(sql).tokens.filter((t) => t.tokenName !== 'SQL_COMMENT' && t.tokenName !== 'C_COMMENT');
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

function parseTrusted(sql: string, fail: (why: string) => never): NonNullable<ParseResult['stmts']> {
  ensureLoaded();
  try {
    return parseSync(sql).stmts ?? [];
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
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

/** Turns parser byte offsets (UTF-8) into 1-based character positions in the caller's SQL. */
class Locator {
  private readonly bytes: Buffer;
  constructor(sql: string, private readonly shift = 0) {
    this.bytes = Buffer.from(sql, 'utf8');
  }

  /** " at character N" for a parser location, or "" when the parser gave none. */
  at(location: unknown): string {
    if (typeof location !== 'number' || location < 0) return '';
    const byte = location + this.shift;
    if (byte < 0 || byte > this.bytes.length) return '';
    return ` at character ${this.bytes.subarray(0, byte).toString('utf8').length + 1}`;
  }

  /** The same for a syntax error: PostgreSQL already counts its cursor in characters (0-based here). */
  atCursor(cursor: number | undefined): string {
    return cursor === undefined || cursor < 0 ? '' : ` at character ${cursor + 1}`;
  }
}

function reject(message: string): never {
  throw new HttpError('invalid_sql', `sql rejected: ${message}`);
}

function ensureLoaded(): void {
  if (!loaded) throw new Error('sandbox parser not loaded: await initSandbox() at start-up');
}

/** Checks on tokens and parse tree; returns the caller's statement text without its semicolon. */
function checkCallerSql(sql: string, storedNames: readonly string[]): { text: string; startByte: number } {
  ensureLoaded();
  if (typeof sql !== 'string' || sql.trim() === '') reject('sql is empty');
  const bytes = Buffer.from(sql, 'utf8');
  if (bytes.length > MAX_SQL_BYTES) reject(`sql is too long (${bytes.length} bytes; the limit is ${MAX_SQL_BYTES})`);
  // The parser reads a C string: it would stop at NUL and check less than what is sent to the server.
  if (sql.includes('\0')) reject(`sql contains a NUL character at character ${sql.indexOf('\0') + 1}`);
  const locator = new Locator(sql);

  let tokens: readonly Token[];
  try {
    tokens = codeTokens(sql);
  } catch {
    // The scanner reports unterminated literals/comments badly; the parser says it properly.
    parseCaller(sql, locator);
    return reject('sql could not be tokenised');
  }
  if (tokens.length === 0) reject('sql contains no statement');
  let depth = 0;
  for (const [i, token] of tokens.entries()) {
    if (token.text === '(' || token.text === '[') depth++;
    else if (token.text === ')' || token.text === ']') depth--;
    if (depth > MAX_PAREN_DEPTH) reject(`sql is nested too deeply (more than ${MAX_PAREN_DEPTH} parentheses)${locator.at(token.start)}`);
    // `@name` is the stored query's parameter syntax; PostgreSQL would read it as abs(name).
    const next = tokens[i + 1];
    if (token.text === '@' && next && next.start === token.end && /^[A-Za-z_]/.test(next.text)) {
      reject(`parameters (@${next.text}) are not allowed in sql; only the stored query binds parameters${locator.at(token.start)}`);
    }
  }
  if (tokens.length > MAX_SQL_TOKENS) reject(`sql is too complex (${tokens.length} tokens; the limit is ${MAX_SQL_TOKENS})`);

  const stmts = parseCaller(sql, locator);
  if (stmts.length !== 1) reject(`sql must be exactly one statement; found ${stmts.length}`);
  const raw = stmts[0] as Json;
  const select = checkTopLevel(raw['stmt']);
  new Walker(locator).select(select, new Set(storedNames), 1);

  const startByte = Number(raw['stmt_location'] ?? 0);
  const len = Number(raw['stmt_len'] ?? 0); // 0 means "to the end of the string"
  const end = len > 0 ? startByte + len : bytes.length;
  return { text: bytes.subarray(startByte, end).toString('utf8'), startByte };
}

function parseCaller(sql: string, locator: Locator): NonNullable<ParseResult['stmts']> {
  try {
    return parseSync(sql).stmts ?? [];
  } catch (error) {
    if (error instanceof SqlError) reject(`${error.message}${locator.atCursor(error.sqlDetails?.cursorPosition)}`);
    // A native stack overflow or the like: never echo internals, never crash the request path.
    return reject('sql could not be parsed');
  }
}

/** The statement itself must be a SELECT (set operations included), not a bare VALUES list. */
function checkTopLevel(stmt: unknown): Json {
  const type = nodeType(stmt);
  if (type !== 'SelectStmt') reject(`sql must be a SELECT; found ${type ? describeStatement(type) : 'nothing'}`);
  const select = (stmt as Json)['SelectStmt'] as Json;
  if (Array.isArray(select['valuesLists']) && select['op'] === 'SETOP_NONE') {
    reject('sql must be a SELECT over the stored CTEs, not a VALUES list');
  }
  return select;
}

/** Re-parse the composed text: still one SELECT with the stored CTEs and the caller boxed in. */
function verifyComposed(composed: string, template: SandboxTemplate, locator: Locator): void {
  let stmts: NonNullable<ParseResult['stmts']>;
  try {
    stmts = parseSync(composed).stmts ?? [];
  } catch {
    return reject('sql does not compose with the stored query');
  }
  const escaped = (): never => reject('sql does not stay inside the sandbox');
  if (stmts.length !== 1) escaped();
  const outer = wrapped(stmts[0]?.stmt, 'SelectStmt') ?? escaped();
  const allowed = new Set(['withClause', 'targetList', 'fromClause', 'whereClause', 'limitOption', 'op']);
  if (Object.keys(outer).some((k) => !allowed.has(k)) || outer['op'] !== 'SETOP_NONE') escaped();
  const ctes = ((outer['withClause'] as Json | undefined)?.['ctes'] as unknown[] | undefined) ?? [];
  const names = ctes.map((c) => wrapped(c, 'CommonTableExpr')?.['ctename']);
  if (JSON.stringify(names) !== JSON.stringify(template.cteNames)) escaped();
  const from = outer['fromClause'] as unknown[] | undefined;
  const box = from?.length === 1 ? wrapped(from[0], 'RangeSubselect') : undefined;
  if (!box || (box['alias'] as Json | undefined)?.['aliasname'] !== 'sandboxed' || box['lateral']) escaped();
  const targets = outer['targetList'] as unknown[] | undefined;
  const star = targets?.length === 1 ? wrapped(wrapped(targets[0], 'ResTarget')?.['val'], 'ColumnRef') : undefined;
  if (JSON.stringify(star?.['fields']) !== '[{"A_Star":{}}]') escaped();
  if (outer['whereClause'] !== undefined && template.orphanParams.length === 0) escaped();
  // The caller's part, checked again as PostgreSQL will see it, with the stored CTEs in scope.
  const inner = checkTopLevel(box?.['subquery']);
  new Walker(locator).select(inner, new Set(template.cteNames), 1);
}

function nodeType(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && /^[A-Z]/.test(keys[0] ?? '') ? keys[0] : undefined;
}

function wrapped(value: unknown, type: string): Json | undefined {
  return nodeType(value) === type ? ((value as Json)[type] as Json) : undefined;
}

function describeStatement(type: string): string {
  return type.endsWith('Stmt') ? `${type.slice(0, -4)} statement (${type})` : type;
}

function stringList(list: unknown): string[] {
  return Array.isArray(list) ? list.map((item) => String(wrapped(item, 'String')?.['sval'] ?? '?')) : [];
}

/**
 * Walks the whole caller parse tree: every array element and property is visited, wrapped nodes
 * are checked against ALLOWED_NODES, and CTE names are scoped the way PostgreSQL scopes them.
 */
class Walker {
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
