/**
 * The start-up check of a ClickHouse server's query user (docs/clickhouse.md, "A server"): it must
 * not write, nor read who the users are. Caller statements also run with readonly = 1, which the
 * service sends; this is the ceiling a server enforces whatever the service sends.
 */
import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';

/** What the client's user can do that the query path's user must not; empty when nothing. */
export async function queryUserProblems(client: ClickHouseClient, db: string): Promise<string[]> {
  const problems: string[] = [];
  const succeeds = (p: Promise<unknown>): Promise<boolean> => p.then(() => true, () => false);
  if (await succeeds(client.query({ query: 'SELECT count() FROM system.users', format: 'JSON' }).then((r) => r.text()))) {
    problems.push('it can read system.users');
  }
  // An insert of no rows: refused without the grant, harmless with it.
  if (await succeeds(client.command({ query: `INSERT INTO \`${db}\`.edge_logs (id) SELECT 'sqe-probe' WHERE 0` }))) {
    problems.push(`it can insert into ${db}.edge_logs`);
  }
  const probe = `\`${db}\`.sqe_probe_${randomUUID().replaceAll('-', '')}`;
  if (await succeeds(client.command({ query: `CREATE TABLE ${probe} (x UInt8) ENGINE = Memory` }))) {
    problems.push(`it can create tables in ${db}`);
    await client.command({ query: `DROP TABLE IF EXISTS ${probe}` }).catch(() => {});
  }
  return problems;
}

/**
 * Can the user stop its own statements? KILL QUERY reads system.processes, which needs a grant of
 * its own (docs/clickhouse.md); without it a statement whose caller left runs on to its timeout.
 */
export async function canKillOwnStatements(client: ClickHouseClient): Promise<boolean> {
  return client.query({ query: 'SELECT count() FROM system.processes WHERE 0', format: 'JSON' }).then((r) => r.text()).then(() => true, (err: { code?: unknown }) => err?.code !== '497');
}
