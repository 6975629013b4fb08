/**
 * How a stored query's `@name` parameters reach each store's SQL dialect (docs/stored-queries.md):
 * PostgreSQL reads `($n::type)` with the type from the declaration; ClickHouse reads `{pN:Type}` with the type
 * from the declaration, and a timestamp as `YYYY-MM-DD HH:MM:SS.ffffff` in UTC. Values stay out of
 * the text either way; this decides only the placeholder and the value's spelling.
 */
import type { StoreDialect } from '../../store/engine.ts';
import { clickhouseTimestamp } from '../../store/clickhouse/timestamps.ts';
import { foldableParams, foldOptional, MAX_FOLDED_PARAMS } from '../clickhouse/optional-filters.ts';

/** The types a parameter may be declared with (query/params.ts checks values against them). */
export const PARAM_TYPES = ['string', 'regex', 'timestamp', 'enum', 'integer', 'number', 'boolean'] as const;

/** What binding needs of a parameter's declaration: its type, and whether a call may leave it out. */
export interface BoundParam {
  readonly type: (typeof PARAM_TYPES)[number];
  readonly required: boolean;
}

export interface StoreBinding {
  readonly dialect: StoreDialect;
  /** The file of a stored query's statement in this dialect. */
  readonly suffix: string;
  /** The statement as written → as run: ClickHouse files name the log database `{db}`. */
  prepare(text: string, schema: string): string;
  placeholder(num: number, spec: BoundParam): string;
  /** A validated parameter value as the store reads it. */
  value(spec: BoundParam, value: string | null): string | null;
  /**
   * The statement per call shape: `texts[mask]` for the optional parameters `params[i]` absent where
   * bit i of mask is set; on ClickHouse, which plans `(@p is null or …)` as written, one per set of
   * absent parameters (optional-filters.ts). Null where there is one statement for every call:
   * PostgreSQL folds the filter itself when it plans a call with its values, and a ClickHouse
   * statement may have no such filter (or more than it folds).
   */
  shapes(text: string, optional: (name: string) => boolean): CallShapes | null;
}

export interface CallShapes {
  readonly params: readonly string[];
  readonly texts: readonly string[];
}

const POSTGRES_TYPES: Readonly<Record<BoundParam['type'], string>> = Object.freeze({
  string: 'text', regex: 'text', enum: 'text', timestamp: 'timestamptz', integer: 'int8', number: 'numeric', boolean: 'bool',
});

const CLICKHOUSE_TYPES: Readonly<Record<BoundParam['type'], string>> = Object.freeze({
  string: 'String', regex: 'String', enum: 'String', timestamp: "DateTime64(6, 'UTC')", integer: 'Int64', number: 'Float64', boolean: 'Bool',
});

export const STORE_BINDINGS: Readonly<Record<StoreDialect, StoreBinding>> = Object.freeze({
  postgresql: Object.freeze({
    dialect: 'postgresql',
    suffix: '.sql',
    prepare: (text: string) => text,
    // Typed as declared, so PostgreSQL never has to infer a type from where `@p` first appears
    // (`@p is null or …` alone would be 42P18, every call a 500); a cast the statement writes still applies.
    placeholder: (num: number, spec: BoundParam) => `($${num}::${POSTGRES_TYPES[spec.type]})`,
    value: (_spec: BoundParam, value: string | null) => value,
    shapes: () => null,
  }),
  clickhouse: Object.freeze({
    dialect: 'clickhouse',
    suffix: '.clickhouse.sql',
    // LOG_SCHEMA is a validated identifier (config.ts); a value never goes here.
    prepare: (text: string, schema: string) => text.replaceAll('{db}', `\`${schema}\``),
    placeholder: (num: number, spec: BoundParam) => `{p${num}:${spec.required ? CLICKHOUSE_TYPES[spec.type] : `Nullable(${CLICKHOUSE_TYPES[spec.type]})`}}`,
    value: (spec: BoundParam, value: string | null) => (value !== null && spec.type === 'timestamp' ? clickhouseTimestamp(value) : value),
    shapes(text: string, optional: (name: string) => boolean): CallShapes | null {
      const params = foldableParams(text).filter(optional);
      if (params.length === 0 || params.length > MAX_FOLDED_PARAMS) return null;
      const texts = Array.from({ length: 2 ** params.length }, (_, mask) => foldOptional(text, new Set(params.filter((_, i) => mask & (1 << i)))));
      return { params, texts };
    },
  }),
});
