/**
 * The suites ClickHouse skips, on chdb and on a server alike, each with its reason: what they need
 * is PostgreSQL's own; what ClickHouse answers instead is test/clickhouse.test.ts.
 */
import type { SuiteName } from '../behaviour/run-behaviour.ts';

export const CLICKHOUSE_SKIPS: Readonly<Partial<Record<SuiteName, string>>> = Object.freeze({
  hostile: 'its runaway statements and huge values are PostgreSQL SQL (generate_series, repeat, bytea); the runaway suite (behaviour/runaway.ts) runs on ClickHouse, its result limits and KILL are in test/clickhouse.test.ts',
  usageRollup: 'it checks PostgreSQL\'s trigger-kept rollup; ClickHouse counts raw rows (parity in test/clickhouse.test.ts)',
  storeCheck: 'it breaks the store with PostgreSQL DDL and grants',
  ingest: 'it reads rows back with PostgreSQL SQL and Studio\'s caller sql; ClickHouse ingest is in test/clickhouse.test.ts',
  queueing: 'its slow calls are PostgreSQL\'s (pg_sleep, backtracking regular expressions: RE2 never backtracks); the queue is the same code on every engine',
});
