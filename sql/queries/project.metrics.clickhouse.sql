-- project.metrics on ClickHouse (docs/clickhouse.md): the rows of project.metrics.sql, byte for byte.
-- The window is anchored by a scalar subquery, evaluated once by the server the statement reaches
-- (now() on a Distributed table would be each shard's).
with
  (select now64(6, 'UTC')) as anchor,
  multiIf(@interval = '1hr', 3600, @interval = '1day', 86400, 604800) as span_seconds,
  multiIf(@interval = '1hr', 'minute', @interval = '1day', 'hour', 'day') as unit,
  ifNull(@iso_timestamp_end, anchor) as stop,
  ifNull(@iso_timestamp_start, stop - toIntervalSecond(span_seconds)) as start,
  start - toIntervalMicrosecond(dateDiff('microsecond', start, stop)) as earliest,
-- The window and the one before it: (earliest, stop].
classified as (
  select 'function_edge_logs' as source, t.timestamp as timestamp,
    multiIf(if(match(ifNull(multiIf(JSONType(t.metadata, 'response', 'status_code') = 'String', JSONExtractString(t.metadata, 'response', 'status_code'), JSONType(t.metadata, 'response', 'status_code') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'response', 'status_code'), NULL), ''), '^-?[0-9]{1,18}$'), toInt64OrNull(multiIf(JSONType(t.metadata, 'response', 'status_code') = 'String', JSONExtractString(t.metadata, 'response', 'status_code'), JSONType(t.metadata, 'response', 'status_code') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'response', 'status_code'), NULL)), NULL) >= 500, 2, if(match(ifNull(multiIf(JSONType(t.metadata, 'response', 'status_code') = 'String', JSONExtractString(t.metadata, 'response', 'status_code'), JSONType(t.metadata, 'response', 'status_code') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'response', 'status_code'), NULL), ''), '^-?[0-9]{1,18}$'), toInt64OrNull(multiIf(JSONType(t.metadata, 'response', 'status_code') = 'String', JSONExtractString(t.metadata, 'response', 'status_code'), JSONType(t.metadata, 'response', 'status_code') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'response', 'status_code'), NULL)), NULL) >= 400, 1, 0) as class
  from {db}.function_edge_logs t
  where t.project_key = @project and t.timestamp > earliest and t.timestamp <= stop
  union all
  select 'postgres_logs' as source, t.timestamp as timestamp,
    multiIf(multiIf(JSONType(t.metadata, 'parsed', 'error_severity') = 'String', JSONExtractString(t.metadata, 'parsed', 'error_severity'), JSONType(t.metadata, 'parsed', 'error_severity') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'parsed', 'error_severity'), NULL) IN ('ERROR', 'FATAL', 'PANIC'), 2, multiIf(JSONType(t.metadata, 'parsed', 'error_severity') = 'String', JSONExtractString(t.metadata, 'parsed', 'error_severity'), JSONType(t.metadata, 'parsed', 'error_severity') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'parsed', 'error_severity'), NULL) = 'WARNING', 1, 0) as class
  from {db}.postgres_logs t
  where t.project_key = @project and t.timestamp > earliest and t.timestamp <= stop
  union all
  select 'auth_logs' as source, t.timestamp as timestamp,
    multiIf(multiIf(JSONType(t.metadata, 'level') = 'String', JSONExtractString(t.metadata, 'level'), JSONType(t.metadata, 'level') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'level'), NULL) IN ('error', 'fatal') OR if(match(ifNull(multiIf(JSONType(t.metadata, 'status') = 'String', JSONExtractString(t.metadata, 'status'), JSONType(t.metadata, 'status') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'status'), NULL), ''), '^-?[0-9]{1,18}$'), toInt64OrNull(multiIf(JSONType(t.metadata, 'status') = 'String', JSONExtractString(t.metadata, 'status'), JSONType(t.metadata, 'status') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'status'), NULL)), NULL) >= 500, 2, multiIf(JSONType(t.metadata, 'level') = 'String', JSONExtractString(t.metadata, 'level'), JSONType(t.metadata, 'level') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'level'), NULL) IN ('warning') OR if(match(ifNull(multiIf(JSONType(t.metadata, 'status') = 'String', JSONExtractString(t.metadata, 'status'), JSONType(t.metadata, 'status') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'status'), NULL), ''), '^-?[0-9]{1,18}$'), toInt64OrNull(multiIf(JSONType(t.metadata, 'status') = 'String', JSONExtractString(t.metadata, 'status'), JSONType(t.metadata, 'status') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'status'), NULL)), NULL) >= 400, 1, 0) as class
  from {db}.auth_logs t
  where t.project_key = @project and t.timestamp > earliest and t.timestamp <= stop
  union all
  select 'storage_logs' as source, t.timestamp as timestamp,
    multiIf(multiIf(JSONType(t.metadata, 'level') = 'String', JSONExtractString(t.metadata, 'level'), JSONType(t.metadata, 'level') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'level'), NULL) IN ('error', 'fatal') OR if(match(ifNull(multiIf(JSONType(t.metadata, 'res', 'statusCode') = 'String', JSONExtractString(t.metadata, 'res', 'statusCode'), JSONType(t.metadata, 'res', 'statusCode') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'res', 'statusCode'), NULL), ''), '^-?[0-9]{1,18}$'), toInt64OrNull(multiIf(JSONType(t.metadata, 'res', 'statusCode') = 'String', JSONExtractString(t.metadata, 'res', 'statusCode'), JSONType(t.metadata, 'res', 'statusCode') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'res', 'statusCode'), NULL)), NULL) >= 500, 2, multiIf(JSONType(t.metadata, 'level') = 'String', JSONExtractString(t.metadata, 'level'), JSONType(t.metadata, 'level') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'level'), NULL) IN ('warning', 'warn') OR if(match(ifNull(multiIf(JSONType(t.metadata, 'res', 'statusCode') = 'String', JSONExtractString(t.metadata, 'res', 'statusCode'), JSONType(t.metadata, 'res', 'statusCode') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'res', 'statusCode'), NULL), ''), '^-?[0-9]{1,18}$'), toInt64OrNull(multiIf(JSONType(t.metadata, 'res', 'statusCode') = 'String', JSONExtractString(t.metadata, 'res', 'statusCode'), JSONType(t.metadata, 'res', 'statusCode') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'res', 'statusCode'), NULL)), NULL) >= 400, 1, 0) as class
  from {db}.storage_logs t
  where t.project_key = @project and t.timestamp > earliest and t.timestamp <= stop
  union all
  select 'realtime_logs' as source, t.timestamp as timestamp,
    multiIf(multiIf(JSONType(t.metadata, 'level') = 'String', JSONExtractString(t.metadata, 'level'), JSONType(t.metadata, 'level') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'level'), NULL) IN ('error', 'fatal'), 2, multiIf(JSONType(t.metadata, 'level') = 'String', JSONExtractString(t.metadata, 'level'), JSONType(t.metadata, 'level') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'level'), NULL) IN ('warning', 'warn'), 1, 0) as class
  from {db}.realtime_logs t
  where t.project_key = @project and t.timestamp > earliest and t.timestamp <= stop
)
select
  b.bucket as timestamp,
  b.service as service,
  b.time_window as time_window,
  countIf(b.class = 0) as ok_count,
  countIf(b.class = 1) as warning_count,
  countIf(b.class = 2) as error_count
from (
  -- Named apart from the rows' own timestamp, which a GROUP BY on `timestamp` would mean.
  select
    toUnixTimestamp64Micro(toDateTime64(multiIf(unit = 'minute', toStartOfMinute(c.timestamp), unit = 'hour', toStartOfHour(c.timestamp), toStartOfDay(c.timestamp)), 6, 'UTC')) as bucket,
    multiIf(c.source = 'postgres_logs', 'db', c.source = 'auth_logs', 'auth', c.source = 'function_edge_logs', 'functions', c.source = 'storage_logs', 'storage', 'realtime') as service,
    if(c.timestamp > start, 'current', 'previous') as time_window,
    c.class as class
  from classified c
) b
group by b.bucket, b.service, b.time_window
order by service, time_window, timestamp
