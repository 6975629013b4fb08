/**
 * The behavioural suite on the embedded ClickHouse (chdb). Declared skips, each with its reason
 * (support/clickhouse-skips.ts); the parts of a running suite that need PostgreSQL itself, or caller
 * sql the ClickHouse printer refuses, are skipped by the factory's `lacks` (support/engines.ts).
 * What ClickHouse answers where the suites cannot ask (byte-for-byte parity with PostgreSQL,
 * ingest, timeouts, KILL) is test/clickhouse.test.ts; the same suite on a server is
 * test/clickhouse-server.test.ts.
 */
import { everySuite, runBehaviour } from './behaviour/run-behaviour.ts';
import { chdbFactory, chdbMissing } from './support/engines.ts';
import { CLICKHOUSE_SKIPS } from './support/clickhouse-skips.ts';

const missing = await chdbMissing();
runBehaviour(chdbFactory, { skip: missing === null ? CLICKHOUSE_SKIPS : everySuite(missing) });
