import type { Clock } from '../../src/shared/clock.ts';
import { readConfig, SETTINGS } from '../../src/process/config.ts';
import { createLogger, type Logger } from '../../src/process/logger.ts';
import { startService, type Service } from '../../src/service.ts';
import type { TestStore } from './engines.ts';

export const TOKEN = 'test-token-0123456789abcdef';

/**
 * The environment for a service child process: the parent's, without any variable the service
 * reads (the parent's values must not leak into the child), then exactly `env`.
 */
export function serviceChildEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(SETTINGS)) delete base[name];
  return { ...base, ...env };
}

/** The shipped stored queries' ids (sql/queries/*.json), for tests that call by id. */
export const LOGS_ALL_ID = 'dbfa1333-137e-484c-a48a-ab8e074edc7c';
export const USAGE_ID = '5bcef039-51e9-4b34-b532-b1b3b908833d';

/**
 * Start the real service on port 0 over a test store. The service never closes the store's
 * engine (its opener does: `store.teardown()`), so several services can share one store.
 * `env` is the environment the service reads (QUERIES_DIR for other stored queries).
 */
export async function startTestService(store: TestStore, env: Record<string, string> = {}, clock?: Clock, logger?: Logger): Promise<Service> {
  const config = readConfig({ PORT: '0', HOST: '127.0.0.1', ACCESS_TOKENS: TOKEN, LOG_LEVEL: 'silent', ...store.serviceEnv, ...env });
  return startService({
    config,
    engine: store.engine,
    writer: store.writer ?? null,
    grants: config.accessTokens,
    logger: logger ?? createLogger('silent'),
    ...(clock ? { clock } : {}),
  });
}

/** fetch with the test token unless headers say otherwise. */
export function call(base: string, path: string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<Response> {
  return fetch(base + path, { ...init, headers: { 'X-API-KEY': TOKEN, ...(init.headers ?? {}) } });
}
