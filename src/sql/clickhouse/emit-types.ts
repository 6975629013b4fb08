/**
 * What the ClickHouse emitter knows about a value while it prints caller SQL (docs/clickhouse.md):
 * the PostgreSQL type the expression has in the validated tree, so each operator and function is
 * printed with PostgreSQL's meaning (integer or exact division, `->>`'s scalar rules, a literal read
 * as the type beside it), and the encoder knows which output columns are JSON.
 */
import { reject, type Json } from '../sandbox/sql-parser.ts';

/**
 * PostgreSQL types as far as printing needs them. `unknown` is an untyped string literal (it takes
 * the type of what it meets, as in PostgreSQL); `null` a bare NULL; `other` a value that can be
 * passed along but not computed with.
 */
export type ScalarType = 'text' | 'int' | 'numeric' | 'bool' | 'timestamptz' | 'timestamp' | 'date' | 'interval' | 'jsonb' | 'unknown' | 'null' | 'other';
/** An array of a scalar type (what percentile_disc of several fractions answers), indexed and counted only. */
export type PgType = ScalarType | `${ScalarType}[]`;

/** A printed expression and its type. */
export interface Expr {
  readonly sql: string;
  readonly type: PgType;
  /**
   * A JSON value not read yet: the JSON text `root` and the path under it (printed ClickHouse
   * literals). `parsed`: the root is text parsed as JSON (try_jsonb), whose objects keep the
   * source's key order where jsonb sorts keys; stored metadata is jsonb's text already.
   * `sourceOrder`: the root is text cast to json (not jsonb), whose text keeps its key order in
   * PostgreSQL too, so reading it as text is the same on both engines.
   */
  readonly json?: { readonly root: string; readonly path: readonly string[]; readonly parsed?: boolean; readonly sourceOrder?: boolean; readonly kinds?: string };
  /**
   * A stored CTE's `metadata`: its companion map of top-level key → jsonb_typeof name (computed at
   * insert, src/store/clickhouse/schema.ts), read instead of parsing the document.
   */
  readonly kinds?: string;
  /** An interval: its terms, each a count (printed integer expression) and a ClickHouse unit. */
  readonly interval?: readonly IntervalTerm[];
  /** The difference of two timestamps, in microseconds (printed): what `epoch from` reads. */
  readonly micros?: string;
  /** The value of a string literal (before it takes a type). */
  readonly literal?: string;
  /** An array that stands for NULL when empty (array_agg's: PostgreSQL's of no rows is NULL). */
  readonly nullIfEmpty?: boolean;
  /** An array that stands for NULL when every element is NULL (percentile_disc of no values). */
  readonly nullIfAllNull?: boolean;
}

/** One term of an interval: `count` units (`toIntervalHour(count)`). */
export interface IntervalTerm {
  readonly count: string;
  readonly unit: string;
}

/** A column a FROM item offers. */
export interface Column {
  readonly name: string;
  readonly type: PgType;
}

/** A printed SELECT: its text and its output columns. */
export interface Printed {
  readonly sql: string;
  readonly columns: readonly Column[];
}

/** Refuse what the emitter cannot print with PostgreSQL's meaning, naming it and where it is. */
export function unsupported(what: string, at: string): never {
  return reject(`${what} is not supported on the ClickHouse engine${at}`);
}

/** A ClickHouse string literal: ClickHouse reads `\` as an escape, PostgreSQL does not. */
export function chString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** A ClickHouse identifier. */
export function chIdent(name: string): string {
  return `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
}

export const expr = (sql: string, type: PgType): Expr => ({ sql, type });

/** An array type's element type, or undefined for a scalar. */
export const elementOf = (t: PgType): ScalarType | undefined => (t.endsWith('[]') ? (t.slice(0, -2) as ScalarType) : undefined);

/** A divisor that raises PostgreSQL's error at zero (ClickHouse's `/` gives inf). */
/**
 * `base ^ exponent` (PostgreSQL's `^`, power(), pow(); `what` names it). Of integers: PostgreSQL's
 * float8 power, with its refusals where ClickHouse's pow() answers inf or nan. Of numerics it is
 * exact to 16 places and more (2.5 ^ 2 is 6.2500000000000000, power(2, 0.5) 1.414213562373095),
 * which a double cannot print: refused.
 */
export function power(what: string, base: Expr, exponent: Expr, at: string): Expr {
  if (base.type !== 'int' || exponent.type !== 'int') return unsupported(`${what} of ${base.type === 'int' ? exponent.type : base.type}`, at);
  const [b, x] = [base.sql, exponent.sql];
  return expr(`pow(${b}, ${x} + throwIf(${b} = 0 AND ${x} < 0, 'zero raised to a negative power is undefined') + throwIf(${b} < 0 AND ${x} != floor(${x}), 'a negative number raised to a non-integer power yields a complex result'))`, 'numeric');
}

/**
 * A value's JSON text as PostgreSQL writes it: integers, and arrays of them, through toString (the
 * session quotes 64-bit integers in JSON, toJSONString's too); anything else by toJSONString with
 * '/' unescaped.
 */
export function jsonValueText(v: Expr): string {
  if (v.type === 'int') return `toString(${v.sql})`;
  if (elementOf(v.type) === 'int') return `concat('[', arrayStringConcat(arrayMap(x -> ifNull(toString(x), 'null'), ${v.sql}), ','), ']')`;
  return `replaceAll(toJSONString(${v.sql}), ${chString('\\/')}, '/')`;
}

export const nonZero = (divisor: string): string => `(${divisor} + throwIf(${divisor} = 0, 'division by zero'))`;

/** Numbers as PostgreSQL's numeric rules see them. */
export const isNumber = (t: PgType): boolean => t === 'int' || t === 'numeric';

/** What an expression can see: its FROM items' columns, subqueries, named windows, positions. */
export interface ExprScope {
  /** A column reference (`a`, `t.a`), printed qualified: ClickHouse lets an alias shadow a column. */
  column(fields: readonly string[], at: string): Expr;
  /** A subquery in this scope (printed by the statement emitter). */
  subquery(select: Json): Printed;
  /** A named window's definition (`WINDOW w AS (…)`), inlined where it is used. */
  window(name: string, at: string): Json;
  /** " at character N" for a parser location. */
  at(location: unknown): string;
}

/**
 * The expression printer as the function, aggregate, window and JSON printers call back into it
 * (emit-expression.ts's ExprEmitter): declared here so they need not import it, which imports them.
 */
export interface Emitter {
  readonly scope: ExprScope;
  emit(node: unknown): Expr;
  value(node: unknown): Expr;
  argAs(node: unknown, type: PgType, at: string): string;
  as(e: Expr, type: PgType, at: string): Expr;
  divide(op: '/' | '%', lnode: unknown, rnode: unknown, at: string): Expr;
  textOf(node: unknown, at: string): string;
  jsonPath(left: Expr, op: string, keyNode: unknown, at: string): Expr;
  condition(node: unknown): string;
}
