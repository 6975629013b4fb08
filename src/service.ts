import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createAuthenticator } from './auth.ts';
import { ResultCache, type Clock } from './cache.ts';
import type { Config } from './config.ts';
import type { Engine } from './engine/engine.ts';
import { errorFields, type Logger } from './logger.ts';
import { DefinitionError, loadRegistry, type Registry } from './registry.ts';
import { initSandbox, prepareStored } from './sandbox.ts';
import { listen } from './server.ts';

/** Directory of the stored queries shipped with the service. */
export const QUERIES_DIR = fileURLToPath(new URL('../sql/queries/', import.meta.url));

export interface Service {
  url: string;
  port: number;
  server: Server;
  registry: Registry;
  cache: ResultCache;
  /** Stop accepting, let in-flight requests finish, stop warming, close the engine. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  config: Config;
  engine: Engine;
  /** The tokens to accept (config tokens, or the one generated in embedded mode). */
  tokens: readonly string[];
  logger: Logger;
  queriesDir?: string;
  clock?: Clock;
  /** Close the engine on close() (default). Tests that share one engine between services say false. */
  closeEngine?: boolean;
}

/** Load and freeze everything, then listen. The engine is created by the caller (main or a test). */
export async function startService(opts: ServiceOptions): Promise<Service> {
  const { config, engine, logger } = opts;
  const registry = loadRegistry(opts.queriesDir ?? QUERIES_DIR);
  await initSandbox();
  // A stored statement that cannot take caller SQL is a definition error at start-up, not a 500 later.
  for (const q of registry.all) {
    if (!q.sandboxing) continue;
    try {
      prepareStored(q.boundSql);
    } catch (err) {
      throw new DefinitionError(`${q.file}: sandboxing is enabled but the statement cannot be sandboxed: ${(err as Error).message}`);
    }
  }
  const cache = new ResultCache({
    maxEntries: config.cacheMaxEntries,
    maxBytes: config.cacheMaxBytes,
    ...(opts.clock ? { clock: opts.clock } : {}),
    onRefreshError: (_key, err) => logger.warn('cache refresh failed', errorFields(err)),
  });
  cache.startWarming();
  const auth = createAuthenticator(opts.tokens);
  const { server, url, port } = await listen({ config, engine, registry, auth, cache, logger });

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    server,
    registry,
    cache,
    close() {
      closing ??= (async () => {
        cache.stop();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        if (opts.closeEngine !== false) await engine.close();
      })();
      return closing;
    },
  };
}
