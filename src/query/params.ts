import { HttpError } from '../errors.ts';
import type { Compat } from '../ops/config.ts';

/** A declared parameter of a stored query (from its settings file). */
export type ParamSpec =
  | { type: 'string'; required: boolean; description?: string }
  | { type: 'regex'; required: boolean; description?: string }
  | { type: 'timestamp'; required: boolean; description?: string }
  | { type: 'enum'; required: boolean; values: readonly string[]; description?: string };

export const PARAM_TYPES = ['string', 'regex', 'timestamp', 'enum'] as const;

/** Longest value accepted for any parameter; longer values are refused before reaching the database. */
export const MAX_PARAM_CHARS = 4096;

/**
 * Raw request input: parameter name → the value(s) sent. Several values for one name is an error
 * (a caller who sends `project` twice should learn that, not get one of them silently).
 */
export type RawParams = ReadonlyMap<string, readonly string[]>;

/**
 * Validate and canonicalise the declared parameters. Returns name → text value (null when absent
 * or empty). Unknown names are ignored: they never reach SQL or the cache key.
 */
export function validateParams(specs: Readonly<Record<string, ParamSpec>>, raw: RawParams): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const values = raw.get(name);
    if (values !== undefined && values.length > 1) {
      throw new HttpError('invalid_parameter', `Parameter "${name}" was given more than once.`, { param: name });
    }
    const value = values?.[0] ?? '';
    if (value === '') {
      if (spec.required) throw new HttpError('missing_parameter', `Parameter "${name}" is required.`, { param: name });
      out[name] = null;
      continue;
    }
    out[name] = checkValue(name, spec, value);
  }
  return out;
}

function checkValue(name: string, spec: ParamSpec, value: string): string {
  if (value.length > MAX_PARAM_CHARS) {
    throw new HttpError('invalid_parameter', `Parameter "${name}" is longer than ${MAX_PARAM_CHARS} characters.`, { param: name });
  }
  // PostgreSQL text cannot hold NUL; refusing here gives a clear 400 instead of a database error.
  if (value.includes('\0')) {
    throw new HttpError('invalid_parameter', `Parameter "${name}" contains a NUL character.`, { param: name });
  }
  switch (spec.type) {
    case 'string':
    case 'regex': // validated by PostgreSQL itself (its regex dialect is not JavaScript's); see db-errors.ts
      return value;
    case 'enum':
      if (!spec.values.includes(value)) {
        throw new HttpError('invalid_parameter', `Parameter "${name}" must be one of: ${spec.values.join(', ')}.`, { param: name });
      }
      return value;
    case 'timestamp': {
      const ts = canonicalTimestamp(value);
      if (ts === null) {
        throw new HttpError(
          'invalid_parameter',
          `Parameter "${name}" must be an ISO 8601 timestamp such as 2026-11-22T10:15:30.123456Z (UTC when no offset is given).`,
          { param: name },
        );
      }
      return ts;
    }
  }
}

// Calendar date, optional time (hh:mm, hh:mm:ss, fractions up to nanoseconds), optional offset.
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * Parse an ISO 8601 timestamp and return it in one canonical text form PostgreSQL reads exactly
 * (`YYYY-MM-DDTHH:MM:SS[.fraction]+HH:MM`), or null when it is not a real instant. No offset means
 * UTC. The fraction is kept as written so microseconds survive (JavaScript dates stop at ms).
 */
export function canonicalTimestamp(text: string): string | null {
  const m = ISO_8601.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac, z, sign, oh, om = '00'] = m;
  const year = Number(y), month = Number(mo), day = Number(d);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  // 24:00:00 is ISO's "end of day"; PostgreSQL accepts it too, but one spelling per instant keeps cache keys canonical.
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  if (sign !== undefined && (Number(oh) > 15 || Number(om) > 59)) return null;
  const offset = z !== undefined || sign === undefined ? '+00:00' : `${sign}${oh}:${om}`;
  const fraction = frac === undefined ? '' : `.${frac}`;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${fraction}${offset}`;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Parameter names with a meaning of their own in a request. */
const RESERVED_PARAMS: ReadonlySet<string> = new Set(['sql']);

/** Parse the `params` object of a settings file; `fail` raises a definition error naming the file. */
export function parseParamDeclarations(raw: unknown, fail: (problem: string) => never, compat: Compat | null = null): Readonly<Record<string, ParamSpec>> {
  if (raw === undefined) return Object.freeze({});
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('"params" must be an object');
  const out: Record<string, ParamSpec> = {};
  for (const [name, spec] of Object.entries(raw as Record<string, Record<string, unknown>>)) {
    if (!PARAM_NAME.test(name)) fail(`parameter name "${name}" must match [A-Za-z_][A-Za-z0-9_]*`);
    if (RESERVED_PARAMS.has(name)) fail(`parameter name "${name}" is reserved`);
    if (typeof spec !== 'object' || spec === null) fail(`parameter "${name}" must be an object`);
    const type = spec.type;
    if (!PARAM_TYPES.includes(type as (typeof PARAM_TYPES)[number])) fail(`parameter "${name}": "type" must be one of ${PARAM_TYPES.join(', ')}`);
    if (typeof spec.required !== 'boolean') fail(`parameter "${name}": "required" must be true or false`);
    const description = typeof spec.description === 'string' ? spec.description : undefined;
    const base = { required: spec.required as boolean, ...(description === undefined ? {} : { description }) };
    if (type === 'enum') {
      const values = spec.values;
      if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === 'string' && v !== '')) {
        fail(`parameter "${name}": enum "values" must be a non-empty array of strings`);
      }
      // `logflareValues`: spellings Logflare's clients send, accepted only with COMPAT=logflare.
      const extra = spec.logflareValues ?? [];
      if (!Array.isArray(extra) || !extra.every((v) => typeof v === 'string' && v !== '')) {
        fail(`parameter "${name}": enum "logflareValues" must be an array of strings`);
      }
      const accepted = [...(values as string[]), ...(compat === 'logflare' ? (extra as string[]) : [])];
      out[name] = Object.freeze({ type, ...base, values: Object.freeze(accepted) });
    } else {
      out[name] = Object.freeze({ type: type as 'string' | 'regex' | 'timestamp', ...base });
    }
  }
  return Object.freeze(out);
}
