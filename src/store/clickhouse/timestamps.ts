/**
 * An ISO 8601 instant (params.ts's canonical form, or any `…Z`/`…±HH:MM` text) → the text
 * ClickHouse reads for a DateTime64(6, 'UTC') parameter or column: `YYYY-MM-DD HH:MM:SS.ffffff` in
 * UTC (it refuses `T` and `Z` there). Digits past the microsecond are rounded, as PostgreSQL does.
 */
const ISO = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:(Z)|([+-])(\d\d)(?::?(\d\d))?)?$/i;

/** The canonical form ingest writes (event-timestamp.ts microsText): a real instant, in UTC, six digits. */
const CANONICAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

export function clickhouseTimestamp(text: string): string {
  if (CANONICAL.test(text)) return `${text.slice(0, 10)} ${text.slice(11, 26)}`;
  const m = ISO.exec(text);
  if (m === null) throw new Error(`not an ISO 8601 timestamp: ${text}`);
  const [, y, mo, d, h, mi, s, frac = '', , sign, oh = '00', om = '00'] = m;
  let micros = Number((frac + '000000').slice(0, 6));
  if (frac.length > 6 && Number(frac[6]) >= 5) micros++;
  const offsetMs = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  // setUTCFullYear, not Date.UTC: that reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s) + (micros === 1_000_000 ? 1 : 0));
  if (micros === 1_000_000) micros = 0;
  date.setTime(date.getTime() - offsetMs);
  return `${date.toISOString().slice(0, 19).replace('T', ' ')}.${String(micros).padStart(6, '0')}`;
}
