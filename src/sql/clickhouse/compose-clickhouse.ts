/**
 * Caller `sql` on the ClickHouse engine (docs/clickhouse.md): validated exactly as on PostgreSQL
 * (caller-sql.ts), then printed from its parse tree (emit-select.ts), never passed through, and
 * composed with only the stored CTEs it reads. The stored CTEs' column types come from the
 * PostgreSQL statement beside the ClickHouse one, typed by the same printer over the log tables.
 */
import { LOG_TABLES } from '../../store/schema.ts';
import { withCtesFor, type ClickHouseWith } from './with-clause.ts';
import { checkCallerSql } from '../sandbox/caller-sql.ts';
import { BoundedMemo } from '../../shared/bounded-memo.ts';
import type { ResultColumns } from '../../store/engine.ts';
import { HttpError } from '../../shared/errors.ts';
import { Locator, reject, wrapped, type Json, type SqlParser } from '../sandbox/sql-parser.ts';
import { chIdent, type Column, type Printed } from './emit-types.ts';
import { SelectPrinter } from './emit-select.ts';

/** What composing caller sql on ClickHouse needs from a stored statement, decided at start-up. */
export interface ClickHouseSandbox {
  /** The stored ClickHouse statement's WITH clause. */
  readonly with: ClickHouseWith;
  /** Each stored CTE a caller may read, with its columns. */
  readonly ctes: ReadonlyMap<string, readonly Column[]>;
  /** The stored CTEs that carry `metadata_kinds` beside `metadata` (not a caller-visible column). */
  readonly withKinds: ReadonlySet<string>;
  /**
   * Statements printed (or refused) by the text they were printed from, as translations are
   * remembered (bigquery-dialect.ts): Studio polls the same sql with new time bounds.
   */
  readonly printed: BoundedMemo<PrintedCall | HttpError>;
}

/** Distinct texts remembered per stored query, and the longest held (a translation runs to ~20 KB). */
const PRINTED_ENTRIES = 128;
const PRINTED_MAX_CHARS = 64 * 1024;

/** The sandbox part of a stored ClickHouse statement. */
export function clickhouseSandbox(w: ClickHouseWith, ctes: ReadonlyMap<string, readonly Column[]>): ClickHouseSandbox {
  const withKinds = new Set(w.ctes.filter((c) => /\bmetadata_kinds\b/.test(c.text)).map((c) => c.name));
  return Object.freeze({ with: w, ctes, withKinds, printed: new BoundedMemo<PrintedCall | HttpError>(PRINTED_ENTRIES, PRINTED_MAX_CHARS) });
}

/** The statement to run and what its columns' types cannot say. */
export interface PrintedCall {
  readonly sql: string;
  /** What its columns' ClickHouse types cannot say: which hold JSON, which are timestamps without zone. */
  readonly columns: ResultColumns;
}

/**
 * Validate `callerSql` (caller-sql.ts, as on PostgreSQL) and print it for ClickHouse over the stored
 * CTEs it reads; throws `invalid_sql` naming what cannot be printed with PostgreSQL's meaning.
 */
export function composeForClickHouse(parser: SqlParser, sandbox: ClickHouseSandbox, callerSql: string, maxTokens?: number): PrintedCall {
  const key = `${maxTokens ?? ''}:${callerSql}`;
  const known = sandbox.printed.get(key);
  if (known instanceof HttpError) throw known;
  if (known !== undefined) return known;
  try {
    const printed = printCall(parser, sandbox, callerSql, maxTokens);
    sandbox.printed.set(key, printed);
    return printed;
  } catch (err) {
    if (err instanceof HttpError) sandbox.printed.set(key, err);
    throw err;
  }
}

function printCall(parser: SqlParser, sandbox: ClickHouseSandbox, callerSql: string, maxTokens?: number): PrintedCall {
  const checked = checkCallerSql(parser, callerSql, [...sandbox.ctes.keys()], maxTokens);
  const printer = new SelectPrinter(new Locator(callerSql), sandbox.ctes, sandbox.withKinds);
  let printed: Printed;
  try {
    printed = printer.statement(checked.select);
  } catch (err) {
    if (err instanceof HttpError) throw err;
    // A tree the printer did not expect: refused, never run half-printed, never a 500.
    return reject('sql could not be printed for the ClickHouse engine');
  }
  const final = `SELECT ${printed.columns.map((c) => `sandboxed.${chIdent(c.name)}`).join(', ')} FROM (\n${printed.sql}\n) AS sandboxed`;
  return {
    sql: withCtesFor(sandbox.with, printer.storedRead, final),
    columns: {
      json: new Set(printed.columns.filter((c) => c.type === 'jsonb').map((c) => c.name)),
      timestamps: new Set(printed.columns.filter((c) => c.type === 'timestamp').map((c) => c.name)),
    },
  };
}

/** The log tables' columns (sql/schema.sql), what stored CTEs are typed from. */
const LOG_COLUMNS: readonly Column[] = Object.freeze([
  { name: 'id', type: 'text' }, { name: 'timestamp', type: 'timestamptz' }, { name: 'event_message', type: 'text' },
  { name: 'project', type: 'text' }, { name: 'metadata', type: 'jsonb' },
]);

/**
 * The columns of each CTE of the PostgreSQL statement `pgSql` that the ClickHouse statement also
 * defines, typed by printing each CTE's SELECT list over the log tables; a column the printer cannot
 * type (one computed with what callers cannot write) is `other`: readable, not computable.
 */
export function storedCteColumns(parser: SqlParser, pgSql: string, names: readonly string[]): Map<string, readonly Column[]> {
  const select = wrapped(parser.parse(pgSql)[0]?.stmt, 'SelectStmt');
  const base = new Map<string, readonly Column[]>(LOG_TABLES.map((t) => [t, LOG_COLUMNS]));
  const out = new Map<string, readonly Column[]>();
  for (const item of (select?.['withClause'] as Json | undefined)?.['ctes'] as unknown[] ?? []) {
    const cte = wrapped(item, 'CommonTableExpr')!;
    const name = String(cte['ctename']);
    const columns = new SelectPrinter(new Locator(pgSql), base).targetTypes(wrapped(cte['ctequery'], 'SelectStmt') ?? {});
    // A CTE read by later ones: its name now means it, as in PostgreSQL.
    base.set(name, columns);
    if (names.includes(name)) out.set(name, columns);
  }
  return out;
}
