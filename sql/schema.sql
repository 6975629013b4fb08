-- Log store schema (docs/log-store.md). Idempotent: safe to apply again.
-- Unqualified names: the applier (src/schema.ts) creates the schema named by LOG_SCHEMA and sets
-- search_path to it first, so the same file serves any schema name.

create table if not exists edge_logs (
  id            text primary key,
  timestamp     timestamptz not null,
  event_message text not null default '',
  project       text,
  metadata      jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object')
);
create index if not exists edge_logs_project_timestamp_idx on edge_logs (project, timestamp desc);

create table if not exists postgres_logs (
  id            text primary key,
  timestamp     timestamptz not null,
  event_message text not null default '',
  project       text,
  metadata      jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object')
);
create index if not exists postgres_logs_project_timestamp_idx on postgres_logs (project, timestamp desc);

create table if not exists function_edge_logs (
  id            text primary key,
  timestamp     timestamptz not null,
  event_message text not null default '',
  project       text,
  metadata      jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object')
);
-- logs.all matches this source's project on metadata->>'project_ref'.
create index if not exists function_edge_logs_project_ref_timestamp_idx on function_edge_logs ((metadata->>'project_ref'), timestamp desc);

create table if not exists function_logs (
  id            text primary key,
  timestamp     timestamptz not null,
  event_message text not null default '',
  project       text,
  metadata      jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object')
);
-- logs.all matches this source's project on metadata->>'project_ref'.
create index if not exists function_logs_project_ref_timestamp_idx on function_logs ((metadata->>'project_ref'), timestamp desc);

create table if not exists auth_logs (
  id            text primary key,
  timestamp     timestamptz not null,
  event_message text not null default '',
  project       text,
  metadata      jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object')
);
create index if not exists auth_logs_project_timestamp_idx on auth_logs (project, timestamp desc);

create table if not exists realtime_logs (
  id            text primary key,
  timestamp     timestamptz not null,
  event_message text not null default '',
  project       text,
  metadata      jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object')
);
-- logs.all matches this source's project on metadata->>'project'.
create index if not exists realtime_logs_project_timestamp_idx on realtime_logs ((metadata->>'project'), timestamp desc);

create table if not exists storage_logs (
  id            text primary key,
  timestamp     timestamptz not null,
  event_message text not null default '',
  project       text,
  metadata      jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object')
);
-- logs.all matches this source's project on metadata->>'project'.
create index if not exists storage_logs_project_timestamp_idx on storage_logs ((metadata->>'project'), timestamp desc);

create table if not exists postgrest_logs (
  id            text primary key,
  timestamp     timestamptz not null,
  event_message text not null default '',
  project       text,
  metadata      jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object')
);
create index if not exists postgrest_logs_project_timestamp_idx on postgrest_logs (project, timestamp desc);

create table if not exists pgbouncer_logs (
  id            text primary key,
  timestamp     timestamptz not null,
  event_message text not null default '',
  project       text,
  metadata      jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object')
);
create index if not exists pgbouncer_logs_project_timestamp_idx on pgbouncer_logs (project, timestamp desc);

-- usage.api-counts scans edge requests by time window only (the project is a regular expression).
create index if not exists edge_logs_timestamp_idx on edge_logs (timestamp);
-- Planner statistics (filled by ANALYZE; nothing to maintain on insert) for the expressions
-- usage.api-counts filters and groups by in edge_logs itself (its raw tier below, and a sandboxed
-- caller's sql over its `requests` CTE). Without them PostgreSQL guesses a few dozen rows for any
-- URL regular expression and one daily bucket per distinct timestamp, and so sorts whole rows
-- (metadata included) to disk instead of hash-aggregating a handful of days in parallel.
create statistics if not exists edge_logs_request_url_stats on ((metadata->'request'->>'url')) from edge_logs;
create statistics if not exists edge_logs_day_bucket_stats on (date_trunc('day', "timestamp", 'UTC')) from edge_logs;
-- The same for the records Studio's BigQuery unnests (`CROSS JOIN UNNEST(m.request) AS request`
-- translates to `jsonb_typeof(metadata -> 'request') = 'object'`, on every row it reads). Without
-- them PostgreSQL guesses 0.5% of rows per such test, so one row for an hour of a busy project, and
-- plans accordingly: a bitmap scan and a sort of every row of the hour instead of reading the
-- newest 100 through the (project, timestamp) index (58 ms against 0.3 ms at 3M rows), and sorts
-- of whole rows on disk for an event chart.
create statistics if not exists edge_logs_record_kinds_stats on
  (jsonb_typeof(metadata -> 'request')), (jsonb_typeof(metadata -> 'response')),
  (jsonb_typeof((metadata -> 'request') -> 'headers')), (jsonb_typeof((metadata -> 'response') -> 'headers')),
  (jsonb_typeof((metadata -> 'request') -> 'cf'))
  from edge_logs;
