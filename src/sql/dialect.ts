/**
 * The dialect caller `sql` is written in, and how it becomes the statement to run. PostgreSQL by
 * default; BigQuery with COMPAT=logflare (bigquery-dialect.ts, loaded only then), translated and
 * then composed and validated exactly like PostgreSQL sql: the translation gains no trust.
 */
import type { ResultColumns } from '../store/engine.ts';
import { composeSandboxed } from './sandbox/compose.ts';
import type { SandboxTemplate } from './sandbox/stored-statement.ts';

export interface Composed {
  /** The stored WITH clause with the caller's SELECT boxed in. */
  sql: string;
  /** Milliseconds spent translating; undefined when nothing was translated (PostgreSQL, or a memo hit). */
  translateMs: number | undefined;
  /** What the output columns' types cannot say (ClickHouse). */
  columns?: ResultColumns;
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
