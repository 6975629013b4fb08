/**
 * The service: load and freeze everything (parser, stored queries, tokens, cache, metrics), then
 * listen. It uses an engine it is given and does not close it: whoever opens the engine (main, a
 * test, a script) closes it.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { TokenGrant } from './auth/access-tokens.ts';
import { createAuthenticator } from './auth/authenticator.ts';
import { SYSTEM_CLOCK, type Clock } from './shared/clock.ts';
import { createIngest } from './ingest/receiver.ts';
import { startRetention, type Retention } from './ingest/retention.ts';
import { tableStatements } from './ingest/statements.ts';
import { createDrain } from './http/drain.ts';
import { listen } from './http/server.ts';
import type { Config } from './process/config.ts';
import { errorFields, type Logger } from './process/logger.ts';
import { Metrics } from './metrics/metrics.ts';
import { buildOpenApi } from './http/openapi.ts';
import { ResultCache } from './query/cache/result-cache.ts';
import { FairQueue } from './queue/fair-queue.ts';
import { queuedWriter } from './queue/queued-writer.ts';
import { POSTGRESQL } from './sql/dialect.ts';
import { loadRegistry, type Registry } from './query/registry.ts';
import { loadSqlParser } from './sql/sandbox/sql-parser.ts';
import type { Engine, LogWriter } from './store/engine.ts';
import { meterEngine } from './store/metered-engine.ts';
import { StoreCheck } from './store/store-check.ts';

const PACKAGE_JSON = new URL('../package.json', import.meta.url);

export interface Service {
  url: string;
  port: number;
  server: Server;
  registry: Registry;
  cache: ResultCache;
  /** The background deletion of old rows (RETENTION_DAYS); null when rows are kept. */
  retention: Retention | null;
  /** The engine as the service uses it (metered; `poolStats()` always answers). */
  engine: Engine;
  /**
   * Stop accepting, stop warming, let in-flight requests finish for up to DRAIN_TIMEOUT_MS (then cut
   * their connections, which cancels their statements). The engine stays open: its owner closes it.
   */
  close(): Promise<void>;
}

export interface ServiceOptions {
  config: Config;
  engine: Engine;
  /** The tokens to accept: the configured grants, or the one generated in embedded mode. */
  grants: readonly TokenGrant[];
  /** Writes to the log tables (ingest, retention); its opener closes it. Without it ingest is off. */
  writer?: LogWriter | null;
  logger: Logger;
  clock?: Clock;
}

/** Load and freeze everything, then listen. */
export async function startService(opts: ServiceOptions): Promise<Service> {
  const { config, logger } = opts;
  const parser = await loadSqlParser();
  const registry = loadRegistry(config.queriesDir, parser, config.compat, opts.engine.dialect, config.logSchema);
  // Before anything starts: a scope naming no stored query stops start-up here.
  const auth = createAuthenticator(opts.grants, config.metricsToken, registry, config.ingestTokens);
  const metrics = new Metrics();
  const engine = meterEngine(opts.engine, (outcome, ms) => metrics.observeDbQuery(outcome, ms));
  const cache = new ResultCache({
    maxEntries: config.cacheMaxEntries,
    maxBytes: config.cacheMaxBytes,
    ...(opts.clock ? { clock: opts.clock } : {}),
    onRefreshError: (_key, err) => logger.warn('cache refresh failed', errorFields(err)),
  });
  cache.startWarming();
  const drain = createDrain();
  const openapi = buildOpenApi(registry, packageVersion());
  // One queue per set of connections: the engine's, and the writer's own pool on PostgreSQL (the
  // embedded store's writer shares the engine's one session, so it takes turns in the same queue).
  const queueFor = (capacity: number, notReady?: () => Promise<void> | undefined) =>
    new FairQueue({ capacity, maxQueuedPerOwner: config.maxQueuedPerToken, maxQueued: config.poolMaxWaiting, queueTimeoutMs: config.queueTimeoutMs, observer: metrics.queueObserver, notReady });
  const queue = queueFor(engine.concurrency, engine.notReady);
  const rawWriter = opts.writer ?? null;
  const writerQueue = rawWriter === null || rawWriter.sharesEngine ? null : queueFor(rawWriter.concurrency);
  const queuedLogWriter = rawWriter === null ? null : queuedWriter(rawWriter, writerQueue ?? queue);
  const { callerStatementTimeoutMs } = config;
  // Loaded only in COMPAT=logflare: the translator and the deparser cost the default mode nothing.
  const dialect = config.compat === 'logflare' ? (await import('./sql/bigquery/bigquery-dialect.ts')).bigQueryDialect(parser) : POSTGRESQL;
  // Probes bypass the meter: they are the service's own, not statements run for callers.
  const store = new StoreCheck(opts.engine, registry.all, config.logSchema, opts.clock);
  const clock = opts.clock ?? SYSTEM_CLOCK;
  const writer = config.ingestTokens.length > 0 ? queuedLogWriter : null;
  const statements = tableStatements(config.logSchema, opts.engine.dialect);
  const ingest = createIngest({ auth, writer, statements, maxBodyBytes: config.ingestMaxBodyBytes, metrics, logger, clock });
  // On ClickHouse the tables' TTL drops old rows (clickhouse/schema.ts): no deletes.
  const retention = config.retentionDays !== null && queuedLogWriter && opts.engine.dialect === 'postgresql' ? startRetention({ writer: queuedLogWriter, statements, days: config.retentionDays, clock, logger }) : null;
  const { server, url, port } = await listen({ config, engine, registry, auth, cache, logger, metrics, drain, openapi, queue, writerQueue, callerStatementTimeoutMs, dialect, store, ingest });
  // Checked once at start-up, in the background (a database still starting must not hold up
  // listening): what is missing is logged with its fix; /ready and the calls report it too.
  // Closing waits for it: the engine's owner may close the engine as soon as close() resolves.
  const startupCheck = store.checkAll().then(
    (problems) => {
      for (const p of problems) logger.warn('log store not ready', { query: p.query, problem: p.what, fix: p.fix });
    },
    (err: unknown) => logger.warn('log store not checked: the database did not answer', errorFields(err)),
  );

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    server,
    registry,
    cache,
    retention,
    engine,
    close() {
      closing ??= (async () => {
        cache.stop();
        retention?.stop();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const drained = await drain.drain(config.drainTimeoutMs);
        if (!drained) logger.warn('drain timeout: closing connections of unfinished requests', { in_flight: drain.inFlight, drain_timeout_ms: config.drainTimeoutMs });
        // Whatever is still open now is idle keep-alive, a slow client, or a request past the deadline.
        server.closeAllConnections();
        await closed;
        await startupCheck;
      })();
      return closing;
    },
  };
}

/** The service version for the OpenAPI document. */
function packageVersion(): string {
  try {
    const { version } = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
