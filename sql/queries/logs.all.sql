-- logs.all: log rows of one project within an optional time range (docs/stored-queries.md).
-- Nine sources, one CTE each, named after the table it reads. Inside its own body a CTE's name
-- still means the table (a non-recursive CTE cannot see itself); everywhere after, it means the
-- filtered CTE, which is what sandboxed caller SQL reads.
-- `identifier` is the row's project reference, the column Logflare's platform adds to every source
-- (Studio and the Supabase MCP server select and filter on it).
-- Rows of equal timestamps come in id order, newest-first like the rest (the same on every engine).
-- Absent or empty time bounds are bound as NULL; unnamed statements are planned with their
-- parameter values, so the IS NULL branches fold away and the (project, timestamp desc) index is used.
with
-- edge request logs
edge_logs as (
  select t.id, t.timestamp, t.event_message, t.metadata, t.project as identifier
  from edge_logs t
  where t.project = @project
    and (@iso_timestamp_start::timestamptz is null or t.timestamp > @iso_timestamp_start::timestamptz)
    and (@iso_timestamp_end::timestamptz is null or t.timestamp <= @iso_timestamp_end::timestamptz)
  order by t.timestamp desc, t.id desc
),
-- database logs
postgres_logs as (
  select t.id, t.timestamp, t.event_message, t.metadata, t.project as identifier
  from postgres_logs t
  where t.project = @project
    and (@iso_timestamp_start::timestamptz is null or t.timestamp > @iso_timestamp_start::timestamptz)
    and (@iso_timestamp_end::timestamptz is null or t.timestamp <= @iso_timestamp_end::timestamptz)
  order by t.timestamp desc, t.id desc
),
-- function edge logs
function_edge_logs as (
  select t.id, t.timestamp, t.event_message, t.metadata, t.metadata->>'project_ref' as identifier
  from function_edge_logs t
  where t.metadata->>'project_ref' = @project
    and (@iso_timestamp_start::timestamptz is null or t.timestamp > @iso_timestamp_start::timestamptz)
    and (@iso_timestamp_end::timestamptz is null or t.timestamp <= @iso_timestamp_end::timestamptz)
  order by t.timestamp desc, t.id desc
),
-- function logs
function_logs as (
  select t.id, t.timestamp, t.event_message, t.metadata, t.metadata->>'project_ref' as identifier
  from function_logs t
  where t.metadata->>'project_ref' = @project
    and (@iso_timestamp_start::timestamptz is null or t.timestamp > @iso_timestamp_start::timestamptz)
    and (@iso_timestamp_end::timestamptz is null or t.timestamp <= @iso_timestamp_end::timestamptz)
  order by t.timestamp desc, t.id desc
),
-- auth logs
auth_logs as (
  select t.id, t.timestamp, t.event_message, t.metadata, t.project as identifier
  from auth_logs t
  where t.project = @project
    and (@iso_timestamp_start::timestamptz is null or t.timestamp > @iso_timestamp_start::timestamptz)
    and (@iso_timestamp_end::timestamptz is null or t.timestamp <= @iso_timestamp_end::timestamptz)
  order by t.timestamp desc, t.id desc
),
-- realtime logs
realtime_logs as (
  select t.id, t.timestamp, t.event_message, t.metadata, t.metadata->>'project' as identifier
  from realtime_logs t
  where t.metadata->>'project' = @project
    and (@iso_timestamp_start::timestamptz is null or t.timestamp > @iso_timestamp_start::timestamptz)
    and (@iso_timestamp_end::timestamptz is null or t.timestamp <= @iso_timestamp_end::timestamptz)
  order by t.timestamp desc, t.id desc
),
-- storage logs
storage_logs as (
  select t.id, t.timestamp, t.event_message, t.metadata, t.metadata->>'project' as identifier
  from storage_logs t
  where t.metadata->>'project' = @project
    and (@iso_timestamp_start::timestamptz is null or t.timestamp > @iso_timestamp_start::timestamptz)
    and (@iso_timestamp_end::timestamptz is null or t.timestamp <= @iso_timestamp_end::timestamptz)
  order by t.timestamp desc, t.id desc
),
-- REST API logs
postgrest_logs as (
  select t.id, t.timestamp, t.event_message, t.metadata, t.project as identifier
  from postgrest_logs t
  where t.project = @project
    and (@iso_timestamp_start::timestamptz is null or t.timestamp > @iso_timestamp_start::timestamptz)
    and (@iso_timestamp_end::timestamptz is null or t.timestamp <= @iso_timestamp_end::timestamptz)
  order by t.timestamp desc, t.id desc
),
-- connection-pooler logs
pgbouncer_logs as (
  select t.id, t.timestamp, t.event_message, t.metadata, t.project as identifier
  from pgbouncer_logs t
  where t.project = @project
    and (@iso_timestamp_start::timestamptz is null or t.timestamp > @iso_timestamp_start::timestamptz)
    and (@iso_timestamp_end::timestamptz is null or t.timestamp <= @iso_timestamp_end::timestamptz)
  order by t.timestamp desc, t.id desc
)
-- The edge_logs CTE is already newest first (docs/stored-queries.md) and the final selection takes its first
-- 100 rows (2.5.4). No second ORDER BY here: with one, PostgreSQL plans the CTE for full retrieval
-- (a subquery under an outer sort is not told about the LIMIT), and on small or mid-sized tables
-- picks a seq scan plus sort of every row of the project (15-20 ms at 10k rows) over the
-- (project, timestamp desc) index scan that stops after 100 rows (~0.2 ms at any size).
select id, timestamp, event_message, metadata
from edge_logs
limit 100
