-- usage.api-requests-count on ClickHouse (docs/clickhouse.md): the row of usage.api-requests-count.sql.
-- The window ends at a scalar subquery's now64(), evaluated once by the server the statement reaches.
with (select now64(6, 'UTC')) as anchor
select count() as count
from {db}.edge_logs t
where t.project_key = @project and t.timestamp > anchor - toIntervalHour(24)
