/**
 * RETENTION_DAYS: rows older than that are deleted in the background, never on a request's path,
 * through the log writer (its own connection and role), in batches small enough that no delete
 * holds locks or the embedded session for long. Deletes from `edge_logs` go through its rollup's
 * triggers like any other, so `usage.api-counts` stays exact.
 */
import type { Clock } from '../shared/clock.ts';
import { errorFields, type Logger } from '../process/logger.ts';
import type { LogWriter } from '../store/engine.ts';
import { LOG_TABLES, type LogTable } from '../store/schema.ts';
import { microsText } from './event-timestamp.ts';
import type { TableStatements } from './statements.ts';

/** Rows one statement deletes at most. */
export const RETENTION_BATCH = 5_000;
/** How often a pass runs (the first one a minute after start-up). */
const EVERY_MS = 10 * 60_000;
const FIRST_AFTER_MS = 60_000;

export interface Retention {
  /** One pass over every table now; resolves with the rows deleted. */
  runOnce(): Promise<number>;
  stop(): void;
}

export function startRetention(opts: { writer: LogWriter; statements: Readonly<Record<LogTable, TableStatements>>; days: number; clock: Clock; logger: Logger }): Retention {
  const { statements } = opts;
  // Its own turn on the embedded store: a long pass never holds back a caller's query.
  const owner = Object.freeze({});
  let running: Promise<number> | undefined;
  const pass = async (): Promise<number> => {
    const cutoff = microsText((opts.clock.now() - opts.days * 86_400_000) * 1000);
    let deleted = 0;
    for (const table of LOG_TABLES) {
      for (;;) {
        const n = await opts.writer.write(statements[table].deleteOlder, [cutoff, RETENTION_BATCH], { owner });
        deleted += n;
        if (n < RETENTION_BATCH) break;
      }
    }
    return deleted;
  };
  const runOnce = (): Promise<number> => {
    running ??= pass().finally(() => {
      running = undefined;
    });
    return running;
  };
  const tick = () => {
    runOnce().then(
      (deleted) => {
        if (deleted > 0) opts.logger.info('retention: deleted old log rows', { rows: deleted, days: opts.days });
      },
      (err: unknown) => opts.logger.warn('retention pass failed; the next one retries', errorFields(err)),
    );
  };
  const first = setTimeout(tick, FIRST_AFTER_MS);
  const timer = setInterval(tick, EVERY_MS);
  first.unref();
  timer.unref();
  return {
    runOnce,
    stop() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
