import { responseShape, type Config } from '../ops/config.ts';
import { errorFields, type Logger } from '../ops/logger.ts';
import type { Engine } from './engine.ts';
import { createPgEngine } from './pg-engine.ts';

/** The engine the configuration names: a `pg` pool on DATABASE_URL, else the embedded store. */
export async function openEngine(config: Config, logger: Logger): Promise<Engine> {
  if (config.databaseUrl !== null) {
    return createPgEngine({
      connectionString: config.databaseUrl,
      schema: config.logSchema,
      statementTimeoutMs: config.statementTimeoutMs,
      poolMax: config.poolMax,
      poolMaxWaiting: config.poolMaxWaiting,
      connectTimeoutMs: config.connectTimeoutMs,
      preparedStatements: config.preparedStatements,
      maxResultBytes: config.maxResultBytes,
      responseShape: responseShape(config),
      onIdleError: (err) => logger.warn('idle database connection lost', errorFields(err)),
    });
  }
  // Loaded only in embedded mode: importing PGlite alone costs ~40 MB of RSS the pg engine never uses.
  const { openEmbeddedStore } = await import('./embedded-store.ts');
  return (await openEmbeddedStore(config, logger)).engine;
}
