/**
 * `npm run schema`: apply sql/schema.sql to the PostgreSQL at DATABASE_URL, in schema LOG_SCHEMA
 * (default `logs`). Idempotent. The service itself never runs DDL against DATABASE_URL (docs/log-store.md).
 */
import pg from 'pg';
import { LOG_TABLES, applySchema } from '../src/store/schema.ts';

/** The URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL?.trim();
  if (!url) {
    console.error('DATABASE_URL is not set: npm run schema applies the log-store schema to that PostgreSQL database.');
    process.exit(1);
  }
  const schema = process.env.LOG_SCHEMA?.trim() || 'logs';
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    await applySchema((sql, params) => (params ? client.query(sql, [...params]) : client.query(sql)), schema);
    console.log(`Applied sql/schema.sql to schema "${schema}" at ${redactUrl(url)}: ${LOG_TABLES.length} tables (${LOG_TABLES.join(', ')}) with their indexes, in ${Math.round(performance.now() - started)} ms.`);
  } finally {
    await client.end();
  }
}

main().catch((err: unknown) => {
  console.error(`schema: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
