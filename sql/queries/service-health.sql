-- service-health: Supabase Studio's service health (served with COMPAT=logflare; docs/logflare-compat.md).
-- One row per bucket of (iso_timestamp_start, iso_timestamp_end] holding a row of any source; per
-- source {ok, warning, error, total}, total = ok + warning + error. A row is an error, else a
-- warning, else ok, by what Studio's own log charts count (Logs.utils.ts getErrorCondition and
-- getWarningCondition): HTTP 5xx / 4xx for request logs, the level or severity for the others.
-- supavisor_logs and etl_replication_logs have no table in this store: always zero.
-- A status is a number when its text is an integer (Studio's SAFE_CAST(... AS INT64)); anything else
-- counts as no status.
with
classified as (
  select 'edge_logs' as source, t.timestamp,
    case when s.status >= 500 then 2 when s.status >= 400 then 1 else 0 end as class
  from edge_logs t
  cross join lateral (select case when t.metadata->'response'->>'status_code' ~ '^-?[0-9]{1,18}$' then (t.metadata->'response'->>'status_code')::bigint end as status) s
  where t.project = @project and t.timestamp > @iso_timestamp_start and t.timestamp <= @iso_timestamp_end
  union all
  select 'function_edge_logs', t.timestamp,
    case when s.status >= 500 then 2 when s.status >= 400 then 1 else 0 end
  from function_edge_logs t
  cross join lateral (select case when t.metadata->'response'->>'status_code' ~ '^-?[0-9]{1,18}$' then (t.metadata->'response'->>'status_code')::bigint end as status) s
  where t.metadata->>'project_ref' = @project and t.timestamp > @iso_timestamp_start and t.timestamp <= @iso_timestamp_end
  union all
  select 'postgrest_logs', t.timestamp,
    case when s.status >= 500 then 2 when s.status >= 400 then 1 else 0 end
  from postgrest_logs t
  cross join lateral (select case when t.metadata->>'status_code' ~ '^-?[0-9]{1,18}$' then (t.metadata->>'status_code')::bigint end as status) s
  where t.project = @project and t.timestamp > @iso_timestamp_start and t.timestamp <= @iso_timestamp_end
  union all
  select 'postgres_logs', t.timestamp,
    case when t.metadata->'parsed'->>'error_severity' in ('ERROR', 'FATAL', 'PANIC') then 2
      when t.metadata->'parsed'->>'error_severity' = 'WARNING' then 1 else 0 end
  from postgres_logs t
  where t.project = @project and t.timestamp > @iso_timestamp_start and t.timestamp <= @iso_timestamp_end
  union all
  select 'auth_logs', t.timestamp,
    case when t.metadata->>'level' in ('error', 'fatal') or s.status >= 500 then 2
      when t.metadata->>'level' = 'warning' or s.status >= 400 then 1 else 0 end
  from auth_logs t
  cross join lateral (select case when t.metadata->>'status' ~ '^-?[0-9]{1,18}$' then (t.metadata->>'status')::bigint end as status) s
  where t.project = @project and t.timestamp > @iso_timestamp_start and t.timestamp <= @iso_timestamp_end
  union all
  select 'storage_logs', t.timestamp,
    case when t.metadata->>'level' in ('error', 'fatal') or s.status >= 500 then 2
      when t.metadata->>'level' in ('warning', 'warn') or s.status >= 400 then 1 else 0 end
  from storage_logs t
  cross join lateral (select case when t.metadata->'res'->>'statusCode' ~ '^-?[0-9]{1,18}$' then (t.metadata->'res'->>'statusCode')::bigint end as status) s
  where t.metadata->>'project' = @project and t.timestamp > @iso_timestamp_start and t.timestamp <= @iso_timestamp_end
  union all
  select 'realtime_logs', t.timestamp,
    case when t.metadata->>'level' in ('error', 'fatal') then 2 when t.metadata->>'level' in ('warning', 'warn') then 1 else 0 end
  from realtime_logs t
  where t.metadata->>'project' = @project and t.timestamp > @iso_timestamp_start and t.timestamp <= @iso_timestamp_end
  union all
  select 'function_logs', t.timestamp,
    case when t.metadata->>'level' in ('error', 'fatal') then 2 when t.metadata->>'level' = 'warning' then 1 else 0 end
  from function_logs t
  where t.metadata->>'project_ref' = @project and t.timestamp > @iso_timestamp_start and t.timestamp <= @iso_timestamp_end
),
bucketed as (
  select date_trunc(@granularity, c.timestamp, 'UTC') as at, c.source, c.class
  from classified c
)
-- Each source's counts as JSON text (a struct column: sent as a plain object), keys in the order
-- PostgreSQL's jsonb prints them (shorter keys first), which the ClickHouse statement writes too.
select
  to_char(b.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as timestamp,
  jsonb_build_object('ok', count(*) filter (where b.source = 'postgres_logs' and b.class = 0), 'error', count(*) filter (where b.source = 'postgres_logs' and b.class = 2), 'total', count(*) filter (where b.source = 'postgres_logs'), 'warning', count(*) filter (where b.source = 'postgres_logs' and b.class = 1))::text as postgres_logs,
  jsonb_build_object('ok', count(*) filter (where b.source = 'auth_logs' and b.class = 0), 'error', count(*) filter (where b.source = 'auth_logs' and b.class = 2), 'total', count(*) filter (where b.source = 'auth_logs'), 'warning', count(*) filter (where b.source = 'auth_logs' and b.class = 1))::text as auth_logs,
  jsonb_build_object('ok', count(*) filter (where b.source = 'function_edge_logs' and b.class = 0), 'error', count(*) filter (where b.source = 'function_edge_logs' and b.class = 2), 'total', count(*) filter (where b.source = 'function_edge_logs'), 'warning', count(*) filter (where b.source = 'function_edge_logs' and b.class = 1))::text as function_edge_logs,
  jsonb_build_object('ok', count(*) filter (where b.source = 'storage_logs' and b.class = 0), 'error', count(*) filter (where b.source = 'storage_logs' and b.class = 2), 'total', count(*) filter (where b.source = 'storage_logs'), 'warning', count(*) filter (where b.source = 'storage_logs' and b.class = 1))::text as storage_logs,
  jsonb_build_object('ok', count(*) filter (where b.source = 'realtime_logs' and b.class = 0), 'error', count(*) filter (where b.source = 'realtime_logs' and b.class = 2), 'total', count(*) filter (where b.source = 'realtime_logs'), 'warning', count(*) filter (where b.source = 'realtime_logs' and b.class = 1))::text as realtime_logs,
  jsonb_build_object('ok', count(*) filter (where b.source = 'postgrest_logs' and b.class = 0), 'error', count(*) filter (where b.source = 'postgrest_logs' and b.class = 2), 'total', count(*) filter (where b.source = 'postgrest_logs'), 'warning', count(*) filter (where b.source = 'postgrest_logs' and b.class = 1))::text as postgrest_logs,
  jsonb_build_object('ok', count(*) filter (where b.source = 'edge_logs' and b.class = 0), 'error', count(*) filter (where b.source = 'edge_logs' and b.class = 2), 'total', count(*) filter (where b.source = 'edge_logs'), 'warning', count(*) filter (where b.source = 'edge_logs' and b.class = 1))::text as edge_logs,
  jsonb_build_object('ok', 0, 'error', 0, 'total', 0, 'warning', 0)::text as supavisor_logs,
  jsonb_build_object('ok', count(*) filter (where b.source = 'function_logs' and b.class = 0), 'error', count(*) filter (where b.source = 'function_logs' and b.class = 2), 'total', count(*) filter (where b.source = 'function_logs'), 'warning', count(*) filter (where b.source = 'function_logs' and b.class = 1))::text as function_logs,
  jsonb_build_object('ok', 0, 'error', 0, 'total', 0, 'warning', 0)::text as etl_replication_logs
from bucketed b
group by b.at
order by b.at
