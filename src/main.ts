import { generateToken } from './auth.ts';
import { ConfigError, readConfig, type Config } from './config.ts';
import type { Engine } from './engine/engine.ts';
import { createPgEngine } from './engine/pg-engine.ts';
import { createLogger, errorFields } from './logger.ts';
import { DefinitionError } from './registry.ts';
import { startService } from './service.ts';

/** How long in-flight requests may take to finish after SIGTERM/SIGINT before we exit anyway. */
const DRAIN_TIMEOUT_MS = 8_000;

async function main(): Promise<void> {
  let config: Config;
  try {
    config = readConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);

  let engine: Engine;
  let tokens = config.accessTokens;
  let generated: string | null = null;
  if (config.databaseUrl !== null) {
    engine = createPgEngine({
      connectionString: config.databaseUrl,
      schema: config.logSchema,
      statementTimeoutMs: config.statementTimeoutMs,
      poolMax: config.poolMax,
      connectTimeoutMs: config.connectTimeoutMs,
      onIdleError: (err) => logger.warn('idle database connection lost', errorFields(err)),
    });
  } else {
    // Loaded only in embedded mode: importing PGlite alone costs ~40 MB of RSS the pg engine never uses.
    const { openEmbeddedStore } = await import('./embedded.ts');
    ({ engine } = await openEmbeddedStore(config, logger));
    if (tokens.length === 0) {
      generated = generateToken();
      tokens = [generated];
    }
  }

  const service = await startService({ config, engine, tokens, logger });
  const names = service.registry.all.map((q) => q.name).join(', ');
  process.stdout.write(`saved-query endpoints listening on ${service.url} (engine: ${engine.name}; stored queries: ${names})\n`);
  if (generated !== null) {
    process.stdout.write(`access token (generated for this run; set ACCESS_TOKENS to choose one): ${generated}\n`);
    process.stdout.write(`try: curl -H 'X-API-KEY: ${generated}' '${service.url}/api/endpoints/query/logs.all?project=default'\n`);
  }

  const shutdown = (signal: string) => {
    logger.info('shutting down', { signal });
    const force = setTimeout(() => process.exit(0), DRAIN_TIMEOUT_MS);
    force.unref();
    service.close().then(
      () => process.exit(0),
      (err) => {
        logger.error('shutdown failed', errorFields(err));
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  if (err instanceof DefinitionError || err instanceof ConfigError) {
    process.stderr.write(`start-up failed: ${err.message}\n`);
  } else {
    process.stderr.write(`start-up failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(1);
});
