/**
 * How database values become JSON values (DESIGN 3), shared by both engines so they answer
 * byte-for-byte alike. Parsers receive PostgreSQL's text output; the session runs with
 * TimeZone=UTC, so timestamptz text always ends in +00.
 */

/** PostgreSQL type OIDs this module parses (pg_type.oid; stable across versions). */
export const OID = {
  int8: 20,
  numeric: 1700,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  timetz: 1266,
} as const;

// "2026-11-22 10:15:30.123+00" (fraction optional, trailing zeros trimmed by PostgreSQL).
const PG_TIMESTAMP = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(\+00)?$/;

/**
 * `timestamptz`/`timestamp` text → RFC 3339 in UTC with exactly six fractional digits
 * ("2026-11-22T10:15:30.123000Z"). Values it cannot express (infinity, BC) pass through as text.
 */
export function encodeTimestamp(text: string): string {
  const m = PG_TIMESTAMP.exec(text);
  if (!m) return text;
  const [, y, mo, d, h, mi, s, frac = ''] = m;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}.${frac.padEnd(6, '0')}Z`;
}

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
  // Drivers turn these into Date or interval objects; their text form is already what JSON wants.
  [OID.date]: identity,
  [OID.time]: identity,
  [OID.timetz]: identity,
  [OID.interval]: identity,
});
