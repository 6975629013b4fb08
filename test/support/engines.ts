/**
 * The two engines the behavioural suite runs against (hono's runTest pattern): each factory gives a
 * fresh, empty log store with the schema applied, the service's engine, and an admin handle for
 * fixtures.
 */
import { REFUSED_ON_CLICKHOUSE } from './clickhouse-caller-cases.ts';
import pg from 'pg';
import type { ClickHouseClient } from '@clickhouse/client';
import type { AdminExec, LogWriter, Engine } from '../../src/store/engine.ts';
import { createPgEngine } from '../../src/store/postgres/pg-engine.ts';
import { createPgliteEngine } from '../../src/store/pglite/pglite-engine.ts';
import { createPgWriter } from '../../src/store/postgres/pg-writer.ts';
import { WRITER_STATEMENT_TIMEOUT_MS } from '../../src/store/session-settings.ts';
import { applySchema } from '../../src/store/schema.ts';
import type { ResponseShape } from '../../src/store/values/response-shape.ts';
import { createDatabase, startPostgres, type PgServer } from '../../scripts/lib/pg-server.ts';
import { metadataText, type LogRow } from './fixtures.ts';
import { tempDir } from './temp-dir.ts';

export const SCHEMA = 'logs';

/**
 * Run one statement on a fresh connection to `url`, outside any pool (fault tests ask the server
 * about the service's own connections, which may be stopped or gone), and close it.
 */
export async function queryOnce<T extends Record<string, unknown>>(url: string, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<T>(sql, params as unknown[])).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The statement timeout of an engine opened without one. */
export const TEST_STATEMENT_TIMEOUT_MS = 15_000;

export interface TestStore {
  engine: Engine;
  admin: AdminExec;
  /** What ingest writes through (the embedded session, or a pool as the database's owner). */
  writer?: LogWriter;
  /** Present on real PostgreSQL: the throwaway server (outage tests) and the database URL. */
  server?: PgServer;
  url?: string;
  /** Writes fixture rows where SQL through `admin` cannot (ClickHouse); see fixtures.ts. */
  insertRows?(table: string, rows: readonly LogRow[]): Promise<void>;
  /**
   * Statements running on the store (pg_stat_activity, system.processes), this count aside; absent
   * on the embedded PostgreSQL, which runs one statement at a time (a prompt next call proves the
   * last one stopped).
   */
  runningStatements?(): Promise<number>;
  /** Settings a service over this store needs (ClickHouse: the store's own database as LOG_SCHEMA). */
  serviceEnv?: Readonly<Record<string, string>>;
  teardown(): Promise<void>;
}

export interface OpenOptions {
  statementTimeoutMs?: number;
  poolMax?: number;
  connectTimeoutMs?: number;
  maxResultBytes?: number;
  /** The engine's value encoding (COMPAT=logflare uses 'logflare', as open-engine.ts does). */
  responseShape?: ResponseShape;
}

/**
 * What an engine cannot do yet, each with the reason: the tests that need it declare a skip with
 * that reason (a finer grain than a whole suite's skip, run-behaviour.ts), never an inline check.
 */
export interface EngineLacks {
  /** PostgreSQL's own catalogs and session settings, and stored queries written only in PostgreSQL. */
  postgresql?: string;
  /** Caller sql the engine prints from the tree and refuses in part by name (ClickHouse, docs/clickhouse.md). */
  printedSql?: string;
}

export interface EngineFactory {
  name: 'pglite' | 'pg' | 'chdb' | 'clickhouse';
  lacks?: EngineLacks;
  /** Cases of the sandbox's allowed table (sandbox-cases.ts) this engine refuses by name, and how. */
  refusesSql?: Readonly<Record<string, RegExp>>;
  /**
   * How MAX_RESULT_BYTES is enforced. `arriving`: bytes are counted off the socket and the statement
   * is cut off past the limit (pg). `per-batch`: the worker reads through a cursor and counts each
   * batch (PGlite); a batch holds at least one row, built whole, so a single value past the limit
   * meets the engine's memory cap first (EMBEDDED_MEMORY_MB): 400 resource_limit.
   */
  resultLimit: 'arriving' | 'per-batch';
  /**
   * Peak RSS (MB) the test process may reach under the oversized-result attacks, given its RSS
   * just before. pg: 300, the target, whatever came before. PGlite: what it returns is built in its
   * WASM memory, in this process, which grows from 128 MiB up to its cap (EMBEDDED_MEMORY_MB, 256)
   * and no further: measured growth 47 MB (three at once) and 146 MB (one 100 MB value, refused at
   * the cap). It is a growth bound because the test process's RSS before the attack depends on
   * which suites ran first (400-1000 MB measured).
   */
  hugeResultRssMb(beforeMb: number): number;
  /**
   * How soon the next statement runs after one was cut off (its timeout, its caller gone). At once
   * (1 s allowed) where the database stops it; PGlite cannot stop a statement, so its worker is
   * replaced and the next one waits for the new worker to open the store (1.3–2.0 s measured).
   */
  nextCallAfterCutOffMs: number;
  open(options?: OpenOptions): Promise<TestStore>;
}

