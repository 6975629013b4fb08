-- usage.api-counts: requests per bucket to four API areas for one project (docs/stored-queries.md).
-- The window is anchored at now(): one value per statement, so every row sees the same start.
-- date_trunc's third argument pins buckets to UTC whatever the session time zone.
-- The bucket is written as RFC 3339 text by PostgreSQL itself: the same bytes the service writes for
-- a timestamp, and a string in Logflare's response shape too (Studio parses it as a date string).
-- 1hr, 1day and 7day are the intervals Supabase Studio sends (accepted with COMPAT=logflare).
-- window_spec is NOT MATERIALIZED: inlined, its CASEs fold to constants when the statement is
-- planned with the parameter values, so the tiers below that an interval does not use are never
-- run, and the bounds are ranges the indexes of edge_logs (timestamp) and edge_request_counts
-- (grain, bucket, url_id) can use (see sql/schema.sql).
--
-- The window [start, ∞) is read in three tiers with no gap or overlap (sql/schema.sql keeps the
-- rollup exact): raw edge_logs rows for [start, raw_until), the hourly rollup for
-- [raw_until, hours_until), the daily rollup from hours_until on. Minute buckets read raw rows
-- only; hour buckets raw rows up to the first whole hour, then hours; day buckets add whole days.
with
window_spec as not materialized (
  select
    s.span,
    s.bucket,
    now() - s.span as start,
    case when s.bucket = 'minute' then 'infinity'::timestamptz
      else date_trunc('hour', now() - s.span, 'UTC') + interval '1 hour' end as raw_until,
    case when s.bucket = 'day' then date_trunc('day', now() - s.span, 'UTC') + interval '1 day'
      else 'infinity'::timestamptz end as hours_until
  from (
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
  ) s
),
-- Every request of the window, one row each: what a sandboxed caller's `sql` reads.
requests as (
  select e.timestamp, e.metadata->'request'->>'path' as path
  from edge_logs e
  cross join window_spec w
  where e.timestamp >= w.start
    and e.metadata->'request'->>'url' ~ @project
),
-- The rollup rows of the window: hours from raw_until to hours_until, then whole days.
rolled_up as not materialized (
  select c.*
  from edge_request_counts c
  cross join window_spec w
  where w.bucket <> 'minute'
    and ((c.grain = 'h' and c.bucket >= w.raw_until and c.bucket < w.hours_until)
      or (c.grain = 'd' and c.bucket >= w.hours_until))
),
-- The distinct URLs of the window's rollup rows, and those the pattern matches (materialised, so
-- the expression runs once per URL of the window): what a sandboxed caller's `sql` reads. counted
-- below does not read them (see there).
window_urls as materialized (
  select u.id, u.url
  from edge_request_urls u
  where u.id in (select r.url_id from rolled_up r)
),
matching_urls as materialized (
  select u.id
  from edge_request_urls u
  cross join window_spec w
  where w.bucket = 'day' and u.url ~ @project
  union all
  select u.id
  from window_urls u
  cross join window_spec w
  where w.bucket = 'hour' and u.url ~ @project
),
counted as (
  select
    date_trunc(w.bucket, e.timestamp, 'UTC') as at,
    count(*) filter (where strpos(e.metadata->'request'->>'path', '/rest') > 0) as rest,
    count(*) filter (where strpos(e.metadata->'request'->>'path', '/storage') > 0) as storage,
    count(*) filter (where strpos(e.metadata->'request'->>'path', '/auth') > 0) as auth,
    count(*) filter (where strpos(e.metadata->'request'->>'path', '/realtime') > 0) as realtime
  from edge_logs e
  cross join window_spec w
  where e.timestamp >= w.start and e.timestamp < w.raw_until
    and e.metadata->'request'->>'url' ~ @project
  group by 1
  union all
  select date_trunc(w.bucket, x.bucket, 'UTC'), x.rest, x.storage, x.auth, x.realtime
  from (
    -- The rollup's rows of the window (rolled_up's), summed per stored hour or day, so date_trunc
    -- runs once per bucket, not once per row.
    -- A pattern that is a plain word (letters, digits, '_', '-': a project reference) occurs in a URL
    -- exactly when it occurs in the URL's host or in the rest of it (edge_plain_word,
    -- edge_url_counted_alone, sql/schema.sql): the hosts it matches are counted whole from
    -- edge_request_host_counts (a few rows an hour), and only the other hosts' URLs that contain it
    -- after the host one by one, found through the trigram index on that rest. Any other pattern is
    -- tested against each URL.
    select c.bucket, sum(c.rest) as rest, sum(c.storage) as storage, sum(c.auth) as auth, sum(c.realtime) as realtime
    from edge_request_host_counts c
    cross join window_spec w
    where w.bucket <> 'minute' and edge_plain_word(@project) and c.host ~ @project
      and ((c.grain = 'h' and c.bucket >= w.raw_until and c.bucket < w.hours_until) or (c.grain = 'd' and c.bucket >= w.hours_until))
    group by c.bucket
    union all
    -- Per URL, one branch per grain, so that an index gives just those rows whether it is walked
    -- by URL or by time. The URLs that match are asked of edge_request_urls itself, inline: its
    -- column's statistics tell the planner how many match, and it picks the plan. A selective
    -- pattern finds its URLs through a trigram index (sql/schema.sql) and their counts through
    -- (url_id, grain, bucket); a pattern matching most URLs hashes the window's rollup rows in one
    -- pass, or (for the last hours) tests each of their URLs once. Asked through a CTE
    -- (window_urls, matching_urls), the planner guessed a few dozen matches whatever the pattern,
    -- and for `.` looked every URL's counts up one by one: 2.5-10× slower.
    select c.bucket, sum(c.rest), sum(c.storage), sum(c.auth), sum(c.realtime)
    from edge_request_counts c
    cross join window_spec w
    where w.bucket <> 'minute' and c.grain = 'h' and c.bucket >= w.raw_until and c.bucket < w.hours_until
      and c.url_id in (select u.id from edge_request_urls u where edge_url_counted_alone(u.url, @project))
    group by c.bucket
    union all
    select c.bucket, sum(c.rest), sum(c.storage), sum(c.auth), sum(c.realtime)
    from edge_request_counts c
    cross join window_spec w
    where w.bucket = 'day' and c.grain = 'd' and c.bucket >= w.hours_until
      and c.url_id in (select u.id from edge_request_urls u where edge_url_counted_alone(u.url, @project))
    group by c.bucket
  ) x
  cross join window_spec w
)
select
  to_char(c.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as timestamp,
  sum(c.rest)::bigint as total_rest_requests,
  sum(c.storage)::bigint as total_storage_requests,
  sum(c.auth)::bigint as total_auth_requests,
  sum(c.realtime)::bigint as total_realtime_requests
from counted c
group by c.at
order by c.at
