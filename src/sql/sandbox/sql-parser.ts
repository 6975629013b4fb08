/**
 * PostgreSQL's own parser (libpg-query, compiled to WASM) as an explicit handle: loaded once at
 * start-up by `loadSqlParser()` and passed to whoever parses, so nothing here works "only after an
 * init call". Also the small helpers every sandbox file needs to read its JSON parse trees.
 */
import { loadModule, parseSync, scanSync, SqlError } from 'libpg-query';
import type { ParseResult } from 'libpg-query';
import { HttpError } from '../../shared/errors.ts';

export type Json = Record<string, unknown>;
export type Statements = NonNullable<ParseResult['stmts']>;

/** One scanner token; offsets are UTF-8 bytes. */
export interface Token {
  start: number;
  end: number;
  text: string;
  tokenName: string;
  keywordKind: number;
}

/** The loaded parser. Its functions are synchronous; proof of loading is holding one. */
export interface SqlParser {
  /** Parse to statements; throws libpg-query's SqlError (with a cursor) on a syntax error. */
  parse(sql: string): Statements;
  /** The scanner's tokens minus comments (it reports those as tokens too). */
  codeTokens(sql: string): Token[];
}

/** Load the parser's WASM module (once per process; later calls are cheap). */
export async function loadSqlParser(): Promise<SqlParser> {
  await loadModule();
  return Object.freeze({
    parse: (sql: string) => parseSync(sql).stmts ?? [],
    codeTokens: (sql: string) => scanSync(sql).tokens.filter((t) => t.tokenName !== 'SQL_COMMENT' && t.tokenName !== 'C_COMMENT'),
  });
}

export { SqlError };

/** Refuse caller SQL with `invalid_sql`. */
export function reject(message: string): never {
  throw new HttpError('invalid_sql', `sql rejected: ${message}`);
}

/** The type of a wrapped node (`{SelectStmt: {…}}` → 'SelectStmt'), or undefined. */
export function nodeType(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  return keys.length === 1 && /^[A-Z]/.test(keys[0] ?? '') ? keys[0] : undefined;
}

/** The body of a wrapped node of `type`, or undefined when it is something else. */
export function wrapped(value: unknown, type: string): Json | undefined {
  return nodeType(value) === type ? ((value as Json)[type] as Json) : undefined;
}

export function describeStatement(type: string): string {
  return type.endsWith('Stmt') ? `${type.slice(0, -4)} statement (${type})` : type;
}

/** The strings of a list of `String` nodes (qualified names). */
export function stringList(list: unknown): string[] {
  return Array.isArray(list) ? list.map((item) => String(wrapped(item, 'String')?.['sval'] ?? '?')) : [];
}

/** The CTE names of a WITH clause, in order, as PostgreSQL folds them. */
export function cteNamesOf(withClause: Json | undefined): unknown[] | undefined {
  return (withClause?.['ctes'] as unknown[] | undefined)?.map((c) => wrapped(c, 'CommonTableExpr')?.['ctename']);
}

/** Turns parser byte offsets (UTF-8) into 1-based character positions in the caller's SQL. */
export class Locator {
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
