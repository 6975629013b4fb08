/**
 * One ingested event → one log-table row, by Logflare's rules (v1.31.2,
 * `lib/logflare/logs/log_event.ex` make/3, mapper/1): `id` a given non-empty string of at most 256
 * characters, else a UUID v4 made from the digest of the body it came in and its position there
 * (eventIds): two identical Kong lines in one second are two requests, and the same body sent again
 * (a sender's retry) gets the same ids, so every store keeps it once (on a ClickHouse cluster the id
 * also picks the shard, and a resend lands where the first one did); `timestamp` per event-timestamp.ts, else the time of ingest;
 * `event_message` = `message` ?? `event_message` (text kept, numbers and booleans as text, objects
 * as JSON, null as ''); `project` the top-level string; `metadata` the cleaned, key-normalised
 * object (logflare-body.ts), `{}` when absent. Other top-level keys (`appname`, `severity`, …) are
 * dropped: the stored queries never return them, in Logflare either. An event this cannot store
 * is rejected with a reason; the others of its batch are unaffected.
 */
import { createHash } from 'node:crypto';
import { cleanObject, depthWithin, MAX_DEPTH, storable } from './logflare-body.ts';
import { eventMicros, microsText } from './event-timestamp.ts';
import type { LogRow } from '../store/schema.ts';

/** A log table's row as ingest makes it (the log store's columns: store/schema.ts). */
export type EventRow = LogRow;

export type EventOutcome = { row: EventRow; micros: number } | { rejected: string };

const MAX_ID_CHARS = 256;

/**
 * The ids ingest makes for the events of one body: a UUID v4's shape, its free bits the first of
 * sha256(`batchKey`) with the event's index XORed into the last four bytes, so the same body gives
 * the same ids and two places never do (one hash a body: ~0.5 µs an id, where a hash per event
 * cost ~9 µs, measured).
 */
export function eventIds(batchKey: string): (index: number) => string {
  const base = createHash('sha256').update(batchKey).digest().subarray(0, 16);
  base[6] = (base[6]! & 0x0f) | 0x40;
  base[8] = (base[8]! & 0x3f) | 0x80;
  return (index) => {
    const b = Buffer.from(base);
    b.writeUInt32BE((b.readUInt32BE(12) ^ index) >>> 0, 12);
    const x = b.toString('hex');
    return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
  };
}

/**
 * Map one event; `nowMicros` is the time of ingest, for events without a usable timestamp; `madeId`
 * the id it gets without one of its own (eventIds).
 */
export function eventRow(event: unknown, nowMicros: number, madeId: () => string): EventOutcome {
  if (event === null || typeof event !== 'object' || Array.isArray(event)) return { rejected: 'an event must be a JSON object' };
  if (!depthWithin(event, MAX_DEPTH + 1)) return { rejected: `an event may nest at most ${MAX_DEPTH} levels deep` };
  const e = event as Record<string, unknown>;
  const metadata = e.metadata;
  if (metadata !== undefined && metadata !== null && (typeof metadata !== 'object' || Array.isArray(metadata))) {
    return { rejected: `metadata must be a JSON object, got ${Array.isArray(metadata) ? 'an array' : typeof metadata}` };
  }
  const micros = eventMicros(e.timestamp) ?? nowMicros;
  const id = typeof e.id === 'string' && e.id !== '' && e.id.length <= MAX_ID_CHARS ? storable(e.id) : madeId();
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
