-- logs.all on ClickHouse (docs/clickhouse.md): the CTEs, columns and rows of logs.all.sql, byte for
-- byte. Tables are qualified with the database ({db}, LOG_SCHEMA): inside its own body a ClickHouse
-- CTE named like a table means itself. project_key is each table's project as SPEC 2.5.2 defines it,
-- computed at insert (src/store/clickhouse/schema.ts; NUL where a row has none, which no parameter
-- can equal); the identifier of a source whose project lives in metadata is that value.
-- metadata_kinds (each top-level key's JSON type, computed at insert) is not a caller-visible
-- column: the printer of caller sql reads it for jsonb_typeof(metadata -> 'key') (docs/clickhouse.md).
with
-- edge request logs
edge_logs as (
  select t.id as id, t.timestamp as timestamp, t.event_message as event_message, t.metadata as metadata, t.metadata_kinds as metadata_kinds, t.project as identifier
  from {db}.edge_logs t
  where t.project_key = @project
    and (@iso_timestamp_start is null or t.timestamp > @iso_timestamp_start)
    and (@iso_timestamp_end is null or t.timestamp <= @iso_timestamp_end)
  order by t.timestamp desc, t.id desc
),
-- database logs
postgres_logs as (
  select t.id as id, t.timestamp as timestamp, t.event_message as event_message, t.metadata as metadata, t.metadata_kinds as metadata_kinds, t.project as identifier
  from {db}.postgres_logs t
  where t.project_key = @project
    and (@iso_timestamp_start is null or t.timestamp > @iso_timestamp_start)
    and (@iso_timestamp_end is null or t.timestamp <= @iso_timestamp_end)
  order by t.timestamp desc, t.id desc
),
-- function edge logs
function_edge_logs as (
  select t.id as id, t.timestamp as timestamp, t.event_message as event_message, t.metadata as metadata, t.metadata_kinds as metadata_kinds, nullIf(t.project_key, char(0)) as identifier
  from {db}.function_edge_logs t
  where t.project_key = @project
    and (@iso_timestamp_start is null or t.timestamp > @iso_timestamp_start)
    and (@iso_timestamp_end is null or t.timestamp <= @iso_timestamp_end)
  order by t.timestamp desc, t.id desc
),
-- function logs
function_logs as (
  select t.id as id, t.timestamp as timestamp, t.event_message as event_message, t.metadata as metadata, t.metadata_kinds as metadata_kinds, nullIf(t.project_key, char(0)) as identifier
  from {db}.function_logs t
  where t.project_key = @project
    and (@iso_timestamp_start is null or t.timestamp > @iso_timestamp_start)
    and (@iso_timestamp_end is null or t.timestamp <= @iso_timestamp_end)
  order by t.timestamp desc, t.id desc
),
-- auth logs
auth_logs as (
  select t.id as id, t.timestamp as timestamp, t.event_message as event_message, t.metadata as metadata, t.metadata_kinds as metadata_kinds, t.project as identifier
  from {db}.auth_logs t
  where t.project_key = @project
    and (@iso_timestamp_start is null or t.timestamp > @iso_timestamp_start)
    and (@iso_timestamp_end is null or t.timestamp <= @iso_timestamp_end)
  order by t.timestamp desc, t.id desc
),
-- realtime logs
realtime_logs as (
  select t.id as id, t.timestamp as timestamp, t.event_message as event_message, t.metadata as metadata, t.metadata_kinds as metadata_kinds, nullIf(t.project_key, char(0)) as identifier
  from {db}.realtime_logs t
  where t.project_key = @project
    and (@iso_timestamp_start is null or t.timestamp > @iso_timestamp_start)
    and (@iso_timestamp_end is null or t.timestamp <= @iso_timestamp_end)
  order by t.timestamp desc, t.id desc
),
-- storage logs
storage_logs as (
  select t.id as id, t.timestamp as timestamp, t.event_message as event_message, t.metadata as metadata, t.metadata_kinds as metadata_kinds, nullIf(t.project_key, char(0)) as identifier
  from {db}.storage_logs t
  where t.project_key = @project
    and (@iso_timestamp_start is null or t.timestamp > @iso_timestamp_start)
    and (@iso_timestamp_end is null or t.timestamp <= @iso_timestamp_end)
  order by t.timestamp desc, t.id desc
),
-- REST API logs
postgrest_logs as (
  select t.id as id, t.timestamp as timestamp, t.event_message as event_message, t.metadata as metadata, t.metadata_kinds as metadata_kinds, t.project as identifier
  from {db}.postgrest_logs t
  where t.project_key = @project
    and (@iso_timestamp_start is null or t.timestamp > @iso_timestamp_start)
    and (@iso_timestamp_end is null or t.timestamp <= @iso_timestamp_end)
  order by t.timestamp desc, t.id desc
),
-- connection-pooler logs
pgbouncer_logs as (
  select t.id as id, t.timestamp as timestamp, t.event_message as event_message, t.metadata as metadata, t.metadata_kinds as metadata_kinds, t.project as identifier
  from {db}.pgbouncer_logs t
  where t.project_key = @project
    and (@iso_timestamp_start is null or t.timestamp > @iso_timestamp_start)
    and (@iso_timestamp_end is null or t.timestamp <= @iso_timestamp_end)
  order by t.timestamp desc, t.id desc
)
-- Unlike PostgreSQL, ClickHouse keeps reading in key order with the LIMIT pushed into the sort, and a
-- Distributed table needs the final ORDER BY to merge the shards' rows.
select id, timestamp, event_message, metadata
from edge_logs
order by timestamp desc, id desc
limit 100
