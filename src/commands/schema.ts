/**
 * `node dist/main.js schema` (`npm run schema`): apply sql/schema.sql to the PostgreSQL at
 * DATABASE_URL, in schema LOG_SCHEMA (default `logs`). Idempotent. The service itself never runs
 * DDL against DATABASE_URL (docs/log-store.md).
 */
import pg from 'pg';
import { LOG_TABLES, applySchema } from '../store/schema.ts';
import type { ClickHouseClient } from '@clickhouse/client';
import type { ClusterSchema } from '../store/clickhouse/schema.ts';
import { CommandError, describeUrl, type Env } from './command.ts';

/** ClickHouse's answers to ON CLUSTER without distributed DDL: QUERY_IS_PROHIBITED (clickhouse-local), NO_ZOOKEEPER. */
const DISTRIBUTED_DDL_MISSING = new Set(['392', '225']);

/** The shards remote_servers gives `name` on this node; a name it does not know is the operator's typo. */
async function clusterShards(client: ClickHouseClient, name: string): Promise<number> {
  const result = await client.query({ query: 'SELECT cluster, uniqExact(shard_num) AS shards FROM system.clusters GROUP BY cluster ORDER BY cluster', format: 'JSONEachRow' });
  const clusters = await result.json<{ cluster: string; shards: string | number }>();
  const found = clusters.find((c) => c.cluster === name);
  if (!found) throw new CommandError(`the server has no cluster "${name}" in its remote_servers (it has: ${clusters.map((c) => c.cluster).join(', ') || 'none'})`);
  return Number(found.shards);
}

export const SCHEMA_USAGE = 'usage: node dist/main.js schema [--cluster NAME [--no-replication]]   (npm run schema; applies sql/schema.sql to DATABASE_URL, schema LOG_SCHEMA, or the ClickHouse tables to CLICKHOUSE_URL, database LOG_SCHEMA; --cluster: replicated tables with Distributed tables over them, ON CLUSTER NAME; with --no-replication: MergeTree tables on the node CLICKHOUSE_URL names, run once per node)';

/** `--cluster NAME [--no-replication]`, or nothing. */
function clusterArgument(argv: readonly string[]): ClusterSchema | null {
  if (argv.length === 0) return null;
  const [flag, name, ...rest] = argv;
  const replicated = rest.length === 0;
  if (flag !== '--cluster' || name === undefined || !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name) || !(replicated || (rest.length === 1 && rest[0] === '--no-replication'))) {
    throw new CommandError(`unknown argument "${argv.join(' ')}"\n${SCHEMA_USAGE}`);
  }
  return { name, replicated };
}

export async function schemaCommand(argv: readonly string[], env: Env): Promise<void> {
  const cluster = clusterArgument(argv);
  const clickhouse = env.CLICKHOUSE_URL?.trim();
  if (clickhouse) return clickhouseSchemaCommand(clickhouse, env, cluster);
  if (cluster !== null) throw new CommandError('--cluster is for a ClickHouse cluster: set CLICKHOUSE_URL');
  const url = env.DATABASE_URL?.trim();
  if (!url) throw new CommandError('DATABASE_URL is not set: the schema command applies the log-store schema to that PostgreSQL database.');
  const schema = env.LOG_SCHEMA?.trim() || 'logs';
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    await applySchema((sql, params) => (params ? client.query(sql, [...params]) : client.query(sql)), schema);
    process.stdout.write(`Applied sql/schema.sql to schema "${schema}" at ${describeUrl(url)}: ${LOG_TABLES.length} tables (${LOG_TABLES.join(', ')}) with their indexes, in ${Math.round(performance.now() - started)} ms.\n`);
  } finally {
    await client.end();
  }
}

/** The ClickHouse tables (store/clickhouse/schema.ts) on the server CLICKHOUSE_URL names. */
async function clickhouseSchemaCommand(url: string, env: Env, cluster: ClusterSchema | null): Promise<void> {
  if (!/^https?:\/\//.test(url)) throw new CommandError('CLICKHOUSE_URL must name a server (http:// or https://): the embedded ClickHouse applies its schema itself at start-up.');
  const db = env.LOG_SCHEMA?.trim() || 'logs';
  const retention = env.RETENTION_DAYS?.trim();
  if (retention !== undefined && retention !== '' && !/^[1-9]\d{0,4}$/.test(retention)) throw new CommandError(`RETENTION_DAYS must be a whole number of days, got "${retention}"`);
  const { clickhouseClient } = await import('../store/clickhouse/open-clickhouse.ts');
  const { applyClickHouseSchema } = await import('../store/clickhouse/clickhouse-admin.ts');
  const client = clickhouseClient({ url });
  try {
    const started = performance.now();
    const shards = cluster === null ? 0 : await clusterShards(client, cluster.name);
    try {
      await applyClickHouseSchema(client, { db, retentionDays: retention ? Number(retention) : null, cluster });
    } catch (err) {
      // ON CLUSTER needs distributed DDL (ZooKeeper or ClickHouse Keeper): name the way without it.
      if (cluster?.replicated && DISTRIBUTED_DDL_MISSING.has(String((err as { code?: unknown }).code))) {
        throw new CommandError(`the server cannot run ON CLUSTER statements (${(err as Error).message.split('\n')[0]}): replicated tables need ZooKeeper or ClickHouse Keeper. For shards without replication, run --cluster ${cluster.name} --no-replication against each node (docs/clickhouse.md, "A cluster").`);
      }
      throw err;
    }
    const where = cluster === null ? '' : cluster.replicated ? ` on every node of cluster ${cluster.name} (${shards} shards)` : ` on this node of cluster ${cluster.name} (${shards} shards: run it against each node)`;
    process.stdout.write(`Applied the ClickHouse log tables to database "${db}" at ${describeUrl(url)}${where}: ${LOG_TABLES.length} tables, in ${Math.round(performance.now() - started)} ms.\n`);
  } finally {
    await client.close();
  }
}
