import { closest } from '../shared/did-you-mean.ts';
import { HttpError } from '../shared/errors.ts';
import type { Compat } from '../process/config.ts';
import { PARAM_TYPES } from '../sql/binding/store-binding.ts';

/** A declared parameter of a stored query (from its settings file; docs/stored-queries.md). */
/** `example`: a value to show a caller (the explorer fills it in), checked like a request's at start-up. */
interface Described {
  required: boolean;
  description?: string;
  example?: string;
}

export type ParamSpec =
  | ({ type: 'string' } & Described)
  | ({ type: 'regex' } & Described)
  | ({ type: 'timestamp' } & Described)
  | ({ type: 'enum'; values: readonly string[] } & Described)
  | ({ type: 'integer' | 'number'; min?: number; max?: number } & Described)
  | ({ type: 'boolean' } & Described);


/** What a request may name besides the declared parameters (caller `sql`): no parameter may be called so. */
export const REQUEST_KEYS: readonly string[] = ['sql', 'format'];

/**
 * What happens to a parameter the stored query does not declare: a 400 naming it, or, with
 * COMPAT=logflare, ignored as Logflare ignores it (its clients send extra ones and rely on that).
 */
export type UnknownParams = 'reject' | 'ignore';
export function unknownParamPolicy(compat: Compat | null): UnknownParams {
  return compat === 'logflare' ? 'ignore' : 'reject';
}

/** Longest value accepted for any parameter; longer values are refused before reaching the database. */
export const MAX_PARAM_CHARS = 4096;

/**
 * Raw request input: parameter name → the value(s) sent. Several values for one name is an error
 * (a caller who sends `project` twice should learn that, not get one of them silently).
 */
export type RawParams = ReadonlyMap<string, readonly string[]>;

/**
 * Validate and canonicalise the declared parameters. Returns name → text value (null when absent
 * or empty). An unknown name is refused (a typo must not silently drop a filter) unless the policy
 * says to ignore it; either way it never reaches SQL or the cache key.
 */
export function validateParams(
  specs: Readonly<Record<string, ParamSpec>>,
  raw: RawParams,
  unknown: UnknownParams = 'reject',
  /** Request keys this stored query also takes (`sql` when sandboxed), for the message. */
  requestKeys: readonly string[] = [],
): Record<string, string | null> {
  if (unknown === 'reject') for (const name of raw.keys()) if (!(name in specs)) throw unknownParameter(name, specs, requestKeys);
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

function unknownParameter(name: string, specs: Readonly<Record<string, ParamSpec>>, requestKeys: readonly string[]): HttpError {
  const accepted = [...Object.keys(specs), ...requestKeys];
  const near = closest(name, accepted);
  const shown = JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
  return new HttpError(
    'unknown_parameter',
    `Unknown parameter ${shown}${near === undefined ? '' : ` (did you mean ${near}?)`}; this stored query accepts: ${accepted.join(', ')}.`,
    { param: name },
  );
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
      if (ts === null) throw new HttpError('invalid_parameter', timestampProblem(name, value), { param: name });
      return ts;
    }
    case 'integer':
    case 'number': {
      const n = spec.type === 'integer' ? (INTEGER.test(value) ? Number(value) : NaN) : NUMBER.test(value) ? Number(value) : NaN;
      const whole = spec.type === 'integer' ? 'an integer' : 'a number';
      if (!(spec.type === 'integer' ? Number.isSafeInteger(n) : Number.isFinite(n))) {
        throw new HttpError('invalid_parameter', `Parameter "${name}" must be ${whole}${bounds(spec)}, got ${shownValue(value)}.`, { param: name });
      }
      if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
        throw new HttpError('invalid_parameter', `Parameter "${name}" must be ${whole}${bounds(spec)}, got ${value}.`, { param: name });
      }
      return String(n);
    }
    case 'boolean': {
      const b = value.toLowerCase();
      if (b !== 'true' && b !== 'false') throw new HttpError('invalid_parameter', `Parameter "${name}" must be true or false, got ${shownValue(value)}.`, { param: name });
      return b;
    }
  }
}

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function bounds(spec: { min?: number; max?: number }): string {
  if (spec.min !== undefined && spec.max !== undefined) return ` from ${spec.min} to ${spec.max}`;
  if (spec.min !== undefined) return ` of at least ${spec.min}`;
  if (spec.max !== undefined) return ` of at most ${spec.max}`;
  return '';
}

