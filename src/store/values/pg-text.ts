/**
 * How database values become JSON values (docs/http-api.md), shared by both engines so they answer
 * byte-for-byte alike. Parsers receive PostgreSQL's text output; the session runs with
 * TimeZone=UTC, so timestamptz text always ends in +00.
 */

/** PostgreSQL type OIDs this module parses (pg_type.oid; stable across versions). */
export const OID = {
  bytea: 17,
  int8: 20,
  numeric: 1700,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  timetz: 1266,
  json: 114,
  jsonb: 3802,
} as const;

/**
 * A jsonb value as PostgreSQL printed it. jsonb text is already valid JSON ("JSON as stored"), so
 * encodeResult splices it into the response instead of parsing it into objects and serialising
 * them again: on logs.all that round trip was the largest part of the service's own time per row
 * (JSON.parse in the driver, JSON.stringify here, and the garbage of both). Redaction, which has
 * to look inside, parses it (redact.ts).
 */
export class RawJson {
  constructor(readonly text: string) {}
  /** What JSON.stringify makes of it anywhere encodeResult is not used: the parsed value. */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

// "2026-11-22 10:15:30.123+00" (fraction optional, trailing zeros trimmed by PostgreSQL).
export const PG_TIMESTAMP = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(\+00)?$/;

/**
 * `timestamptz`/`timestamp` text → RFC 3339 in UTC with exactly six fractional digits
 * ("2026-11-22T10:15:30.123000Z"). Values it cannot express (infinity, BC) pass through as text.
 */
export function encodeTimestamp(text: string): string {
  if (UTC_TIMESTAMP.test(text)) {
    // By position: the same text as below, without the match's array and captures (on `logs.all`,
    // 100 timestamps a call: ~9 µs instead of ~20, and less garbage). The fraction, if any, runs
    // from after the '.' (index 20) to the zone (`+00`, the last three characters).
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${text.slice(20, -3).padEnd(6, '0')}Z`;
  }
  const m = PG_TIMESTAMP.exec(text);
  if (!m) return text;
  const [, y, mo, d, h, mi, s, frac = ''] = m;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}.${frac.padEnd(6, '0')}Z`;
}

/**
 * The common case of PG_TIMESTAMP: a four-digit year, a fraction of 0 to 6 digits, the zone `+00`
 * (timestamptz in a UTC session). Tested, not matched: no captures to allocate.
 */
const UTC_TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?\+00$/;

/** `bigint` text → JSON integer when exactly representable, else the decimal text (never rounded). */
export function encodeInt8(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

/** `numeric` text → JSON number when it round-trips, else text (NaN, Infinity, beyond double precision). */
export function encodeNumeric(text: string): number | string {
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  return Number.isSafeInteger(n) || !/^-?\d+$/.test(text) ? n : text;
}

const identity = (text: string): string => text;

/** OID → parser, for the types whose driver defaults would lose precision or produce non-JSON values. */
export const TEXT_PARSERS: Readonly<Record<number, (text: string) => unknown>> = Object.freeze({
  [OID.int8]: encodeInt8,
  [OID.numeric]: encodeNumeric,
  [OID.timestamptz]: encodeTimestamp,
  [OID.timestamp]: encodeTimestamp,
  // Drivers turn these into Date, interval or Buffer objects; their text form is already what JSON
  // wants (bytea: PostgreSQL's hex form `\x…`, a string redaction can read).
  [OID.bytea]: identity,
  [OID.date]: identity,
  [OID.time]: identity,
  [OID.timetz]: identity,
  [OID.interval]: identity,
  [OID.jsonb]: (text: string) => new RawJson(text),
});
