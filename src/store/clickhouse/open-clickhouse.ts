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
import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseClientConfigOptions } from '@clickhouse/client';
import { ConfigError } from '../../shared/errors.ts';
import type { Config } from '../../process/config.ts';
import { responseShape } from '../values/response-shape.ts';
import type { ResponseShape } from '../values/response-shape.ts';
import type { Logger } from '../../process/logger.ts';
import { generateDemoLogs } from '../demo/demo-data.ts';
import type { Engine, LogWriter } from '../engine.ts';
import { WRITER_STATEMENT_TIMEOUT_MS } from '../session-settings.ts';
import { createClickHouseWriter } from './clickhouse-writer.ts';
import { createClickHouseEngine } from './clickhouse-engine.ts';
import { canKillOwnStatements, queryUserProblems } from './query-user.ts';
import { applyClickHouseSchema, insertRows } from './clickhouse-admin.ts';
import { LOG_TABLES } from '../schema.ts';

/**
 * A client as the service makes every one: the library's own logging off (it writes to stderr,
 * outside the service's JSON log; its errors reach that log through the engine), named in the
 * server's query log.
 */
export function clickhouseClient(options: ClickHouseClientConfigOptions, role = 'saved-query-endpoints'): ClickHouseClient {
  return createClient({ application: role, ...options, log: { level: ClickHouseLogLevel.OFF } });
}

/** ClickHouse's SETTING_CONSTRAINT_VIOLATION: a setting past the user's profile's MAX, or a CONST one changed. */
const SETTING_CONSTRAINT_VIOLATION = 452;

/** The engine, the privileged client (schema, fixtures, KILL) and the ingest writer (null: no ingest configured). */
export interface OpenedClickHouse {
  engine: Engine;
  admin: ClickHouseClient;
  writer: LogWriter | null;
}

export async function openClickHouse(config: Config, logger: Logger): Promise<OpenedClickHouse> {
  const url = config.clickhouseUrl!;
  if (url !== 'embedded') {
    const opened = connectClickHouseServer({
      url, ingestUrl: config.ingestDatabaseUrl, db: config.logSchema, poolMax: config.poolMax, ingestPoolMax: config.ingestPoolMax,
      statementTimeoutMs: config.statementTimeoutMs, maxResultBytes: config.maxResultBytes, responseShape: responseShape(config),
    });
    // The query path reads with a user that cannot write (docs/clickhouse.md gives the GRANTs).
    const problems = await queryUserProblems(opened.admin, config.logSchema).catch(() => []);
    if (problems.length > 0) {
      await opened.engine.close();
      await opened.writer?.close();
      throw new ConfigError(`CLICKHOUSE_URL's user is not read-only: ${problems.join('; ')}. Give the service a user with SELECT on ${config.logSchema}.* only (docs/clickhouse.md)`);
    }
    // The settings every statement carries, within what the user's profile allows (a server that
    // cannot be reached now is /ready's concern, not start-up's).
    for (const stored of [true, false]) {
      const refused = await opened.engine.query('SELECT 1 AS one', [], { stored }).then(() => null, (err: unknown) => err);
      if ((refused as { clickhouseCode?: number } | null)?.clickhouseCode === SETTING_CONSTRAINT_VIOLATION) {
        await opened.engine.close();
        await opened.writer?.close();
        throw new ConfigError(`CLICKHOUSE_URL's user's settings profile refuses what the service sends with ${stored ? 'its' : 'caller'} statements: ${(refused as Error).message}. Raise the profile's MAX, or lower STATEMENT_TIMEOUT_MS / MAX_RESULT_BYTES (docs/clickhouse.md gives the profile)`);
      }
    }
    if (!(await canKillOwnStatements(opened.admin))) {
      logger.warn('CLICKHOUSE_URL\'s user cannot read system.processes, so it cannot KILL its own statements: a statement whose caller left runs on until its timeout. GRANT SELECT ON system.processes TO it (docs/clickhouse.md)');
    }
    return opened;
  }
  const temporary = config.dataDir === null;
  const path = config.dataDir ?? mkdtempSync(join(tmpdir(), 'endpoints-chdb-'));
  return openChdb({
    path, removeOnClose: temporary, schema: config.logSchema, retentionDays: config.retentionDays, seedRows: config.seedRows,
    statementTimeoutMs: config.statementTimeoutMs, maxResultBytes: config.maxResultBytes, responseShape: responseShape(config), logger,
  });
}

