import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { TokenGrant } from './auth/access-tokens.ts';
import { createAuthenticator } from './auth/authenticator.ts';
import { ResultCache, type Clock } from './query/cache/result-cache.ts';
import type { Config } from './ops/config.ts';
import { createDrain } from './http/drain.ts';
import type { Engine } from './store/engine.ts';
import { meterEngine } from './store/metered-engine.ts';
import { errorFields, type Logger } from './ops/logger.ts';
import { Metrics } from './ops/metrics.ts';
import { buildOpenApi } from './ops/openapi.ts';
import { loadRegistry, type Registry } from './query/registry.ts';
import { initSandbox } from './query/sandbox/sandbox.ts';
import { listen } from './http/server.ts';

/** Directory of the stored queries shipped with the service. */
export const QUERIES_DIR = fileURLToPath(new URL('../sql/queries/', import.meta.url));
const PACKAGE_JSON = new URL('../package.json', import.meta.url);

export interface Service {
  url: string;
  port: number;
  server: Server;
  registry: Registry;
  cache: ResultCache;
  /** The engine as the service uses it (metered; `poolStats()` always answers). */
  engine: Engine;
  /**
   * Stop accepting, stop warming, let in-flight requests finish for up to DRAIN_TIMEOUT_MS (then cut
   * their connections, which cancels their statements), close the engine.
   */
  close(): Promise<void>;
}

export interface ServiceOptions {
  config: Config;
  engine: Engine;
  /** The tokens to accept: config grants, or plain strings (unscoped; the token generated in embedded mode). */
  tokens: readonly (string | TokenGrant)[];
  logger: Logger;
  /** Overrides config.queriesDir (tests). */
  queriesDir?: string;
  clock?: Clock;
}

/** Load and freeze everything, then listen. The engine is created by the caller (main or a test). */
export async function startService(opts: ServiceOptions): Promise<Service> {
  const { config, logger } = opts;
  // The parser first: the registry analyses each sandboxed statement while it loads.
  await initSandbox();
  const registry = loadRegistry(opts.queriesDir ?? config.queriesDir ?? QUERIES_DIR);
  // Before anything starts: a scope naming no stored query stops start-up here.
  const auth = createAuthenticator(opts.tokens, registry);
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
  const { server, url, port } = await listen({ config, engine, registry, auth, cache, logger, metrics, drain, openapi });

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    server,
    registry,
    cache,
    engine,
    close() {
      closing ??= (async () => {
        cache.stop();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const drained = await drain.drain(config.drainTimeoutMs);
        if (!drained) logger.warn('drain timeout: closing connections of unfinished requests', { in_flight: drain.inFlight, drain_timeout_ms: config.drainTimeoutMs });
        // Whatever is still open now is idle keep-alive, a slow client, or a request past the deadline.
        server.closeAllConnections();
        await closed;
        await engine.close();
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
