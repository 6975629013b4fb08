/**
 * The log store on ClickHouse (docs/clickhouse.md): the nine tables of sql/schema.sql with
 * `metadata` as the JSON text PostgreSQL's jsonb prints (jsonb-text.ts), and what the stored
 * queries filter on computed once at insert as MATERIALIZED columns, with PostgreSQL's `->>`
 * meaning for scalars. Idempotent; `cluster` makes the tables `<table>_local` with Distributed tables
 * over them: replicated, ON CLUSTER (which needs ZooKeeper or Keeper), or plain MergeTree on the
 * one node the statements reach (run on each node of a sharded cluster without replication).
 */
import { LOG_TABLES, type LogTable } from '../schema.ts';

export interface ClickHouseSchemaOptions {
  /** The database: LOG_SCHEMA (a validated identifier). */
  db: string;
  /** Rows older than this many days are dropped by TTL (whole daily parts); null: kept. */
  retentionDays: number | null;
  /** A cluster from the server's remote_servers; null: plain MergeTree tables, no Distributed ones. */
  cluster: ClusterSchema | null;
}

export interface ClusterSchema {
  /** Its name in remote_servers. */
  name: string;
  /**
   * true: ReplicatedMergeTree, every node at once through ON CLUSTER (distributed DDL: ZooKeeper or
   * Keeper). false: MergeTree on the node the statements reach, for shards of one replica each.
   */
  replicated: boolean;
}

/** A key's value as PostgreSQL's `metadata #>> '{path}'` gives it for scalars: the string unquoted, numbers and booleans as written, else NULL. */
export function scalarAt(path: readonly string[]): string {
  const args = ['metadata', ...path.map((k) => `'${k}'`)].join(', ');
  return `multiIf(JSONType(${args}) = 'String', JSONExtractString(${args}), JSONType(${args}) IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(${args}), NULL)`;
}

/**
 * Each top-level key of `metadata` → its value's jsonb_typeof name, from one parse at insert: what
 * Studio's queries test on every row (`jsonb_typeof(metadata -> 'request') = 'object'`, the
 * translation of `CROSS JOIN UNNEST(m.request)`), read from a small map instead of the document
 * (src/sql/clickhouse/, the stored CTEs expose it to the printer, never to callers).
 */
export const METADATA_KINDS = `mapFromArrays(arrayMap(kv -> kv.1, JSONExtractKeysAndValuesRaw(metadata)), arrayMap(kv -> multiIf(startsWith(kv.2, '{'), 'object', startsWith(kv.2, '['), 'array', startsWith(kv.2, '"'), 'string', kv.2 IN ('true', 'false'), 'boolean', kv.2 = 'null', 'null', 'number'), JSONExtractKeysAndValuesRaw(metadata)))`;

/**
 * The value a table's rows are found by (SPEC 2.5.2): the `project` column, or the project named in
 * metadata. NUL where there is none: no parameter can hold NUL (params.ts), so a row without a
 * project never matches, as NULL never equals in PostgreSQL.
 */
const PROJECT_KEY: Readonly<Record<LogTable, string>> = Object.freeze({
  edge_logs: `ifNull(project, '\\0')`,
  postgres_logs: `ifNull(project, '\\0')`,
  auth_logs: `ifNull(project, '\\0')`,
  postgrest_logs: `ifNull(project, '\\0')`,
  pgbouncer_logs: `ifNull(project, '\\0')`,
  function_edge_logs: `ifNull(${scalarAt(['project_ref'])}, '\\0')`,
  function_logs: `ifNull(${scalarAt(['project_ref'])}, '\\0')`,
  realtime_logs: `ifNull(${scalarAt(['project'])}, '\\0')`,
  storage_logs: `ifNull(${scalarAt(['project'])}, '\\0')`,
});

/** The DDL statements, in order. */
export function clickhouseSchema(o: ClickHouseSchemaOptions): string[] {
  const on = o.cluster?.replicated ? ` ON CLUSTER ${ident(o.cluster.name)}` : '';
  const db = ident(o.db);
  const statements = [`CREATE DATABASE IF NOT EXISTS ${db}${on}`];
  for (const table of LOG_TABLES) {
    const local = o.cluster === null ? table : `${table}_local`;
    const engine = !o.cluster?.replicated ? 'MergeTree' : `ReplicatedMergeTree('/clickhouse/tables/{shard}/${o.db}/${local}', '{replica}')`;
    const edge = table === 'edge_logs'
      ? `,\n  request_url Nullable(String) MATERIALIZED ${scalarAt(['request', 'url'])},\n  request_path Nullable(String) MATERIALIZED ${scalarAt(['request', 'path'])}`
      : '';
    const ttl = o.retentionDays === null ? '' : `\nTTL toDateTime(timestamp) + INTERVAL ${o.retentionDays} DAY`;
    statements.push(`CREATE TABLE IF NOT EXISTS ${db}.${local}${on} (
  id String,
  timestamp DateTime64(6, 'UTC'),
  event_message String DEFAULT '',
  project Nullable(String),
  metadata String DEFAULT '{}',
  project_key String MATERIALIZED ${PROJECT_KEY[table]}${edge},
  metadata_kinds Map(String, LowCardinality(String)) MATERIALIZED ${METADATA_KINDS},
  INDEX id_bloom id TYPE bloom_filter GRANULARITY 4
) ENGINE = ${engine}
PARTITION BY toDate(timestamp)
ORDER BY (project_key, timestamp, id)${ttl}
SETTINGS index_granularity = 1024, ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000`);
    // A store made before metadata_kinds: added, computed on read until parts are rewritten.
    statements.push(`ALTER TABLE ${db}.${local}${on} ADD COLUMN IF NOT EXISTS metadata_kinds Map(String, LowCardinality(String)) MATERIALIZED ${METADATA_KINDS} AFTER project_key`);
    if (o.cluster !== null) {
      statements.push(`CREATE TABLE IF NOT EXISTS ${db}.${table}${on} AS ${db}.${local} ENGINE = Distributed(${ident(o.cluster.name)}, ${db}, ${local}, cityHash64(id))`);
    }
  }
  return statements;
}

/** A ClickHouse identifier in backquotes. */
function ident(name: string): string {
  return `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
}
