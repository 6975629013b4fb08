/**
 * The behavioural suite against a ClickHouse server, when TEST_CLICKHOUSE_URL names one
 * (`http://user:password@host:8123`, a user that may create databases): the server transport, the
 * same client code the embedded engine runs through chdb's connection, over HTTP. Declared skips:
 * without it, every suite (no modern ClickHouse server installs on these machines); with it, the
 * suites the embedded ClickHouse skips too, for the same reasons (support/clickhouse-skips.ts).
 */
import { runBehaviour, SUITE_NAMES } from './behaviour/run-behaviour.ts';
import { CLICKHOUSE_SKIPS } from './support/clickhouse-skips.ts';
import { clickhouseServerFactory } from './support/engines.ts';

const url = process.env.TEST_CLICKHOUSE_URL;

runBehaviour(clickhouseServerFactory(url ?? 'http://127.0.0.1:8123'), {
  skip: url
    ? CLICKHOUSE_SKIPS
    : Object.fromEntries(SUITE_NAMES.map((name) => [name, 'no ClickHouse server: set TEST_CLICKHOUSE_URL=http://user:password@host:8123 to run it'])),
});