export const pgliteFactory: EngineFactory = {
  name: 'pglite',
  resultLimit: 'per-batch',
  nextCallAfterCutOffMs: 3_000,
  hugeResultRssMb: (beforeMb) => beforeMb + 250,
  async open(options = {}) {
    const { engine, admin, writer } = await createPgliteEngine({
      dataDir: null,
      schema: SCHEMA,
      statementTimeoutMs: options.statementTimeoutMs ?? TEST_STATEMENT_TIMEOUT_MS,
      ...(options.maxResultBytes === undefined ? {} : { maxResultBytes: options.maxResultBytes }),
      ...(options.responseShape === undefined ? {} : { responseShape: options.responseShape }),
    });
    await applySchema(admin, SCHEMA);
    return { engine, admin, writer, teardown: () => engine.close() };
  },
};

let shared: Promise<PgServer> | undefined;
let dbCounter = 0;

/** One throwaway server per test process, one fresh database per open(). */
export const pgFactory: EngineFactory = {
  name: 'pg',
  resultLimit: 'arriving',
  nextCallAfterCutOffMs: 1_000,
  hugeResultRssMb: () => 300,
  async open(options = {}) {
    shared ??= startPostgres();
    const server = await shared;
    const url = await createDatabase(server, `t${process.pid}_${dbCounter++}`);
    const adminPool = new pg.Pool({ connectionString: url, max: 2 });
    adminPool.on('error', () => {});
    const admin: AdminExec = (sql, params) => adminPool.query(sql, params as unknown[] | undefined);
    await applySchema(admin, SCHEMA);
    const engine = createPgEngine({
      connectionString: url,
      schema: SCHEMA,
      statementTimeoutMs: options.statementTimeoutMs ?? TEST_STATEMENT_TIMEOUT_MS,
      poolMax: options.poolMax ?? 5,
      connectTimeoutMs: options.connectTimeoutMs ?? 2_000,
      ...(options.maxResultBytes === undefined ? {} : { maxResultBytes: options.maxResultBytes }),
      ...(options.responseShape === undefined ? {} : { responseShape: options.responseShape }),
    });
    // The tests' writer connects as the database's owner; test/pg-ingest.test.ts runs one as an INSERT-only role.
    const writer = createPgWriter({ connectionString: url, schema: SCHEMA, poolMax: 2, connectTimeoutMs: options.connectTimeoutMs ?? 2_000, statementTimeoutMs: WRITER_STATEMENT_TIMEOUT_MS });
    return {
      engine,
      admin,
      writer,
      server,
      url,
      async runningStatements() {
        const rows = await queryOnce<{ n: number }>(url, "select count(*)::int as n from pg_stat_activity where state = 'active' and backend_type = 'client backend' and pid <> pg_backend_pid() and datname = current_database()");
        return rows[0]!.n;
      },
      async teardown() {
        await writer.close().catch(() => {});
        await engine.close().catch(() => {});
        await adminPool.end().catch(() => {});
      },
    };
  },
};

/**
 * Why the embedded ClickHouse cannot run here, or null: chdb (~545 MB) is installed on demand
 * (`npm install --no-save chdb`, as .ci/run does), not from the lock file, so its tests declare
 * this as their skip. Loads chdb only when asked.
 */
export async function chdbMissing(): Promise<string | null> {
  const connection: string = 'chdb/connection';
  return import(connection).then(() => null, () => 'chdb is not installed (npm install --no-save chdb@3.4.0)');
}

let chdbPath: string | undefined;
let chdbCounter = 0;

/** What ClickHouse cannot do that the suites ask, on chdb and on a server alike. */
const CLICKHOUSE_LACKS: EngineLacks = Object.freeze({
  printedSql: 'the ClickHouse printer refuses these by name (some to_char patterns, unnest of a column\'s values, whole-row values, a numeric JSON path step) or answers a bad value with ClickHouse\'s message; test/clickhouse.test.ts checks each refusal',
  postgresql: 'ClickHouse has neither PostgreSQL\'s catalogs and session settings nor the PostgreSQL-only test stored queries',
});

/** The suites' view of ClickHouse, embedded or a server. */
const CLICKHOUSE_TRAITS = {
  refusesSql: REFUSED_ON_CLICKHOUSE,
  lacks: CLICKHOUSE_LACKS,
  resultLimit: 'arriving',
  hugeResultRssMb: () => 300,
  nextCallAfterCutOffMs: 1_000,
} as const;

/**
 * A store over the ClickHouse database `db`: `admin` runs ClickHouse SQL; fixture rows go through
 * insertRows; teardown closes the writer and the engine, then runs `after`.
 */
