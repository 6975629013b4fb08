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
-- usage.api-counts filters and groups by. Without them PostgreSQL guesses a few dozen rows for any
-- URL regular expression and one daily bucket per distinct timestamp, and so sorts whole rows
-- (metadata included) to disk instead of hash-aggregating a handful of days in parallel.
create statistics if not exists edge_logs_request_url_stats on ((metadata->'request'->>'url')) from edge_logs;
create statistics if not exists edge_logs_day_bucket_stats on (date_trunc('day', "timestamp", 'UTC')) from edge_logs;
