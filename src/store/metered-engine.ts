import { performance } from 'node:perf_hooks';
import type { Engine, PoolStats } from './engine.ts';

/** How a database statement ended, for metrics. */
export type QueryOutcome = 'ok' | 'error' | 'cancelled';

/**
 * Wrap an engine so every statement (callers' and background cache refreshes alike) reports its
 * duration and outcome. Done here rather than in endpoint.ts so the request path stays untouched.
 * An engine without a pool (PGlite: one connection, statements run one after another) gets a pool
 * view computed from the statements in flight: one in use, the rest waiting.
 */
export function meterEngine(inner: Engine, observe: (outcome: QueryOutcome, durationMs: number) => void): Engine & { poolStats(): PoolStats } {
  let inFlight = 0;
  return {
    name: inner.name,
    dialect: inner.dialect,
    concurrency: inner.concurrency,
    async query(sql, params, options = {}) {
      const started = performance.now();
      inFlight++;
      try {
        const rows = await inner.query(sql, params, options);
        observe('ok', performance.now() - started);
        return rows;
      } catch (err) {
        observe(options.signal?.aborted ? 'cancelled' : 'error', performance.now() - started);
        throw err;
      } finally {
        inFlight--;
      }
    },
    ...(inner.notReady ? { notReady: inner.notReady } : {}),
    ping: () => inner.ping(),
    close: () => inner.close(),
    poolStats() {
      if (inner.poolStats) return inner.poolStats();
      const inUse = Math.min(inFlight, 1);
      return { total: 1, idle: 1 - inUse, waiting: Math.max(0, inFlight - 1), max: 1 };
    },
  };
}
