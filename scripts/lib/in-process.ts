/**
 * The service started inside a script's own process, the way main.ts starts it: on DATABASE_URL
 * when set (schema and data already there, e.g. after `npm run seed`), else on the embedded store
 * seeded with demo logs (SEED_ROWS). Environment variables apply as usual; `overrides` win.
 */
import { readConfig, type Config } from '../../src/process/config.ts';
import { openEngine } from '../../src/store/open-engine.ts';
import { createLogger } from '../../src/process/logger.ts';
import { startService, type Service } from '../../src/service.ts';

export interface InProcess {
  service: Service;
  config: Config;
  token: string;
  engineName: string;
  /** Close the service, then the engine this script opened. */
  close(): Promise<void>;
}

export const SCRIPT_TOKEN = 'script-token-0123456789abcdef';

export async function startInProcess(overrides: Record<string, string> = {}): Promise<InProcess> {
  // The script's one token stands for many clients: no per-token statement limit unless asked for.
  const config = readConfig({ LOG_LEVEL: 'warn', ...process.env, PORT: '0', ACCESS_TOKENS: SCRIPT_TOKEN, ACCESS_TOKENS_FILE: '', ...overrides });
  const logger = createLogger(config.logLevel);
  const { engine, writer } = await openEngine(config, logger);
  const service = await startService({ config, engine, writer, grants: config.accessTokens, logger });
  const close = async () => {
    await service.close();
    await writer?.close();
    await engine.close();
  };
  return { service, config, token: SCRIPT_TOKEN, engineName: engine.name, close };
}
