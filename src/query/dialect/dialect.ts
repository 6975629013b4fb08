/**
 * The dialect caller `sql` is written in, and how it becomes the statement to run. PostgreSQL by
 * default; BigQuery with COMPAT=logflare (bigquery-dialect.ts, loaded only then), translated and
 * then composed and validated exactly like PostgreSQL sql: the translation gains no trust.
 */
import { composeSandboxed } from '../sandbox/compose.ts';
import type { SandboxTemplate } from '../sandbox/stored-statement.ts';

export interface Composed {
  /** The stored WITH clause with the caller's SELECT boxed in. */
  sql: string;
  /** Milliseconds spent translating; undefined when nothing was translated (PostgreSQL, or a memo hit). */
  translateMs: number | undefined;
  /** Output columns holding JSON text (ClickHouse, where the column type cannot say so). */
  jsonColumns?: ReadonlySet<string>;
  /** Output columns that are timestamps without time zone (ClickHouse). */
  timestampColumns?: ReadonlySet<string>;
}

export interface Dialect {
  readonly name: 'postgresql' | 'bigquery';
  /** Caller sql → the statement to run; throws `invalid_sql` when refused. */
  compose(template: SandboxTemplate, sql: string): Composed;
}

export const POSTGRESQL: Dialect = Object.freeze({
  name: 'postgresql',
  compose: (template: SandboxTemplate, sql: string): Composed => ({ ...composeSandboxed(template, sql), translateMs: undefined }),
});
