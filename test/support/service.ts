import { readConfig } from '../../src/ops/config.ts';
import type { Clock } from '../../src/query/cache/result-cache.ts';
import type { Engine } from '../../src/store/engine.ts';
import { createLogger, type Logger } from '../../src/ops/logger.ts';
import { startService, type Service } from '../../src/service.ts';
import type { TestStore } from './engines.ts';

export const TOKEN = 'test-token-0123456789abcdef';

export interface TestServiceOptions {
  queriesDir?: string;
  /** Leave the store's engine open when the service closes, for another service on the same store. */
  shareEngine?: boolean;
  logger?: Logger;
}

/** Start the real service on port 0 over a test store. */
export async function startTestService(store: TestStore, env: Record<string, string> = {}, clock?: Clock, extra: TestServiceOptions = {}): Promise<Service> {
  const config = readConfig({ PORT: '0', HOST: '127.0.0.1', ACCESS_TOKENS: TOKEN, LOG_LEVEL: 'silent', ...env });
  // The service closes its engine on close(); a shared one gets a close that does nothing.
  const engine: Engine = extra.shareEngine ? { ...store.engine, close: async () => {} } : store.engine;
  return startService({
    config,
    engine,
    tokens: config.accessTokens,
    logger: extra.logger ?? createLogger('silent'),
    ...(clock ? { clock } : {}),
    ...(extra.queriesDir ? { queriesDir: extra.queriesDir } : {}),
  });
}

/** fetch with the test token unless headers say otherwise. */
export function call(base: string, path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
  return fetch(base + path, { ...init, headers: { 'X-API-KEY': TOKEN, ...(init.headers ?? {}) } });
}