export interface ClickHouseServerOptions {
  url: string;
  /** INGEST_DATABASE_URL: ingest inserts as a user of its own, never the query path's (null: no writer). */
  ingestUrl: string | null;
  /** The database: LOG_SCHEMA. */
  db: string;
  poolMax: number;
  ingestPoolMax: number;
  statementTimeoutMs: number;
  maxResultBytes: number;
  responseShape: ResponseShape;
}

/** A server's engine, query client and ingest writer, over HTTP; openClickHouse checks the query user first. */
export function connectClickHouseServer(o: ClickHouseServerOptions): OpenedClickHouse {
  const client = clickhouseClient({ url: o.url, database: o.db, max_open_connections: o.poolMax, request_timeout: o.statementTimeoutMs + 5_000 });
  const engine = createClickHouseEngine({
    client, callerClient: client, admin: client, embedded: false, concurrency: o.poolMax, statementTimeoutMs: o.statementTimeoutMs,
    maxResultBytes: o.maxResultBytes, responseShape: o.responseShape, onClose: () => client.close(),
  });
  const ingest = o.ingestUrl === null ? null : clickhouseClient({ url: o.ingestUrl, database: o.db, max_open_connections: o.ingestPoolMax }, 'saved-query-endpoints (ingest)');
  const writer = ingest === null ? null : createClickHouseWriter({ client: ingest, embedded: false, concurrency: o.ingestPoolMax, statementTimeoutMs: WRITER_STATEMENT_TIMEOUT_MS, onClose: () => ingest.close() });
  return { engine, admin: client, writer };
}

/** chdb's connection for `@clickhouse/client`; a variable, so the type check does not need chdb installed. */
const CHDB_CONNECTION: string = 'chdb/connection';

export interface ChdbOptions {
  /** The data directory (one per process: chdb binds the first it opens). */
  path: string;
  removeOnClose: boolean;
  schema: string;
  retentionDays: number | null;
  /** Demo rows written when the store is empty (0: none). */
  seedRows: number;
  statementTimeoutMs: number;
  maxResultBytes: number;
  responseShape: ResponseShape;
  logger?: Logger;
}

/** ClickHouse in-process: the schema applied, demo data on first start; `admin` writes (DDL, rows, KILL). */
export async function openChdb(o: ChdbOptions): Promise<OpenedClickHouse> {
  let createChdbConnection: (o: { path: string }) => unknown;
  try {
    ({ createChdbConnection } = (await import(CHDB_CONNECTION)) as { createChdbConnection: (o: { path: string }) => unknown });
  } catch (err) {
    throw new ConfigError(`CLICKHOUSE_URL=embedded runs ClickHouse in-process through the optional package chdb, which is not installed (${(err as Error).message.split('\n')[0]}): npm install --no-save chdb (about 545 MB), or point CLICKHOUSE_URL at a ClickHouse server`);
  }
  // Connections on one data directory: statements on one, KILL QUERY and DDL on another.
  const open = () => clickhouseClient({ connection: createChdbConnection({ path: o.path }) } as never);
  const client = open();
  const admin = open();
  // Caller sql on a connection of its own: chdb keeps its settings, readonly = 1 included.
  const caller = open();
  // Ingest on a connection of its own: an insert never waits behind a query, nor a KILL behind an insert.
  const ingest = open();
  await applyClickHouseSchema(admin, { db: o.schema, retentionDays: o.retentionDays, cluster: null });
  const seeded = await admin.query({ query: `SELECT count() > 0 AS seeded FROM \`${o.schema}\`.edge_logs`, format: 'JSON' });
  const [first] = ((await seeded.json()) as { data: { seeded: number | boolean }[] }).data;
  if (!first?.seeded && o.seedRows > 0) {
    const started = Date.now();
    const logs = generateDemoLogs({ rows: o.seedRows });
    let rows = 0;
    for (const table of LOG_TABLES) rows += await insertRows(admin, o.schema, table, logs[table]);
    o.logger?.info('embedded ClickHouse seeded with demo logs', { rows, ms: Date.now() - started });
  }
  const engine = createClickHouseEngine({
    client, callerClient: caller, admin, embedded: true, concurrency: 1, statementTimeoutMs: o.statementTimeoutMs,
    maxResultBytes: o.maxResultBytes, responseShape: o.responseShape,
    async onClose() {
      await client.close();
      await caller.close();
      await admin.close();
      await ingest.close();
      if (o.removeOnClose) rmSync(o.path, { recursive: true, force: true });
    },
  });
  const writer = createClickHouseWriter({ client: ingest, embedded: true, concurrency: 1, statementTimeoutMs: WRITER_STATEMENT_TIMEOUT_MS, onClose: async () => {} });
  return { engine, admin, writer };
}
