-- project.metrics: Supabase Studio's project home charts (served with COMPAT=logflare;
-- docs/logflare-compat.md). Rows (timestamp in unix microseconds, service, time_window, counts) for
-- each bucket holding a row of the service: `current` is (start, end], `previous` the window of the
-- same length before it. A row is an error, else a warning, else ok, by the rules of
-- service-health.sql (its header); the tests hold both to one reference (test/support/studio-health.ts).
-- Services are Studio's: db postgres_logs, auth auth_logs, functions function_edge_logs, storage
-- storage_logs, realtime realtime_logs.
with
spec as not materialized (
  select
    case @interval when '1hr' then interval '1 hour' when '1day' then interval '1 day' else interval '7 days' end as span,
    case @interval when '1hr' then 'minute' when '1day' then 'hour' else 'day' end as unit,
    coalesce(@iso_timestamp_end, now()) as stop
),
windows as not materialized (
  select s.unit, coalesce(@iso_timestamp_start, s.stop - s.span) as start, s.stop
  from spec s
),
bounds as not materialized (
  select w.unit, w.start, w.stop, w.start - (w.stop - w.start) as earliest
  from windows w
),
-- The window and the one before it: (earliest, stop].
classified as (
  select 'function_edge_logs' as source, t.timestamp,
    case when s.status >= 500 then 2 when s.status >= 400 then 1 else 0 end as class
  from function_edge_logs t
  cross join lateral (select case when t.metadata->'response'->>'status_code' ~ '^-?[0-9]{1,18}$' then (t.metadata->'response'->>'status_code')::bigint end as status) s
  cross join bounds b
  where t.metadata->>'project_ref' = @project and t.timestamp > b.earliest and t.timestamp <= b.stop
  union all
  select 'postgres_logs', t.timestamp,
    case when t.metadata->'parsed'->>'error_severity' in ('ERROR', 'FATAL', 'PANIC') then 2
      when t.metadata->'parsed'->>'error_severity' = 'WARNING' then 1 else 0 end
  from postgres_logs t
  cross join bounds b
  where t.project = @project and t.timestamp > b.earliest and t.timestamp <= b.stop
  union all
  select 'auth_logs', t.timestamp,
    case when t.metadata->>'level' in ('error', 'fatal') or s.status >= 500 then 2
      when t.metadata->>'level' = 'warning' or s.status >= 400 then 1 else 0 end
  from auth_logs t
  cross join lateral (select case when t.metadata->>'status' ~ '^-?[0-9]{1,18}$' then (t.metadata->>'status')::bigint end as status) s
  cross join bounds b
  where t.project = @project and t.timestamp > b.earliest and t.timestamp <= b.stop
  union all
  select 'storage_logs', t.timestamp,
    case when t.metadata->>'level' in ('error', 'fatal') or s.status >= 500 then 2
      when t.metadata->>'level' in ('warning', 'warn') or s.status >= 400 then 1 else 0 end
  from storage_logs t
  cross join lateral (select case when t.metadata->'res'->>'statusCode' ~ '^-?[0-9]{1,18}$' then (t.metadata->'res'->>'statusCode')::bigint end as status) s
  cross join bounds b
  where t.metadata->>'project' = @project and t.timestamp > b.earliest and t.timestamp <= b.stop
  union all
  select 'realtime_logs', t.timestamp,
    case when t.metadata->>'level' in ('error', 'fatal') then 2 when t.metadata->>'level' in ('warning', 'warn') then 1 else 0 end
  from realtime_logs t
  cross join bounds b
  where t.metadata->>'project' = @project and t.timestamp > b.earliest and t.timestamp <= b.stop
)
select
  (extract(epoch from date_trunc(b.unit, c.timestamp, 'UTC')) * 1000000)::bigint as timestamp,
  case c.source when 'postgres_logs' then 'db' when 'auth_logs' then 'auth' when 'function_edge_logs' then 'functions'
    when 'storage_logs' then 'storage' else 'realtime' end as service,
  case when c.timestamp > b.start then 'current' else 'previous' end as time_window,
  count(*) filter (where c.class = 0) as ok_count,
  count(*) filter (where c.class = 1) as warning_count,
  count(*) filter (where c.class = 2) as error_count
from classified c
cross join bounds b
group by 1, 2, 3
order by 2, 3, 1
