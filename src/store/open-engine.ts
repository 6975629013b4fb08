import type { Config } from '../process/config.ts';
import { responseShape } from './values/response-shape.ts';
import { errorFields, type Logger } from '../process/logger.ts';
import type { Engine, LogWriter } from './engine.ts';
import { createPgEngine } from './postgres/pg-engine.ts';
import { createPgWriter } from './postgres/pg-writer.ts';
import { WRITER_STATEMENT_TIMEOUT_MS } from './session-settings.ts';

/** What the service reads through, and what ingest and retention write through (null: nothing writes). */
export interface OpenedStore {
  engine: Engine;
  writer: LogWriter | null;
}

/**
 * The engine the configuration names: a `pg` pool on DATABASE_URL (and a writer's pool on
 * INGEST_DATABASE_URL when set), ClickHouse on CLICKHOUSE_URL (its writer on INGEST_DATABASE_URL, or in-process), else the embedded
 * store (whose one session also writes).
 */
export async function openEngine(config: Config, logger: Logger): Promise<OpenedStore> {
  if (config.clickhouseUrl !== null) {
    // Loaded only for ClickHouse: the client (and chdb, when embedded) cost the other engines nothing.
    const { openClickHouse } = await import('./clickhouse/open-clickhouse.ts');
    const { engine, writer } = await openClickHouse(config, logger);
    return { engine, writer };
  }
  if (config.databaseUrl !== null) {
    const writer = config.ingestDatabaseUrl === null
      ? null
      : createPgWriter({
          connectionString: config.ingestDatabaseUrl,
          schema: config.logSchema,
          poolMax: config.ingestPoolMax,
          connectTimeoutMs: config.connectTimeoutMs,
          statementTimeoutMs: WRITER_STATEMENT_TIMEOUT_MS,
          onIdleError: (err) => logger.warn('idle ingest connection lost', errorFields(err)),
        });
    const engine = createPgEngine({
      connectionString: config.databaseUrl,
      schema: config.logSchema,
      statementTimeoutMs: config.statementTimeoutMs,
      poolMax: config.poolMax,
      connectTimeoutMs: config.connectTimeoutMs,
      preparedStatements: config.preparedStatements,
      maxResultBytes: config.maxResultBytes,
      responseShape: responseShape(config),
      onIdleError: (err) => logger.warn('idle database connection lost', errorFields(err)),
    });
    return { engine, writer };
  }
  // Loaded only in embedded mode: importing PGlite alone costs ~40 MB of RSS the pg engine never uses.
  const { openEmbeddedStore } = await import('./pglite/embedded-store.ts');
  const { engine, writer } = await openEmbeddedStore(config, logger);
  return { engine, writer };
}
