-- functions.combined-stats on ClickHouse (docs/clickhouse.md): the rows of functions.combined-stats.sql,
-- byte for byte (its header says what each column counts). The window ends at a scalar subquery's
-- now64(), evaluated once by the server the statement reaches.
with
  (select now64(6, 'UTC')) as anchor,
  multiIf(@interval = '15min', 900, @interval = '1hr', 3600, @interval = '3hr', 10800, 86400) as span_seconds,
  if(@interval = '1day', 'hour', 'minute') as unit,
facts as (
  select t.timestamp as timestamp, true as request,
    if(match(ifNull(multiIf(JSONType(t.metadata, 'response', 'status_code') = 'String', JSONExtractString(t.metadata, 'response', 'status_code'), JSONType(t.metadata, 'response', 'status_code') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'response', 'status_code'), NULL), ''), '^-?[0-9]{1,18}$'), toInt64OrNull(multiIf(JSONType(t.metadata, 'response', 'status_code') = 'String', JSONExtractString(t.metadata, 'response', 'status_code'), JSONType(t.metadata, 'response', 'status_code') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'response', 'status_code'), NULL)), NULL) as status,
    if(JSONType(t.metadata, 'execution_time_ms') IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(t.metadata, 'execution_time_ms'), NULL) as execution_time,
    CAST(NULL AS Nullable(String)) as level, CAST(NULL AS Nullable(Float64)) as cpu, CAST(NULL AS Nullable(Float64)) as memory,
    CAST(NULL AS Nullable(Float64)) as heap, CAST(NULL AS Nullable(Float64)) as external
  from {db}.function_edge_logs t
  where t.project_key = @project and multiIf(JSONType(t.metadata, 'function_id') = 'String', JSONExtractString(t.metadata, 'function_id'), JSONType(t.metadata, 'function_id') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'function_id'), NULL) = @function_id and t.timestamp > anchor - toIntervalSecond(span_seconds)
  union all
  select t.timestamp, false, NULL, NULL, ifNull(multiIf(JSONType(t.metadata, 'level') = 'String', JSONExtractString(t.metadata, 'level'), JSONType(t.metadata, 'level') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'level'), NULL), ''),
    if(JSONType(t.metadata, 'cpu_time_used') IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(t.metadata, 'cpu_time_used'), NULL),
    if(JSONType(t.metadata, 'memory_used', 'total') IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(t.metadata, 'memory_used', 'total'), NULL) / 1048576,
    if(JSONType(t.metadata, 'memory_used', 'heap') IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(t.metadata, 'memory_used', 'heap'), NULL) / 1048576,
    if(JSONType(t.metadata, 'memory_used', 'external') IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(t.metadata, 'memory_used', 'external'), NULL) / 1048576
  from {db}.function_logs t
  where t.project_key = @project and multiIf(JSONType(t.metadata, 'function_id') = 'String', JSONExtractString(t.metadata, 'function_id'), JSONType(t.metadata, 'function_id') IN ('Int64', 'UInt64', 'Double', 'Bool'), JSONExtractRaw(t.metadata, 'function_id'), NULL) = @function_id and t.timestamp > anchor - toIntervalSecond(span_seconds)
)
select
  formatDateTime(at, '%Y-%m-%dT%H:%i:%S.000000Z', 'UTC') as timestamp,
  countIf(f.request) as requests_count,
  countIf(f.status between 200 and 299) as success_count,
  countIf(f.status between 300 and 399) as redirect_count,
  countIf(f.status between 400 and 499) as client_err_count,
  countIf(f.status >= 500) as server_err_count,
  round(ifNull(avg(f.execution_time), 0), 3) as avg_execution_time,
  ifNull(max(f.execution_time), 0) as max_execution_time,
  countIf(not f.request) as log_count,
  countIf(not f.request and f.level not in ('error', 'fatal', 'warning', 'warn')) as log_info_count,
  countIf(f.level in ('warning', 'warn')) as log_warn_count,
  countIf(f.level in ('error', 'fatal')) as log_error_count,
  round(ifNull(avg(f.cpu), 0), 3) as avg_cpu_time_used,
  ifNull(max(f.cpu), 0) as max_cpu_time_used,
  round(ifNull(avg(f.memory), 0), 3) as avg_memory_used,
  round(ifNull(avg(f.heap), 0), 3) as avg_heap_memory_used,
  round(ifNull(avg(f.external), 0), 3) as avg_external_memory_used
from facts f
group by multiIf(unit = 'hour', toStartOfHour(f.timestamp), toStartOfMinute(f.timestamp)) as at
order by at
