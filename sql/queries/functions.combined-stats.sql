-- functions.combined-stats: Supabase Studio's Edge Function overview charts (served with
-- COMPAT=logflare; docs/logflare-compat.md). One row per bucket of the window ending now that holds a
-- row of the function (its function_edge_logs requests or its function_logs worker logs):
-- - invocations by response status class (2xx success, 3xx redirect, 4xx client error, 5xx server
--   error; a request without a numeric status is counted in requests_count only), and the average
--   and longest metadata.execution_time_ms;
-- - worker logs by level (error and fatal, warning and warn, the rest info), and the average and
--   largest metadata.cpu_time_used (ms) and average metadata.memory_used total / heap / external,
--   bytes as MB, over the logs that carry them (the edge runtime's shutdown events).
-- An average or maximum over no such rows is 0, the value Studio's charts give a missing bucket.
with
spec as not materialized (
  select
    case @interval when '15min' then interval '15 minutes' when '1hr' then interval '1 hour' when '3hr' then interval '3 hours' else interval '1 day' end as span,
    case @interval when '1day' then 'hour' else 'minute' end as unit
),
facts as (
  select t.timestamp, true as request,
    case when t.metadata->'response'->>'status_code' ~ '^-?[0-9]{1,18}$' then (t.metadata->'response'->>'status_code')::bigint end as status,
    case when jsonb_typeof(t.metadata->'execution_time_ms') = 'number' then (t.metadata->>'execution_time_ms')::float8 end as execution_time,
    null::text as level, null::float8 as cpu, null::float8 as memory, null::float8 as heap, null::float8 as external
  from function_edge_logs t
  cross join spec s
  where t.metadata->>'project_ref' = @project and t.metadata->>'function_id' = @function_id and t.timestamp > now() - s.span
  union all
  select t.timestamp, false, null, null, coalesce(t.metadata->>'level', ''),
    case when jsonb_typeof(t.metadata->'cpu_time_used') = 'number' then (t.metadata->>'cpu_time_used')::float8 end,
    case when jsonb_typeof(t.metadata->'memory_used'->'total') = 'number' then (t.metadata->'memory_used'->>'total')::float8 / 1048576 end,
    case when jsonb_typeof(t.metadata->'memory_used'->'heap') = 'number' then (t.metadata->'memory_used'->>'heap')::float8 / 1048576 end,
    case when jsonb_typeof(t.metadata->'memory_used'->'external') = 'number' then (t.metadata->'memory_used'->>'external')::float8 / 1048576 end
  from function_logs t
  cross join spec s
  where t.metadata->>'project_ref' = @project and t.metadata->>'function_id' = @function_id and t.timestamp > now() - s.span
)
select
  to_char(date_trunc(s.unit, f.timestamp, 'UTC') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as timestamp,
  count(*) filter (where f.request) as requests_count,
  count(*) filter (where f.status between 200 and 299) as success_count,
  count(*) filter (where f.status between 300 and 399) as redirect_count,
  count(*) filter (where f.status between 400 and 499) as client_err_count,
  count(*) filter (where f.status >= 500) as server_err_count,
  round(coalesce(avg(f.execution_time), 0)::numeric, 3)::float8 as avg_execution_time,
  coalesce(max(f.execution_time), 0) as max_execution_time,
  count(*) filter (where not f.request) as log_count,
  count(*) filter (where not f.request and f.level not in ('error', 'fatal', 'warning', 'warn')) as log_info_count,
  count(*) filter (where f.level in ('warning', 'warn')) as log_warn_count,
  count(*) filter (where f.level in ('error', 'fatal')) as log_error_count,
  round(coalesce(avg(f.cpu), 0)::numeric, 3)::float8 as avg_cpu_time_used,
  coalesce(max(f.cpu), 0) as max_cpu_time_used,
  round(coalesce(avg(f.memory), 0)::numeric, 3)::float8 as avg_memory_used,
  round(coalesce(avg(f.heap), 0)::numeric, 3)::float8 as avg_heap_memory_used,
  round(coalesce(avg(f.external), 0)::numeric, 3)::float8 as avg_external_memory_used
from facts f
cross join spec s
group by date_trunc(s.unit, f.timestamp, 'UTC')
order by date_trunc(s.unit, f.timestamp, 'UTC')
