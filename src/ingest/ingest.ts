/**
 * One ingest request's events into one table: map each (event-row.ts), drop those more than an
 * hour in the future (Logflare does: `backends.ex` @max_future_event_us), write the rest in one
 * statement, and answer only after it committed. Writes Vector can trust (its retry rules,
 * `src/sinks/util/http.rs` HttpStatusRetryLogic: 408, 429 and 5xx but 501 are retried, other 4xx
 * dropped): a database that cannot take the write now is 503 + Retry-After, so the batch comes
 * back; bad data is a deterministic 4xx, never a 5xx that would repeat forever. An event the
 * database refuses is found by writing the batch's events one by one, so it alone is rejected.
 */
import type { Clock } from '../shared/clock.ts';
import { HttpError } from '../shared/errors.ts';
import { TurnAbandoned } from '../queue/fair-queue.ts';
import type { LogWriter } from '../store/engine.ts';
import { databaseUnavailable } from '../store/db-errors.ts';
import { isStoreError, STORE_RETRY_AFTER_SECONDS } from '../store/store-check.ts';
import type { LogTable } from '../store/schema.ts';
import { eventIds, eventRow, type EventRow } from './event-row.ts';
import type { TableStatements } from './statements.ts';

/** What became of a request's events. */
export interface IngestCounts {
  /** Events in the request. */
  received: number;
  stored: number;
  duplicate: number;
  rejected: number;
  dropped: number;
}

const FUTURE_LIMIT_MICROS = 3_600_000_000;
/** Reasons named in a 406's message (the counts say how many there were). */
const REASONS_SHOWN = 5;

export interface IngestDeps {
  writer: LogWriter;
  statements: Readonly<Record<LogTable, TableStatements>>;
  clock: Clock;
}

/** What an ingest call did: the counts, and why each rejected event was (in event order). */
export interface IngestOutcome {
  counts: IngestCounts;
  reasons: readonly string[];
}

/**
 * Store `events` in `table`; resolves with what became of them (rejected events included), or
 * rejects with the 503 to answer when the database cannot take the write now. `sent` is the
 * digest of the body they came in (ingest-body.ts).
 */
export async function ingestEvents(deps: IngestDeps, table: LogTable, events: readonly unknown[], sent: string, owner: object, signal?: AbortSignal): Promise<IngestOutcome> {
  // The same body sent again (a sender's retry) carries the same key, whatever ids ingest makes up.
  const batchKey = `${table}:${sent}`;
  const turn = { owner, batchKey, ...(signal ? { signal } : {}) };
  const now = deps.clock.now() * 1000;
  const idAt = eventIds(batchKey);
  const rows: EventRow[] = [];
  const reasons: string[] = [];
  let dropped = 0;
  events.forEach((event, i) => {
    const out = eventRow(event, now, () => idAt(i));
    if ('rejected' in out) reasons.push(`event ${i}: ${out.rejected}`);
    else if (out.micros > now + FUTURE_LIMIT_MICROS) {
      dropped++;
      reasons.push(`event ${i}: its timestamp is more than an hour ahead of this service's clock, so it is dropped (as Logflare drops it)`);
    }
    else rows.push(out.row);
  });
  let stored = 0;
  let refused = 0;
  if (rows.length > 0) {
    const { insert, insertParams } = deps.statements[table];
    try {
      stored = await deps.writer.write(insert, insertParams(rows), turn);
    } catch (err) {
      if (!isDataError(err)) throw writeError(err);
      // Somewhere in the batch is a row the database refuses: write them one by one to keep the rest.
      for (const [i, row] of rows.entries()) {
        try {
          stored += await deps.writer.write(insert, insertParams([row]), { ...turn, batchKey: `${batchKey}:${i}` });
        } catch (rowErr) {
          if (!isDataError(rowErr)) throw writeError(rowErr);
          refused++;
          reasons.push(`event id ${JSON.stringify(row.id.slice(0, 64))}: ${(rowErr as Error).message}`);
        }
      }
    }
  }
  // What the database stored nothing for, without refusing it, was already there (the same id).
  return { counts: { received: events.length, stored, duplicate: rows.length - refused - stored, rejected: reasons.length - dropped, dropped }, reasons };
}

/** Whether some events of a call were not stored (rejected, or dropped as too far in the future): answered 406. */
export function someNotStored({ counts }: IngestOutcome): boolean {
  return counts.rejected + counts.dropped > 0;
}

/** The 406 for a call that stored some events or none but not all, with its counts. */
export function eventsRejected({ counts, reasons }: IngestOutcome): HttpError {
  const shown = reasons.slice(0, REASONS_SHOWN).join('; ');
  const kinds = [counts.rejected > 0 ? `${counts.rejected} rejected` : '', counts.dropped > 0 ? `${counts.dropped} dropped` : ''].filter(Boolean).join(', ');
  const rest = counts.received - counts.rejected - counts.dropped;
  return new HttpError('events_rejected', `${counts.rejected + counts.dropped} of ${counts.received} events were not stored (${kinds})${rest > 0 ? ` and the other ${rest} were` : ''}: ${shown}${reasons.length > REASONS_SHOWN ? '; …' : ''}.`, {
    details: { ...counts },
  });
}

/** A database refusing the data itself: data exceptions, integrity violations, program limits. */
function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(?:22|23|54)/.test(code);
}

/**
 * Anything else a write can meet is retried by Vector: a 503 with Retry-After for every state
 * the database can come out of (unreachable, full, shutting down, serialization failure, deadlock,
 * statement or lock timeout, a missing table or grant an operator can fix), so no batch is lost.
 */
function writeError(err: unknown): Error {
  // The writer's queue refused it (429, 503 overloaded) or its sender left while it waited: as it is.
  if (err instanceof HttpError || (err instanceof TurnAbandoned)) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (isStoreError(err)) {
    return new HttpError('store_not_ready', `The log store cannot take this write (${message}): apply the schema (node dist/main.js schema) and grant the ingest role INSERT on the log tables (README, "Ingest logs from Vector"); the batch is kept by its sender until then.`, {
      headers: { 'Retry-After': STORE_RETRY_AFTER_SECONDS },
      cause: err,
    });
  }
  return databaseUnavailable(err, `The log store could not take the write now (${message}); retry shortly.`);
}
