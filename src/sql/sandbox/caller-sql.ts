/**
 * Checks on a caller's `sql` before it is composed: size, NUL, token budget and nesting (cheap, on
 * the scanner's tokens, before the parser sees anything deep), `@name` parameters (the binder's own
 * detector, sql-bind.ts), then exactly one SELECT whose whole tree passes the allow-list walk.
 */
import { firstParam } from '../binding/sql-bind.ts';
import { MAX_PAREN_DEPTH, MAX_SQL_BYTES, MAX_SQL_TOKENS } from './allow-lists.ts';
import { describeStatement, Locator, nodeType, reject, SqlError, type Json, type SqlParser, type Statements, type Token } from './sql-parser.ts';
import { Walker } from './walker.ts';

/** The caller's statement text (no trailing semicolon) and where it starts, in UTF-8 bytes. */
export interface CheckedSql {
  text: string;
  startByte: number;
  /** The validated SELECT's parse tree (locations are byte offsets in the text checked). */
  select: Json;
}

/** Validate caller SQL against the stored CTE names; throws `invalid_sql` when refused. */
export function checkCallerSql(parser: SqlParser, sql: string, storedNames: readonly string[], maxTokens = MAX_SQL_TOKENS): CheckedSql {
  if (typeof sql !== 'string' || sql.trim() === '') reject('sql is empty');
  const locator = new Locator(sql);
  const bytes = preflight(parser, sql, locator, maxTokens);
  // `@name` is the stored query's parameter syntax; PostgreSQL would read it as abs(name).
  const param = firstParam(sql);
  if (param !== null) {
    reject(`parameters (@${param.name}) are not allowed in sql; only the stored query binds parameters at character ${param.start + 1}`);
  }

  const stmts = parseCaller(parser, sql, locator);
  if (stmts.length !== 1) reject(`sql must be exactly one statement; found ${stmts.length}`);
  const raw = stmts[0] as Json;
  const select = checkTopLevel(raw['stmt']);
  new Walker(locator).select(select, new Set(storedNames), 1);

  const startByte = Number(raw['stmt_location'] ?? 0);
  const len = Number(raw['stmt_len'] ?? 0); // 0 means "to the end of the string"
  const end = len > 0 ? startByte + len : bytes.length;
  return { text: bytes.subarray(startByte, end).toString('utf8'), startByte, select };
}

/**
 * The checks made before anything deep parses the text: size, NUL, token budget and nesting.
 * `where` turns offsets in `sql` into " at character N" of what the caller sent (the BigQuery
 * translation checks its pre-passed text with its own). Returns the text's UTF-8 bytes.
 */
export function preflight(parser: SqlParser, sql: string, where: Pick<Locator, 'at' | 'atCursor'>, maxTokens = MAX_SQL_TOKENS): Buffer {
  const at = (byte: number): string => where.at(byte);
  const bytes = Buffer.from(sql, 'utf8');
  if (bytes.length > MAX_SQL_BYTES) reject(`sql is too long (${bytes.length} bytes; the limit is ${MAX_SQL_BYTES})`);
  // The parser reads a C string: it would stop at NUL and check less than what is sent to the server.
  if (bytes.includes(0)) reject(`sql contains a NUL character${at(bytes.indexOf(0))}`);

  let tokens: readonly Token[];
  try {
    tokens = parser.codeTokens(sql);
  } catch {
    // The scanner reports unterminated literals/comments badly; the parser says it properly.
    parseCaller(parser, sql, where);
    return reject('sql could not be tokenised');
  }
  if (tokens.length === 0) reject('sql contains no statement');
  let depth = 0;
  for (const token of tokens) {
    if (token.text === '(' || token.text === '[') depth++;
    else if (token.text === ')' || token.text === ']') depth--;
    if (depth > MAX_PAREN_DEPTH) reject(`sql is nested too deeply (more than ${MAX_PAREN_DEPTH} parentheses)${at(token.start)}`);
  }
  if (tokens.length > maxTokens) reject(`sql is too complex (${tokens.length} tokens; the limit is ${maxTokens})`);
  return bytes;
}

export function parseCaller(parser: SqlParser, sql: string, locator: Pick<Locator, 'atCursor'>): Statements {
  try {
    return parser.parse(sql);
  } catch (error) {
    if (error instanceof SqlError) reject(`${error.message}${locator.atCursor(error.sqlDetails?.cursorPosition)}`);
    // A native stack overflow or the like: never echo internals, never crash the request path.
    return reject('sql could not be parsed');
  }
}

/** The statement itself must be a SELECT (set operations included), not a bare VALUES list. */
export function checkTopLevel(stmt: unknown): Json {
  const type = nodeType(stmt);
  if (type !== 'SelectStmt') reject(`sql must be a SELECT; found ${type ? describeStatement(type) : 'nothing'}`);
  const select = (stmt as Json)['SelectStmt'] as Json;
  if (Array.isArray(select['valuesLists']) && select['op'] === 'SETOP_NONE') {
    reject('sql must be a SELECT over the stored CTEs, not a VALUES list');
  }
  return select;
}
