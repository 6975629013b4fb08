-- usage.api-requests-count: Supabase Studio's project home asks it whether the project has had API
-- requests (served with COMPAT=logflare; docs/logflare-compat.md). One row: the project's edge_logs
-- rows (its API gateway requests, matched on the project as logs.all matches them) of the last 24
-- hours, counted through the (project, timestamp) index.
select count(*) as count
from edge_logs t
where t.project = @project and t.timestamp > now() - interval '24 hours'
