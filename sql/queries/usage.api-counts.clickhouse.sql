-- usage.api-counts on ClickHouse (docs/clickhouse.md): the rows of usage.api-counts.sql, byte for byte,
-- from raw rows (ClickHouse scans a week of one project's requests faster than PostgreSQL reads its
-- rollup). request_url and request_path are metadata.request's url and path, computed at insert
-- (src/store/clickhouse/schema.ts). The window is anchored by a scalar subquery: evaluated once by
-- the server the statement reaches, where now() on a Distributed table would be each shard's.
-- `project` is a regular expression in ClickHouse's dialect (RE2): one it cannot compile is a 400.
with
  (select now64(6, 'UTC')) as anchor,
  multiIf(@interval in ('hourly', 'minutely', '1hr'), 3600, @interval = '1day', 86400, 604800) as span_seconds,
  multiIf(@interval in ('minutely', '1hr'), 'minute', @interval in ('hourly', '1day'), 'hour', 'day') as bucket,
-- Every request of the window, one row each: what a caller's `sql` reads.
requests as (
  select e.timestamp as timestamp, e.request_path as path
  from {db}.edge_logs e
  where e.timestamp >= anchor - toIntervalSecond(span_seconds)
    and match(e.request_url, @project)
)
select
  formatDateTime(c.at, '%Y-%m-%dT%H:%i:%S.000000Z', 'UTC') as timestamp,
  c.rest as total_rest_requests,
  c.storage as total_storage_requests,
  c.auth as total_auth_requests,
  c.realtime as total_realtime_requests
from (
  select
    -- Grouped by the bucket's instant and written as text once per bucket, not once per row.
    multiIf(bucket = 'minute', toStartOfMinute(r.timestamp), bucket = 'hour', toStartOfHour(r.timestamp), toStartOfDay(r.timestamp)) as at,
    countIf(position(r.path, '/rest') > 0) as rest,
    countIf(position(r.path, '/storage') > 0) as storage,
    countIf(position(r.path, '/auth') > 0) as auth,
    countIf(position(r.path, '/realtime') > 0) as realtime
  from requests r
  group by at
) c
order by c.at
