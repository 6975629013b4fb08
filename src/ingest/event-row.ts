/**
 * One ingested event → one log-table row, by Logflare's rules (v1.31.2,
 * `lib/logflare/logs/log_event.ex` make/3, mapper/1): `id` a given non-empty string of at most 256
 * characters, else a new UUID v4 (never a hash of the content: two identical Kong lines in one
 * second are two requests); `timestamp` per event-timestamp.ts, else the time of ingest;
 * `event_message` = `message` ?? `event_message` (text kept, numbers and booleans as text, objects
 * as JSON, null as ''); `project` the top-level string; `metadata` the cleaned, key-normalised
 * object (logflare-body.ts), `{}` when absent. Other top-level keys (`appname`, `severity`, …) are
 * dropped: the stored queries never return them, in Logflare either. An event this cannot store
 * is rejected with a reason; the others of its batch are unaffected.
 */
import { randomUUID } from 'node:crypto';
import { cleanObject, depthWithin, MAX_DEPTH, storable } from './logflare-body.ts';
import { eventMicros, microsText } from './event-timestamp.ts';
import type { LogRow } from '../store/schema.ts';

/** A log table's row as ingest makes it (the log store's columns: store/schema.ts). */
export type EventRow = LogRow;

export type EventOutcome = { row: EventRow; micros: number } | { rejected: string };

const MAX_ID_CHARS = 256;

/** Map one event; `nowMicros` is the time of ingest, for events without a usable timestamp. */
export function eventRow(event: unknown, nowMicros: number): EventOutcome {
  if (event === null || typeof event !== 'object' || Array.isArray(event)) return { rejected: 'an event must be a JSON object' };
  if (!depthWithin(event, MAX_DEPTH + 1)) return { rejected: `an event may nest at most ${MAX_DEPTH} levels deep` };
  const e = event as Record<string, unknown>;
  const metadata = e.metadata;
  if (metadata !== undefined && metadata !== null && (typeof metadata !== 'object' || Array.isArray(metadata))) {
    return { rejected: `metadata must be a JSON object, got ${Array.isArray(metadata) ? 'an array' : typeof metadata}` };
  }
  const micros = eventMicros(e.timestamp) ?? nowMicros;
  const id = typeof e.id === 'string' && e.id !== '' && e.id.length <= MAX_ID_CHARS ? storable(e.id) : randomUUID();
  return {
    micros,
    row: {
      id,
      timestamp: microsText(micros),
      event_message: storable(messageText(e.message ?? e.event_message)),
      project: typeof e.project === 'string' ? storable(e.project) : null,
      metadata: metadata === undefined || metadata === null ? {} : (cleanObject(metadata as Record<string, unknown>) ?? {}),
    },
  };
}

function messageText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}