async function clickhouseStore(o: { engine: Engine; admin: ClickHouseClient; writer: LogWriter | null; db: string; after?(): Promise<void> }): Promise<TestStore> {
  const { insertLines, logLine } = await import('../../src/store/clickhouse/clickhouse-admin.ts');
  return {
    engine: o.engine,
    admin: (sql, params) => o.admin.command({ query: sql, ...(params ? { query_params: Object.fromEntries(params.map((v, i) => [`p${i + 1}`, v])) } : {}) }),
    ...(o.writer ? { writer: o.writer } : {}),
    serviceEnv: { LOG_SCHEMA: o.db },
    async runningStatements() {
      // Not parameterised: on chdb a statement with parameters waits behind the one running. A
      // clickhouse-local server's own statement (the one that keeps it listening) has no user.
      const result = await o.admin.query({ query: "SELECT count() AS n FROM system.processes WHERE query_kind = 'Select' AND is_initial_query AND user != '' AND NOT startsWith(query, 'SELECT count() AS n FROM system.processes')", format: 'JSON' });
      return Number((await result.json<{ n: string }>()).data[0]!.n);
    },
    async insertRows(table, rows) {
      await insertLines(o.admin, `${o.db}.${table}`, rows.map((r) => logLine(r.id, r.timestamp, r.event_message ?? '', r.project ?? null, metadataText(r))).join(''));
    },
    async teardown() {
      await o.writer?.close().catch(() => {});
      await o.engine.close().catch(() => {});
      await o.after?.();
    },
  };
}

/**
 * The embedded ClickHouse. chdb binds one data directory per process, so every open() is a fresh
 * database in it (its name the services' LOG_SCHEMA, through serviceEnv).
 */
export const chdbFactory: EngineFactory = {
  name: 'chdb',
  ...CLICKHOUSE_TRAITS,
  async open(options = {}) {
    const { openChdb } = await import('../../src/store/clickhouse/open-clickhouse.ts');
    chdbPath ??= tempDir('chdb-suite-');
    const db = `logs_${chdbCounter++}`;
    const { engine, admin, writer } = await openChdb({
      path: chdbPath, removeOnClose: false, schema: db, retentionDays: null, seedRows: 0,
      statementTimeoutMs: options.statementTimeoutMs ?? TEST_STATEMENT_TIMEOUT_MS,
      maxResultBytes: options.maxResultBytes ?? 64 * 1024 * 1024, responseShape: options.responseShape ?? 'standard',
    });
    return clickhouseStore({ engine, admin, writer, db });
  },
};

let serverCounter = 0;

/** Where the server factory's stores live: a server as its admin, the service's two users, a cluster's nodes. */
export interface ClickHouseTarget {
  /** A user that may create and drop databases (fixtures, schema, KILL). */
  adminUrl: string;
  /** The service's query user (CLICKHOUSE_URL) and ingest user (INGEST_DATABASE_URL). */
  queryUrl: string;
  ingestUrl: string;
  /** A sharded cluster: its name and every node's admin URL (the schema goes on each, --no-replication). */
  cluster?: { name: string; nodeUrls: readonly string[] };
}

/**
 * A ClickHouse server (scripts/lib/clickhouse-server.ts, or TEST_CLICKHOUSE_URL). Each open() is a
 * fresh database `endpoints_test_*` with the schema applied (on a cluster, on every node, and the
 * Distributed tables the statements read), dropped at teardown; the engine and the writer are built
 * as openClickHouse builds them for a server (connectClickHouseServer), as the service's own users.
 */
export function clickhouseServerFactory(target: ClickHouseTarget | (() => Promise<ClickHouseTarget>)): EngineFactory {
  return {
    name: 'clickhouse',
    ...CLICKHOUSE_TRAITS,
    async open(options = {}) {
      const t = typeof target === 'function' ? await target() : target;
      const { clickhouseClient, connectClickHouseServer } = await import('../../src/store/clickhouse/open-clickhouse.ts');
      const { applyClickHouseSchema } = await import('../../src/store/clickhouse/clickhouse-admin.ts');
      const db = `endpoints_test_${process.pid}_${serverCounter++}`;
      const statementTimeoutMs = options.statementTimeoutMs ?? TEST_STATEMENT_TIMEOUT_MS;
      const admins = (t.cluster?.nodeUrls ?? [t.adminUrl]).map((url) => clickhouseClient({ url, request_timeout: statementTimeoutMs + 5_000 }));
      const cluster = t.cluster ? { name: t.cluster.name, replicated: false } : null;
      for (const admin of admins) await applyClickHouseSchema(admin, { db, retentionDays: null, cluster });
      const { engine, writer } = connectClickHouseServer({
        url: t.queryUrl, ingestUrl: t.ingestUrl, db, poolMax: options.poolMax ?? 4, ingestPoolMax: 2, statementTimeoutMs,
        maxResultBytes: options.maxResultBytes ?? 64 * 1024 * 1024, responseShape: options.responseShape ?? 'standard',
      });
      return clickhouseStore({
        engine, admin: admins[0]!, writer, db,
        async after() {
          for (const admin of admins) {
            await admin.command({ query: `DROP DATABASE IF EXISTS ${db} SYNC` }).catch(() => {});
            await admin.close();
          }
        },
      });
    },
  };
}