/** A received value as a message shows it: JSON-quoted, at most 64 characters. */
function shownValue(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

function timestampProblem(name: string, value: string): string {
  const expected = `Parameter "${name}" must be an ISO 8601 timestamp such as 2026-11-22T10:15:30.123456Z (UTC when no offset is given)`;
  // `+01:00` in a query string arrives as ` 01:00`: a "+" in a URL query means a space.
  const space = value.lastIndexOf(' ');
  if (space > 0 && canonicalTimestamp(`${value.slice(0, space)}+${value.slice(space + 1)}`) !== null) {
    return `${expected}; received ${shownValue(value)}: a "+" in a URL's query string arrives as a space, so encode the offset's "+" as %2B.`;
  }
  return `${expected}; received ${shownValue(value)}.`;
}

/**
 * A valid value of each parameter type, for the store check's probes (store-check.ts): they are
 * planned, never run for rows, so any value the statement accepts will do.
 */
export function sampleValue(spec: ParamSpec): string {
  switch (spec.type) {
    case 'enum':
      return spec.values[0]!;
    case 'timestamp':
      return '2000-01-01T00:00:00+00:00';
    case 'integer':
    case 'number':
      return String(spec.min ?? Math.min(0, spec.max ?? 0));
    case 'boolean':
      return 'false';
    case 'string':
    case 'regex':
      return 'x';
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

/** The fields a parameter declaration of each type may have. */
const PARAM_FIELDS: Readonly<Record<(typeof PARAM_TYPES)[number], readonly string[]>> = {
  string: ['type', 'required', 'description', 'example'],
  regex: ['type', 'required', 'description', 'example'],
  timestamp: ['type', 'required', 'description', 'example'],
  boolean: ['type', 'required', 'description', 'example'],
  enum: ['type', 'required', 'description', 'example', 'values', 'logflareValues'],
  integer: ['type', 'required', 'description', 'example', 'min', 'max'],
  number: ['type', 'required', 'description', 'example', 'min', 'max'],
};

/** Parse the `params` object of a settings file; `fail` raises a definition error naming the file. */
export function parseParamDeclarations(raw: unknown, fail: (problem: string) => never, compat: Compat | null = null): Readonly<Record<string, ParamSpec>> {
  if (raw === undefined) return Object.freeze({});
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('"params" must be an object of parameter name → declaration');
  const out: Record<string, ParamSpec> = {};
  for (const [name, spec] of Object.entries(raw as Record<string, Record<string, unknown>>)) {
    if (!PARAM_NAME.test(name)) fail(`parameter name "${name}" must match [A-Za-z_][A-Za-z0-9_]*`);
    if (REQUEST_KEYS.includes(name)) fail(`parameter name "${name}" is reserved`);
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) fail(`parameter "${name}" must be an object such as {"type": "string", "required": true}`);
    const type = spec.type;
    if (!PARAM_TYPES.includes(type as (typeof PARAM_TYPES)[number])) fail(`parameter "${name}": "type" must be one of ${PARAM_TYPES.join(', ')}, got ${JSON.stringify(type)}`);
    const fields = PARAM_FIELDS[type as (typeof PARAM_TYPES)[number]];
    for (const key of Object.keys(spec)) {
      if (!fields.includes(key)) {
        const near = closest(key, fields);
        fail(`parameter "${name}": unknown field "${key}"${near === undefined ? '' : ` (did you mean "${near}"?)`}; ${/^[aeiou]/.test(String(type)) ? 'an' : 'a'} ${type} parameter has ${fields.join(', ')}`);
      }
    }
    if (typeof spec.required !== 'boolean') fail(`parameter "${name}": "required" must be true or false`);
    if (spec.description !== undefined && typeof spec.description !== 'string') fail(`parameter "${name}": "description" must be a string`);
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
    } else if (type === 'integer' || type === 'number') {
      const limit = (key: 'min' | 'max'): number | undefined => {
        const v = spec[key];
        if (v === undefined) return undefined;
        if (typeof v !== 'number' || !(type === 'integer' ? Number.isSafeInteger(v) : Number.isFinite(v))) fail(`parameter "${name}": "${key}" must be ${type === 'integer' ? 'an integer' : 'a number'}`);
        return v as number;
      };
      const min = limit('min'), max = limit('max');
      if (min !== undefined && max !== undefined && min > max) fail(`parameter "${name}": "min" (${min}) is greater than "max" (${max})`);
      out[name] = Object.freeze({ type, ...base, ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) });
    } else {
      out[name] = Object.freeze({ type: type as 'string' | 'regex' | 'timestamp' | 'boolean', ...base });
    }
    if (spec.example !== undefined) {
      if (typeof spec.example !== 'string' || spec.example === '') fail(`parameter "${name}": "example" must be a non-empty string, as a caller would send it`);
      try {
        checkValue(name, out[name]!, spec.example as string);
      } catch (err) {
        fail(`parameter "${name}": "example" is not a value it accepts: ${(err as Error).message}`);
      }
      out[name] = Object.freeze({ ...out[name]!, example: spec.example as string });
    }
  }
  return Object.freeze(out);
}
