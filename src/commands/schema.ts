/**
 * `node dist/main.js schema` (`npm run schema`): apply sql/schema.sql to the PostgreSQL at
 * DATABASE_URL, in schema LOG_SCHEMA (default `logs`). Idempotent. The service itself never runs
 * DDL against DATABASE_URL (docs/log-store.md).
 */
import pg from 'pg';
import { LOG_TABLES, applySchema } from '../store/schema.ts';
import { CommandError, describeUrl, type Env } from './command.ts';

export const SCHEMA_USAGE = 'usage: node dist/main.js schema [--cluster NAME]   (npm run schema; applies sql/schema.sql to DATABASE_URL, schema LOG_SCHEMA, or the ClickHouse tables to CLICKHOUSE_URL, database LOG_SCHEMA; --cluster: replicated tables with Distributed tables over them, ON CLUSTER NAME)';

export async function schemaCommand(argv: readonly string[], env: Env): Promise<void> {
  const cluster = argv[0] === '--cluster' ? argv[1] : undefined;
  if (argv.length > 0 && (cluster === undefined || argv.length > 2 || !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(cluster))) throw new CommandError(`unknown argument "${argv.join(' ')}"\n${SCHEMA_USAGE}`);
  const clickhouse = env.CLICKHOUSE_URL?.trim();
  if (clickhouse) return clickhouseSchemaCommand(clickhouse, env, cluster ?? null);
  if (cluster !== undefined) throw new CommandError('--cluster is for a ClickHouse cluster: set CLICKHOUSE_URL');
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
async function clickhouseSchemaCommand(url: string, env: Env, cluster: string | null): Promise<void> {
  if (!/^https?:\/\//.test(url)) throw new CommandError('CLICKHOUSE_URL must name a server (http:// or https://): the embedded ClickHouse applies its schema itself at start-up.');
  const db = env.LOG_SCHEMA?.trim() || 'logs';
  const retention = env.RETENTION_DAYS?.trim();
  if (retention !== undefined && retention !== '' && !/^[1-9]\d{0,4}$/.test(retention)) throw new CommandError(`RETENTION_DAYS must be a whole number of days, got "${retention}"`);
  const { clickhouseClient } = await import('../store/clickhouse/open-clickhouse.ts');
  const { applyClickHouseSchema } = await import('../store/clickhouse/clickhouse-admin.ts');
  const client = clickhouseClient({ url });
  try {
    const started = performance.now();
    await applyClickHouseSchema(client, { db, retentionDays: retention ? Number(retention) : null, cluster });
    process.stdout.write(`Applied the ClickHouse log tables to database "${db}" at ${describeUrl(url)}${cluster ? ` on cluster ${cluster}` : ''}: ${LOG_TABLES.length} tables, in ${Math.round(performance.now() - started)} ms.\n`);
  } finally {
    await client.close();
  }
}
