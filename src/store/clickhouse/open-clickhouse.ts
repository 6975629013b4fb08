/**
 * Open the ClickHouse store CLICKHOUSE_URL names (docs/clickhouse.md): a server over HTTP through
 * `@clickhouse/client`, or `embedded`: ClickHouse in-process through chdb, whose connection plugs
 * into the same client (`createClient({ connection })`), so both run the same client code. chdb
 * (~545 MB) is an optional dependency loaded only here. The embedded store gets the schema and, on
 * first start, the demo data, like the embedded PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { ConfigError, responseShape, type Config } from '../../ops/config.ts';
import type { Logger } from '../../ops/logger.ts';
import { generateDemoLogs } from '../demo/demo-data.ts';
import type { Engine } from '../engine.ts';
import { createClickHouseEngine } from './clickhouse-engine.ts';
import { applyClickHouseSchema, insertRows } from './clickhouse-admin.ts';
import { LOG_TABLES } from '../schema.ts';

export async function openClickHouse(config: Config, logger: Logger): Promise<{ engine: Engine; admin: ClickHouseClient }> {
  const url = config.clickhouseUrl!;
  if (url !== 'embedded') {
    const client = createClient({
      url,
      database: config.logSchema,
      max_open_connections: config.poolMax,
      request_timeout: config.statementTimeoutMs + 5_000,
      application: 'saved-query-endpoints',
    });
    const engine = createClickHouseEngine({
      client, admin: client, embedded: false, concurrency: config.poolMax, statementTimeoutMs: config.statementTimeoutMs,
      maxResultBytes: config.maxResultBytes, responseShape: responseShape(config), onClose: () => client.close(),
    });
    return { engine, admin: client };
  }
  let createChdbConnection: (o: { path: string }) => unknown;
  try {
    ({ createChdbConnection } = (await import('chdb/connection')) as { createChdbConnection: (o: { path: string }) => unknown });
  } catch (err) {
    throw new ConfigError(`CLICKHOUSE_URL=embedded runs ClickHouse in-process through the optional package chdb, which is not installed (${(err as Error).message.split('\n')[0]}): npm install chdb (about 545 MB), or point CLICKHOUSE_URL at a ClickHouse server`);
  }
  const temporary = config.dataDir === null;
  const path = config.dataDir ?? mkdtempSync(join(tmpdir(), 'endpoints-chdb-'));
  // Two connections on one data directory: statements on one, KILL QUERY and DDL on the other.
  const open = () => createClient({ connection: createChdbConnection({ path }) } as never);
  const client = open();
  const admin = open();
  await applyClickHouseSchema(admin, { db: config.logSchema, retentionDays: config.retentionDays, cluster: null });
  const seeded = await admin.query({ query: `SELECT count() > 0 AS seeded FROM ${config.logSchema}.edge_logs`, format: 'JSON' });
  const [first] = ((await seeded.json()) as { data: { seeded: number | boolean }[] }).data;
  if (!first?.seeded && config.seedRows > 0) {
    const started = Date.now();
    const logs = generateDemoLogs({ rows: config.seedRows });
    let rows = 0;
    for (const table of LOG_TABLES) rows += await insertRows(admin, config.logSchema, table, logs[table]);
    logger.info('embedded ClickHouse seeded with demo logs', { rows, ms: Date.now() - started });
  }
  const engine = createClickHouseEngine({
    client, admin, embedded: true, concurrency: 1, statementTimeoutMs: config.statementTimeoutMs,
    maxResultBytes: config.maxResultBytes, responseShape: responseShape(config),
    async onClose() {
      await client.close();
      await admin.close();
      if (temporary) rmSync(path, { recursive: true, force: true });
    },
  });
  return { engine, admin };
}
