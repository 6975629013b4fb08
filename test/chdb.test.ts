/**
 * The behavioural suite on the embedded ClickHouse (chdb). Declared skips, each with its reason
 * (support/clickhouse-skips.ts); the parts of a running suite that need PostgreSQL itself, or caller
 * sql the ClickHouse printer refuses, are skipped by the factory's `lacks` (support/engines.ts).
 * What ClickHouse answers where the suites cannot ask (byte-for-byte parity with PostgreSQL,
 * ingest, timeouts, KILL) is test/clickhouse.test.ts; the same suite on a server is
 * test/clickhouse-server.test.ts.
 */
import { runBehaviour, SUITE_NAMES } from './behaviour/run-behaviour.ts';
import { chdbFactory } from './support/engines.ts';
import { CLICKHOUSE_SKIPS } from './support/clickhouse-skips.ts';

// chdb (~545 MB) is installed on demand (`npm install --no-save chdb`, as .ci/run does).
const CHDB_CONNECTION: string = 'chdb/connection';
const installed = await import(CHDB_CONNECTION).then(() => true, () => false);

runBehaviour(chdbFactory, {
  skip: installed ? CLICKHOUSE_SKIPS : Object.fromEntries(SUITE_NAMES.map((name) => [name, 'chdb is not installed (npm install --no-save chdb)'])),
});
