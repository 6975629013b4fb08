import { generateGrant } from './auth/authenticator.ts';
import { CommandError } from './commands/command.ts';
import { ConfigError } from './shared/errors.ts';
import { readConfig, type Config } from './process/config.ts';
import { openEngine } from './store/open-engine.ts';
import { createLogger, errorFields } from './process/logger.ts';
import { DefinitionError } from './query/registry.ts';
import { startService } from './service.ts';
import { pinTickShape } from './process/tick-shape.ts';

/** After the drain deadline, how long closing connections and the pool may take before the process exits regardless. */
const CLOSE_GRACE_MS = 1_500;

/** `node dist/main.js [serve]`: the service. */
async function serve(): Promise<void> {
  // Before start-up's own full GC can make node's nextTick slow for the life of the process.
  const tickShape = pinTickShape();
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
  for (const warning of config.warnings) logger.warn(warning);

  const { engine, writer } = await openEngine(config, logger);
  // Embedded mode without a configured token: one generated for this run, an ordinary grant.
  const generated = config.databaseUrl === null && config.accessTokens.length === 0 ? generateGrant() : null;
  const grants = generated === null ? config.accessTokens : [generated.grant];

  const service = await startService({ config, engine, writer, grants, logger }).catch(async (err: unknown) => {
    await writer?.close().catch(() => {});
    await engine.close().catch(() => {});
    throw err;
  });
  const names = service.registry.all.map((q) => q.name).join(', ');
  const scoped = config.accessTokens.filter((g) => g.scope !== null).length;
  const tokenNote = generated === null ? `; access tokens: ${grants.length}${scoped > 0 ? `, ${scoped} scoped` : ''}` : '';
  const ingestNote = config.ingestTokens.length > 0 ? `ingest: on, ${config.ingestTokens.length} token${config.ingestTokens.length === 1 ? '' : 's'}` : 'ingest: off';
  // Listening on every interface (the image's HOST=0.0.0.0): 0.0.0.0 is not an address to open.
  const everywhere = ['0.0.0.0', '::'].includes(config.host);
  const reachable = everywhere ? service.url.replace(/\/\/(?:0\.0\.0\.0|\[::\]):/, '//127.0.0.1:') : service.url;
  // One write: whoever reads the start-up line (a person, a supervisor, test/process.test.ts) gets
  // the generated token with it, never in a later chunk.
  const started = [`saved-query endpoints listening on ${service.url} (engine: ${engine.name}; stored queries: ${names}${tokenNote}; ${ingestNote})`];
  if (generated !== null) {
    started.push(`access token (generated for this run; set ACCESS_TOKENS to choose one): ${generated.token}`);
    started.push(`try: curl -H 'X-API-KEY: ${generated.token}' '${reachable}/api/endpoints/query/logs.all?project=default'`);
  }
  started.push(`explorer: open ${reachable}/ in a browser${everywhere ? " (from another machine: this host's address)" : ''}`);
  // Regression: the line was written before these handlers existed, and a supervisor (or
  // test/process.test.ts) that signals as soon as it reads the line killed the process outright.
  let stopping = false;
  const shutdown = (signal: string) => {
    // A second signal (Ctrl-C twice) means "now", as an operator expects.
    if (stopping) {
      logger.warn('second signal: exiting without waiting', { signal });
      process.exit(1);
    }
    stopping = true;
    logger.info('shutting down', { signal, drain_timeout_ms: config.drainTimeoutMs });
    const force = setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting', { signal });
      process.exit(1);
    }, config.drainTimeoutMs + CLOSE_GRACE_MS);
    force.unref();
    service.close().then(() => writer?.close()).then(() => engine.close()).then(
      () => {
        // Held until here: this closure is what keeps the pinned entry reachable while serving.
        tickShape.release();
        logger.info('shut down', { signal });
        process.exit(0);
      },
      (err) => {
        logger.error('shutdown failed', errorFields(err));
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.stdout.write(started.join('\n') + '\n');
}

const USAGE = `usage: node dist/main.js [command]
  serve            run the service (the default; configured by environment variables, see README)
  schema           apply sql/schema.sql to DATABASE_URL, or the ClickHouse tables to CLICKHOUSE_URL
                   (--cluster NAME: replicated + Distributed, ON CLUSTER; --cluster NAME
                   --no-replication: MergeTree + Distributed on this node, run once per node); idempotent
  seed [--rows N]  write demo logs to DATABASE_URL, or to the embedded store in DATA_DIR`;

/** One entry point for the service and its maintenance commands, so a production install needs no dev tools. */
async function main(argv: readonly string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  switch (command) {
    case 'serve':
      if (rest.length > 0) throw new CommandError(`unknown argument "${rest[0]}" (the service reads its settings from the environment)`);
      return serve();
    case 'schema':
      return (await import('./commands/schema.ts')).schemaCommand(rest, process.env);
    case 'seed':
      return (await import('./commands/seed.ts')).seedCommand(rest, process.env);
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE + '\n');
      return;
    default:
      throw new CommandError(`unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const command = process.argv[2] ?? 'serve';
  // A maintenance command's failure (bad argument, connection refused) is its message, not a stack.
  if (err instanceof CommandError || (command !== 'serve' && err instanceof Error)) {
    process.stderr.write(`${command}: ${(err as Error).message}\n`);
    process.exit(1);
  } else if (err instanceof ConfigError) {
    // e.g. a token scope naming no stored query: found only once the registry is loaded.
    process.stderr.write(`configuration error: ${err.message}\n`);
    process.exit(2);
  } else if (err instanceof DefinitionError) {
    process.stderr.write(`start-up failed: ${err.message}\n`);
  } else {
    process.stderr.write(`start-up failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(1);
});
