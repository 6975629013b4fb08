import type { LogWriter } from '../store/engine.ts';
import type { FairQueue } from './fair-queue.ts';

/**
 * The log writer behind a fair queue: ingest batches take turns by ingest token, retention's
 * deletes only when no batch waits. On the embedded store the queue is the query path's own (one
 * session serves both); on PostgreSQL it is the writer pool's.
 */
export function queuedWriter(inner: LogWriter, queue: FairQueue): LogWriter {
  return Object.freeze({
    concurrency: inner.concurrency,
    sharesEngine: inner.sharesEngine,
    write(sql: string, params: readonly unknown[], turn?: Parameters<LogWriter['write']>[2]): Promise<number> {
      if (turn === undefined) return inner.write(sql, params);
      const background = turn.background === true;
      return queue.run(turn.owner, () => inner.write(sql, params, turn), { cls: background ? 'retention' : 'ingest', background, ...(turn.signal ? { signal: turn.signal } : {}) });
    },
    close: () => inner.close(),
  });
}