create statistics if not exists postgres_logs_record_kinds_stats on (jsonb_typeof(metadata -> 'parsed')) from postgres_logs;

-- usage.api-counts rollup (docs/stored-queries.md, "How it scales"). Edge requests
-- counted per UTC hour and per UTC day and per distinct request URL (and per URL host, below), kept exact by PostgreSQL
-- itself: statement-level triggers on edge_logs add what an INSERT adds and subtract what a DELETE
-- removes (an UPDATE does both, a TRUNCATE empties it), in the writer's own transaction, so a
-- reader's snapshot sees rows and counts agree. The stored query reads raw rows only for the part
-- of its window before the first whole hour, then hours, then whole days; its regular expression
-- runs once per distinct URL (edge_request_urls holds every URL ever counted; none is
-- approximated) instead of once per row. Cost: one more INSERT … ON CONFLICT per ingest statement and a write
-- lock on the touched (hour, URL) and (day, URL) rows until the writer commits; the ingest rate is
-- measured in the README's Performance section.
create table if not exists edge_request_urls (
  id       integer generated always as identity primary key,
  url      text not null,
  -- sha256 of the URL's UTF-8 bytes, written by edge_request_counts_statements below: a btree entry is
  -- at most ~2.7 kB and a URL can be longer; its digest cannot. (Not a generated column: the
  -- text-to-bytes conversion is only STABLE.)
  url_hash bytea not null unique
);

create table if not exists edge_request_counts (
  grain    "char" not null check (grain in ('h', 'd')), -- h: UTC hour, d: UTC day
  bucket   timestamptz not null,
  url_id   integer not null,
  requests bigint not null, -- every request; a row is deleted when this reaches 0
  rest     bigint not null, -- requests whose path contains '/rest' (and so on)
  storage  bigint not null,
  auth     bigint not null,
  realtime bigint not null,
  primary key (grain, bucket, url_id)
);

