import { readConfig } from '../../src/config.ts';
import type { Clock } from '../../src/cache.ts';
import { createLogger } from '../../src/logger.ts';
import { startService, type Service } from '../../src/service.ts';
import type { TestStore } from './engines.ts';

export const TOKEN = 'test-token-0123456789abcdef';

/** Start the real service on port 0 over a test store (optionally with other stored queries). */
export async function startTestService(store: TestStore, env: Record<string, string> = {}, clock?: Clock, queriesDir?: string): Promise<Service> {
  const config = readConfig({ PORT: '0', HOST: '127.0.0.1', ACCESS_TOKENS: TOKEN, LOG_LEVEL: 'silent', ...env });
  return startService({
    config,
    engine: store.engine,
    tokens: config.accessTokens,
    logger: createLogger('silent'),
    ...(clock ? { clock } : {}),
    ...(queriesDir ? { queriesDir } : {}),
  });
}

/** fetch with the test token unless headers say otherwise. */
export function call(base: string, path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
  return fetch(base + path, { ...init, headers: { 'X-API-KEY': TOKEN, ...(init.headers ?? {}) } });
}
