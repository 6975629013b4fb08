/**
 * The behavioural suite on the embedded ClickHouse (chdb). Declared skips, each with its reason;
 * the parts of a running suite that need PostgreSQL itself, or caller sql the ClickHouse printer refuses, are skipped by the
 * factory's `lacks` (test/support/engines.ts). What ClickHouse answers where the suites cannot ask
 * (byte-for-byte parity with PostgreSQL, ingest, timeouts, KILL) is test/clickhouse.test.ts.
 */
import { runBehaviour, SUITE_NAMES } from './behaviour/run-behaviour.ts';
import { chdbFactory } from './support/engines.ts';

// chdb (~545 MB) is installed on demand (`npm install --no-save chdb`, as .ci/run does).
const CHDB_CONNECTION: string = 'chdb/connection';
const installed = await import(CHDB_CONNECTION).then(() => true, () => false);

runBehaviour(chdbFactory, {
  skip: installed
    ? {
        hostile: 'its runaway statements and huge values are PostgreSQL SQL (generate_series, repeat, bytea); ClickHouse\'s limits, timeouts and KILL are in test/clickhouse.test.ts',
        usageRollup: 'it checks PostgreSQL\'s trigger-kept rollup; ClickHouse counts raw rows (parity in test/clickhouse.test.ts)',
        storeCheck: 'it breaks the store with PostgreSQL DDL and grants',
        ingest: 'it reads rows back with PostgreSQL SQL and Studio\'s caller sql; ClickHouse ingest is in test/clickhouse.test.ts',
        queueing: 'its slow calls are PostgreSQL\'s (pg_sleep, backtracking regular expressions: RE2 never backtracks); the queue is the same code on every engine',
      }
    : Object.fromEntries(SUITE_NAMES.map((name) => [name, 'chdb is not installed (npm install --no-save chdb)'])),
});
