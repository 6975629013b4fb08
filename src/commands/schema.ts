/**
 * `node dist/main.js schema` (`npm run schema`): apply sql/schema.sql to the PostgreSQL at
 * DATABASE_URL, in schema LOG_SCHEMA (default `logs`). Idempotent. The service itself never runs
 * DDL against DATABASE_URL (docs/log-store.md).
 */
import pg from 'pg';
import { LOG_TABLES, applySchema } from '../store/schema.ts';
import { CommandError, describeUrl, type Env } from './command.ts';

export const SCHEMA_USAGE = 'usage: node dist/main.js schema   (npm run schema; applies sql/schema.sql to DATABASE_URL, schema LOG_SCHEMA)';

export async function schemaCommand(argv: readonly string[], env: Env): Promise<void> {
  if (argv.length > 0) throw new CommandError(`unknown argument "${argv[0]}"\n${SCHEMA_USAGE}`);
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
