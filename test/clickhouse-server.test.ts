/**
 * The behavioural suite against a ClickHouse server over HTTP, as the service's own users: the
 * SELECT-only query user under the documented limits profile and the INSERT-only ingest user
 * (docs/clickhouse.md). The server is clickhouse-local from the installed chdb, listening
 * (scripts/lib/clickhouse-server.ts), or the one TEST_CLICKHOUSE_URL names
 * (`http://user:password@host:8123`, a user that may create databases, used for all three roles).
 * Declared skips: the suites ClickHouse skips on chdb too, for the same reasons
 * (support/clickhouse-skips.ts).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { clickhouseClient, openClickHouse } from '../src/store/clickhouse/open-clickhouse.ts';
import { applyClickHouseSchema } from '../src/store/clickhouse/clickhouse-admin.ts';
import { canKillOwnStatements, queryUserProblems } from '../src/store/clickhouse/query-user.ts';
import { readConfig } from '../src/process/config.ts';
import { createLogger } from '../src/process/logger.ts';
import { ConfigError } from '../src/shared/errors.ts';
import { everySuite, runBehaviour } from './behaviour/run-behaviour.ts';
import { CLICKHOUSE_SKIPS } from './support/clickhouse-skips.ts';
import { clickhouseServerFactory, type ClickHouseTarget } from './support/engines.ts';
import { clickhouseUnavailable, startClickHouse, type ClickHouseServer } from '../scripts/lib/clickhouse-server.ts';

const external = process.env.TEST_CLICKHOUSE_URL;
let server: Promise<ClickHouseServer> | undefined;

async function target(): Promise<ClickHouseTarget> {
  if (external) return { adminUrl: external, queryUrl: external, ingestUrl: external };
  const [node] = (await (server ??= startClickHouse())).nodes;
  return { adminUrl: node!.url(), queryUrl: node!.url('endpoints'), ingestUrl: node!.url('ingest') };
}

after(async () => {
  await (await server)?.destroy();
});

/** Declared skip: no server without chdb's library (installed on demand, as .ci/run does). */
const missing = external ? null : clickhouseUnavailable();
runBehaviour(clickhouseServerFactory(target), { skip: missing === null ? CLICKHOUSE_SKIPS : everySuite(missing) });

describe('a server\'s users, as docs/clickhouse.md gives them', { skip: missing ?? false }, () => {
  test('the start-up check passes the SELECT-only query user and names what the admin can do', async () => {
    const { nodes } = await (server ??= startClickHouse());
    const db = `endpoints_test_users_${process.pid}`;
    const admin = clickhouseClient({ url: nodes[0]!.url() });
    await applyClickHouseSchema(admin, { db, retentionDays: null, cluster: null });
    const reader = clickhouseClient({ url: nodes[0]!.url('endpoints') });
    try {
      assert.deepEqual(await queryUserProblems(reader, db), []);
      // The documented grant on system.processes lets it KILL its own statements; the ingest user has none.
      assert.equal(await canKillOwnStatements(reader), true);
      const ingest = clickhouseClient({ url: nodes[0]!.url('ingest') });
      assert.equal(await canKillOwnStatements(ingest), false);
      await ingest.close();
      const problems = await queryUserProblems(admin, db);
      assert.deepEqual(problems, ['it can read system.users', `it can insert into ${db}.edge_logs`, `it can create tables in ${db}`]);
    } finally {
      await admin.command({ query: `DROP DATABASE IF EXISTS ${db} SYNC` });
      await reader.close();
      await admin.close();
    }
  });

  test('a service whose settings the user\'s profile refuses (STATEMENT_TIMEOUT_MS past its MAX) does not start, and says which', async () => {
    const { nodes } = await (server ??= startClickHouse());
    const db = `endpoints_test_profile_${process.pid}`;
    const admin = clickhouseClient({ url: nodes[0]!.url() });
    await applyClickHouseSchema(admin, { db, retentionDays: null, cluster: null });
    try {
      const config = (timeout: string) => readConfig({ CLICKHOUSE_URL: nodes[0]!.url('endpoints'), LOG_SCHEMA: db, STATEMENT_TIMEOUT_MS: timeout, ACCESS_TOKENS: 'test-token-0123456789abcdef' });
      await assert.rejects(openClickHouse(config('60000'), createLogger('silent')), (err: Error) => err instanceof ConfigError && /settings profile refuses .*max_execution_time shouldn't be greater than 30/.test(err.message));
      const { engine } = await openClickHouse(config('20000'), createLogger('silent'));
      assert.deepEqual(await engine.query('SELECT 1 AS one', [], { stored: false }), [{ one: 1 }]);
      await engine.close();
    } finally {
      await admin.command({ query: `DROP DATABASE IF EXISTS ${db} SYNC` });
      await admin.close();
    }
  });
});
