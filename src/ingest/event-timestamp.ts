/**
 * An ingested event's timestamp as integer microseconds since the epoch, by Logflare's rules
 * (`Logflare/logflare:lib/logflare/logs/log_event.ex` determine_timestamp/1, v1.31.2):
 * - an RFC 3339 string with an offset: its instant, fraction digits past six truncated (Elixir's
 *   DateTime.from_iso8601 truncates; PostgreSQL would round);
 * - an integer by its digit count (`lib/logflare/utils.ex` to_microseconds/1): 19 digits are
 *   nanoseconds (÷ 1000, rounded), 16 microseconds, 13 milliseconds, 10 seconds, 7 × 10⁹; other
 *   counts as they are; a float is rounded first;
 * - anything else (missing, unparseable, no offset): null, and the caller uses the time of ingest.
 * Never through `Date` parsing (milliseconds) and never as text into `::timestamptz` (which takes
 * `now`, `epoch`, `infinity`): the row gets canonical text made here (microsText).
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,12}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
/** 0001-01-01 and 9999-12-31T23:59:59.999999 in microseconds: what timestamptz text can say here. */
const MIN_MICROS = -62_135_596_800_000_000;
const MAX_MICROS = 253_402_300_799_999_999;

export function eventMicros(value: unknown): number | null {
  if (typeof value === 'string') return rfc3339Micros(value);
  if (typeof value === 'number' && Number.isFinite(value)) return inRange(toMicroseconds(Math.round(value)));
  return null;
}

function rfc3339Micros(text: string): number | null {
  const m = RFC3339.exec(text);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, frac = '', z, sign, oh, om] = m;
  const year = Number(y), month = Number(mo), day = Number(d), hour = Number(h), minute = Number(mi), second = Number(s);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59 || Number(oh ?? 0) > 23 || Number(om ?? 0) > 59) return null;
  const offsetMinutes = z !== undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, 0);
  const micros = date.getTime() * 1000 + Number(frac.slice(0, 6).padEnd(6, '0'));
  return inRange(micros);
}

function daysInMonth(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
}

/** Logflare.Utils.to_microseconds/1: the unit guessed from the number of digits. */
function toMicroseconds(n: number): number {
  const digits = String(Math.abs(n)).length;
  switch (digits) {
    case 19:
      return Math.round(n / 1000);
    case 16:
      return n;
    case 13:
      return n * 1000;
    case 10:
      return n * 1_000_000;
    case 7:
      return n * 1_000_000_000;
    default:
      return n;
  }
}

function inRange(micros: number): number | null {
  return Number.isSafeInteger(micros) && micros >= MIN_MICROS && micros <= MAX_MICROS ? micros : null;
}

/** Canonical timestamptz text of an instant: `YYYY-MM-DDTHH:MM:SS.ffffffZ`, exact to the microsecond. */
export function microsText(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const iso = new Date(ms).toISOString();
  const sub = String(micros - ms * 1000).padStart(3, '0');
  // toISOString writes years past 9999 or before 0 with a sign; inRange keeps them out.
  return `${iso.slice(0, 23)}${sub}Z`;
}
