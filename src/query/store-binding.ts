/**
 * How a stored query's `@name` parameters reach each store's SQL dialect (docs/stored-queries.md):
 * PostgreSQL reads `$n` and casts in its own text; ClickHouse reads `{pN:Type}` with the type
 * from the declaration, and a timestamp as `YYYY-MM-DD HH:MM:SS.ffffff` in UTC. Values stay out of
 * the text either way; this decides only the placeholder and the value's spelling.
 */
import type { StoreDialect } from '../store/engine.ts';
import { clickhouseTimestamp } from '../store/clickhouse/timestamps.ts';
import type { ParamSpec } from './params.ts';

export interface StoreBinding {
  readonly dialect: StoreDialect;
  /** The file of a stored query's statement in this dialect. */
  readonly suffix: string;
  /** The statement as written → as run: ClickHouse files name the log database `{db}`. */
  prepare(text: string, schema: string): string;
  placeholder(num: number, spec: ParamSpec): string;
  /** A validated parameter value as the store reads it. */
  value(spec: ParamSpec, value: string | null): string | null;
}

const CLICKHOUSE_TYPES: Readonly<Record<ParamSpec['type'], string>> = Object.freeze({
  string: 'String', regex: 'String', enum: 'String', timestamp: "DateTime64(6, 'UTC')", integer: 'Int64', number: 'Float64', boolean: 'Bool',
});

export const STORE_BINDINGS: Readonly<Record<StoreDialect, StoreBinding>> = Object.freeze({
  postgresql: Object.freeze({
    dialect: 'postgresql',
    suffix: '.sql',
    prepare: (text: string) => text,
    placeholder: (num: number) => `$${num}`,
    value: (_spec: ParamSpec, value: string | null) => value,
  }),
  clickhouse: Object.freeze({
    dialect: 'clickhouse',
    suffix: '.clickhouse.sql',
    // LOG_SCHEMA is a validated identifier (config.ts); a value never goes here.
    prepare: (text: string, schema: string) => text.replaceAll('{db}', `\`${schema}\``),
    placeholder: (num: number, spec: ParamSpec) => `{p${num}:${spec.required ? CLICKHOUSE_TYPES[spec.type] : `Nullable(${CLICKHOUSE_TYPES[spec.type]})`}}`,
    value: (spec: ParamSpec, value: string | null) => (value !== null && spec.type === 'timestamp' ? clickhouseTimestamp(value) : value),
  }),
});
