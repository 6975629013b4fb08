/**
 * Helpers for the operability tests: a service with a capturing logger and optional stored-query
 * directory, Prometheus text parsing, polling, and a view of pg_stat_activity.
 */
import { readConfig } from '../../src/process/config.ts';
import { createLogger } from '../../src/process/logger.ts';
import type { Service } from '../../src/service.ts';
import type { TestStore } from './engines.ts';
import { startTestService, TOKEN } from './service.ts';


export interface OpsService extends Service {
  /** Every log line written, parsed. */
  logs: Record<string, unknown>[];
  /** Every log line written, raw. */
  rawLogs: string[];
}

/** The real service on port 0 over `store`, logging at info into memory. */
export async function startOpsService(store: TestStore, env: Record<string, string> = {}, queriesDir?: string): Promise<OpsService> {
  const level = readConfig({ LOG_LEVEL: 'info', ...env }).logLevel;
  const rawLogs: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger(level, (line) => {
    rawLogs.push(line);
    logs.push(JSON.parse(line) as Record<string, unknown>);
  });
  const service = await startTestService(store, { LOG_LEVEL: 'info', ...env, ...(queriesDir ? { QUERIES_DIR: queriesDir } : {}) }, undefined, logger);
  return Object.assign(service, { logs, rawLogs });
}

/** Prometheus text → sample name with labels (as written) → value. */
export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** Scrape /metrics and parse it. */
export async function scrape(base: string, headers: Record<string, string> = { 'X-API-KEY': TOKEN }): Promise<Map<string, number>> {
  const res = await fetch(`${base}/metrics`, { headers });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return parseMetrics(await res.text());
}

/** Poll `probe` until it returns true; throw after `timeoutMs`. Returns the milliseconds it took. */
export async function waitFor(what: string, probe: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 25): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Statements running pg_sleep in the store's database, other than this probe itself. */
export async function activeSleeps(store: TestStore): Promise<number> {
  const result = (await store.admin(
    "select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and query like '%pg' || '_sleep%' and pid <> pg_backend_pid()",
  )) as { rows: { n: number }[] };
  return result.rows[0]!.n;
}