-- A request URL's scheme and authority ('https://abc.supabase.co'), '' when it has none; what
-- follows (edge_url_tail) is then empty or starts with '/', '?' or '#'. A pattern that is a plain word
-- ([A-Za-z0-9_-], as a project reference is) can contain none of those, so it occurs in a URL exactly
-- when it occurs in the URL's host or in its tail: usage.api-counts counts the hosts it matches from
-- edge_request_host_counts below, and only the other hosts' URLs one by one.
create or replace function edge_url_host(url text) returns text
language sql immutable parallel safe
as $$ select coalesce(substring(url from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*'), '') $$;
-- Self-contained (no call to edge_url_host): an index on it is built and analysed with a search_path
-- that may not name this schema.
create or replace function edge_url_tail(url text) returns text
language sql immutable parallel safe
as $$ select coalesce(substring(url from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*(.*)$'), url) $$;
-- Whether usage.api-counts reads `pattern` per host: a plain word, which cannot match across the end
-- of a host. And whether a URL is one of those it counts one by one: any URL the pattern matches,
-- or for a plain word a URL whose host it does not match but whose tail it does (the hosts it
-- matches come whole from edge_request_host_counts). Both are inlined into the statement that
-- calls them, so the planner sees the index expressions, and conditions on the pattern become
-- constants when the statement is planned with its value.
create or replace function edge_plain_word(pattern text) returns boolean
language sql immutable parallel safe
as $$ select pattern !~ '[^A-Za-z0-9_-]' $$;
create or replace function edge_url_counted_alone(url text, pattern text) returns boolean
language sql immutable parallel safe
as $$ select (not edge_plain_word(pattern) and url ~ pattern)
  or (edge_plain_word(pattern) and edge_url_tail(url) ~ pattern and edge_url_host(url) !~ pattern) $$;

-- The same counts per URL host: a few rows an hour however many URLs there are, kept by the same
-- triggers in the same statements' transaction. Keyed by the host's sha256, as URLs are, because a
-- host (ingested text) can be longer than a btree entry may be. Built from the per-URL counts when a
-- store that already has them first gets this table (its writers wait on the lock meanwhile).
do $do$
begin
  if to_regclass('edge_request_host_counts') is null then
    lock table edge_logs in share row exclusive mode;
    create table edge_request_host_counts (
      grain     "char" not null check (grain in ('h', 'd')),
      bucket    timestamptz not null,
      host_hash bytea not null,
      host      text not null,
      requests  bigint not null,
      rest      bigint not null,
      storage   bigint not null,
      auth      bigint not null,
      realtime  bigint not null,
      primary key (grain, bucket, host_hash)
    );
    if to_regclass('edge_request_counts') is not null then
      insert into edge_request_host_counts (grain, bucket, host_hash, host, requests, rest, storage, auth, realtime)
      select c.grain, c.bucket, sha256(convert_to(h.host, 'UTF8')), h.host, sum(c.requests), sum(c.rest), sum(c.storage), sum(c.auth), sum(c.realtime)
      from edge_request_counts c
      join edge_request_urls u on u.id = c.url_id
      cross join lateral (select edge_url_host(u.url) as host) h
      group by c.grain, c.bucket, h.host;
    end if;
  end if;
end
$do$;

-- usage.api-counts sums the rollup rows of its window for the URLs its pattern matches.
-- A project reference matches one host's URLs among many, and with ids in query strings nearly
-- every request has its own URL, so both are read by index rather than by scanning: the URLs through
-- a trigram index (pg_trgm answers `~` with the trigrams a regular expression must contain, then
-- rechecks each candidate with the expression itself, so nothing is approximated), their counts by
-- url_id. A pattern without such trigrams (`.`) reads every URL as before. Without pg_trgm (not
-- installed, or no CREATE right on the database) the index is left out and the answers are the same.
-- Covering (INCLUDE): the counts come from the index itself, without a visit to the table per URL
-- (at 1M rows, one project's week: 100 ms with the visits, where the planner preferred a pass over
-- the whole rollup; 24 ms index-only).
create index if not exists edge_request_counts_url_idx on edge_request_counts (url_id, grain, bucket) include (rest, storage, auth, realtime);
do $do$
declare
  trgm_schema name;
begin
  begin
    create extension if not exists pg_trgm;
  exception when others then
    raise notice 'pg_trgm is not available (%): usage.api-counts reads every URL for a day bucket', sqlerrm;
  end;
  select n.nspname into trgm_schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm';
  if trgm_schema is not null then
    execute format('create index if not exists edge_request_urls_url_trgm_idx on edge_request_urls using gin (url %I.gin_trgm_ops)', trgm_schema);
    execute format('create index if not exists edge_request_urls_tail_trgm_idx on edge_request_urls using gin (edge_url_tail(url) %I.gin_trgm_ops)', trgm_schema);
  end if;
end
$do$;

-- The statements that add (sign 1) or subtract (sign -1) the rows of `source`, a relation with
-- edge_logs' columns: a trigger's transition table, or edge_logs itself when the rollup is first
-- built. Returned as text for the caller to EXECUTE, because a transition table is visible only
-- inside the trigger function itself. Requests without a URL are not counted: usage.api-counts'
-- URL match can never select them.
create or replace function edge_request_counts_statements(source text, sign integer) returns text[]
language plpgsql immutable as $fn$
declare
  -- Each source row once per grain.
  per_grain constant text := format($q$%I e cross join (values ('h'::"char", 'hour'), ('d'::"char", 'day')) g (grain, unit)$q$, source);
  -- Each source row that has a URL, with its URL's id, once per grain.
  keyed constant text := format($q$%s
      join edge_request_urls u on u.url_hash = sha256(convert_to(e.metadata->'request'->>'url', 'UTF8'))$q$, per_grain);
  host constant text := $q$edge_url_host(e.metadata->'request'->>'url')$q$;
  -- The counts a group adds (or subtracts), and how a row already there takes them.
  sums constant text := format($q$%1$s * count(*) as requests,
        %1$s * count(*) filter (where strpos(e.metadata->'request'->>'path', '/rest') > 0) as rest,
        %1$s * count(*) filter (where strpos(e.metadata->'request'->>'path', '/storage') > 0) as storage,
        %1$s * count(*) filter (where strpos(e.metadata->'request'->>'path', '/auth') > 0) as auth,
        %1$s * count(*) filter (where strpos(e.metadata->'request'->>'path', '/realtime') > 0) as realtime$q$, sign);
  add_sums constant text := $q$
        requests = c.requests + excluded.requests, rest = c.rest + excluded.rest, storage = c.storage + excluded.storage,
        auth = c.auth + excluded.auth, realtime = c.realtime + excluded.realtime$q$;
  statements text[];
begin
  -- A URL is added the first time a request with it is; what is subtracted is already there.
  statements := case when sign < 0 then array[]::text[] else array[
    format($q$
      insert into edge_request_urls (url, url_hash)
      select u.url, sha256(convert_to(u.url, 'UTF8'))
      from (select distinct e.metadata->'request'->>'url' as url from %I e) u
      where u.url is not null
      order by 2 -- one lock order for concurrent writers of the same new URLs
      on conflict (url_hash) do nothing$q$, source)] end;
  statements := statements || format($q$
      insert into edge_request_counts as c (grain, bucket, url_id, requests, rest, storage, auth, realtime)
      select g.grain, date_trunc(g.unit, e.timestamp, 'UTC'), u.id, %s
      from %s
      group by 1, 2, 3
      order by 1, 2, 3 -- one lock order for concurrent writers
      on conflict (grain, bucket, url_id) do update set %s$q$, sums, keyed, add_sums);
  -- The same per host: the statement's rows summed per host, each host hashed once.
  statements := statements || format($q$
      insert into edge_request_host_counts as c (grain, bucket, host_hash, host, requests, rest, storage, auth, realtime)
      select k.grain, k.bucket, sha256(convert_to(k.host, 'UTF8')), k.host, k.requests, k.rest, k.storage, k.auth, k.realtime
      from (
        select g.grain, date_trunc(g.unit, e.timestamp, 'UTC') as bucket, %s as host, %s
        from %s
        where e.metadata->'request'->>'url' is not null
        group by 1, 2, 3
      ) k
      order by 1, 2, 3 -- one lock order for concurrent writers
      on conflict (grain, bucket, host_hash) do update set %s$q$, host, sums, per_grain, add_sums);
  if sign < 0 then
    -- Only the keys this statement touched, by primary key: never a scan of a whole rollup.
    statements := statements || format($q$
      delete from edge_request_counts c
      using (select distinct g.grain, date_trunc(g.unit, e.timestamp, 'UTC') as bucket, u.id from %s) k
      where (c.grain, c.bucket, c.url_id) = (k.grain, k.bucket, k.id) and c.requests = 0$q$, keyed);
    statements := statements || format($q$
      delete from edge_request_host_counts c
      using (
        select distinct g.grain, date_trunc(g.unit, e.timestamp, 'UTC') as bucket, sha256(convert_to(%s, 'UTF8')) as host_hash
        from %s
        where e.metadata->'request'->>'url' is not null
      ) k
      where (c.grain, c.bucket, c.host_hash) = (k.grain, k.bucket, k.host_hash) and c.requests = 0$q$, host, per_grain);
  end if;
  return statements;
end
$fn$;

-- SECURITY DEFINER: a role that may write edge_logs keeps the rollup without a grant on it; the
-- fixed search_path (this schema) is what makes that safe.
create or replace function edge_request_counts_apply() returns trigger
language plpgsql security definer set search_path from current as $fn$
declare
  statement text;
begin
  if tg_op = 'TRUNCATE' then
    truncate edge_request_counts, edge_request_host_counts;
    return null;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    foreach statement in array edge_request_counts_statements('old_rows', -1) loop
      execute statement;
    end loop;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    foreach statement in array edge_request_counts_statements('new_rows', 1) loop
      execute statement;
    end loop;
  end if;
  return null;
end
$fn$;

-- First run on a store that already has rows: the triggers, then one pass over edge_logs, in the
-- same transaction (applySchema runs this file as one), so no row is counted twice or missed.
do $do$
declare
  statement text;
begin
  if not exists (select from pg_trigger where tgrelid = 'edge_logs'::regclass and tgname = 'edge_request_counts_insert') then
    create trigger edge_request_counts_insert after insert on edge_logs
      referencing new table as new_rows for each statement execute function edge_request_counts_apply();
    create trigger edge_request_counts_update after update on edge_logs
      referencing old table as old_rows new table as new_rows for each statement execute function edge_request_counts_apply();
    create trigger edge_request_counts_delete after delete on edge_logs
      referencing old table as old_rows for each statement execute function edge_request_counts_apply();
    create trigger edge_request_counts_truncate after truncate on edge_logs
      for each statement execute function edge_request_counts_apply();
    truncate edge_request_counts, edge_request_host_counts;
    foreach statement in array edge_request_counts_statements('edge_logs', 1) loop
      execute statement;
    end loop;
  end if;
end
$do$;

-- Text to jsonb without raising: NULL for text that is not JSON. BigQuery's JSON functions read a
-- log line that may or may not be JSON (GoTrue's event_message) and answer NULL for the latter;
-- PostgreSQL 15 has no safe parse (`IS JSON` and pg_input_is_valid came in 16), so the BigQuery
-- translation (COMPAT=logflare) calls this. Immutable and without side effects; callers' sql may
-- call it too. The exception block costs a subtransaction per call that fails to parse.
create or replace function try_jsonb(value text) returns jsonb
  language plpgsql immutable parallel safe
as $$
begin
  return value::jsonb;
exception when invalid_text_representation then
  return null;
end
$$;
