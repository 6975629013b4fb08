-- usage.api-counts: requests per bucket to four API areas for one project (docs/stored-queries.md).
-- The window is anchored at now(): one value per statement, so every row sees the same start.
-- date_trunc's third argument pins buckets to UTC whatever the session time zone.
-- count(*) filter (...) is never null, so the sums need no coalesce.
-- The bucket is written as RFC 3339 text by PostgreSQL itself: the same bytes the service writes for
-- a timestamp, and a string in Logflare's response shape too (Studio parses it as a date string).
-- 1hr, 1day and 7day are the intervals Supabase Studio sends (accepted with COMPAT=logflare).
-- window_spec is NOT MATERIALIZED: inlined, its CASEs fold to constants when the statement is
-- planned with the parameter values, so `timestamp >= now() - '1 hour'` can use edge_logs
-- (timestamp) and the bucket is a constant the planner can estimate (see sql/schema.sql). As a
-- materialised CTE (the default for one referenced twice) the window was a join filter: every
-- interval scanned the whole table, and daily sorted whole rows to disk.
with
window_spec as not materialized (
  select
    case @interval
      when 'hourly' then interval '1 hour'
      when 'daily' then interval '7 days'
      when 'minutely' then interval '60 minutes'
      when '1hr' then interval '60 minutes'
      when '1day' then interval '24 hours'
      when '7day' then interval '7 days'
    end as span,
    case @interval
      when 'hourly' then 'hour'
      when 'daily' then 'day'
      when 'minutely' then 'minute'
      when '1hr' then 'minute'
      when '1day' then 'hour'
      when '7day' then 'day'
    end as bucket
),
requests as (
  select e.timestamp, e.metadata->'request'->>'path' as path
  from edge_logs e
  cross join window_spec w
  where e.timestamp >= now() - w.span
    and e.metadata->'request'->>'url' ~ @project
)
select
  to_char(date_trunc(w.bucket, r.timestamp, 'UTC') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as timestamp,
  count(*) filter (where strpos(r.path, '/rest') > 0) as total_rest_requests,
  count(*) filter (where strpos(r.path, '/storage') > 0) as total_storage_requests,
  count(*) filter (where strpos(r.path, '/auth') > 0) as total_auth_requests,
  count(*) filter (where strpos(r.path, '/realtime') > 0) as total_realtime_requests
from requests r
cross join window_spec w
group by 1
order by 1
