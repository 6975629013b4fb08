import type { IncomingMessage } from 'node:http';
import { formatParam } from '../query/formats.ts';
import type { CallInput } from '../query/run-query.ts';
import { HttpError } from '../shared/errors.ts';
import { readBody } from '../shared/read-body.ts';

/** What a stored-query request supplies: parameter values (query string and JSON body), optional `sql` and `format`. */
export type RequestInput = CallInput;

/**
 * Collect parameters from the query string and, for POST, a JSON object body with the same keys.
 * A name given in both places, or twice, is kept twice so validation can refuse it.
 */
export async function readInput(req: IncomingMessage, search: string, maxBodyBytes: number): Promise<RequestInput> {
  const raw = searchParams(search);
  if (req.method === 'POST') {
    const body = await readBody(req, maxBodyBytes);
    for (const [name, value] of Object.entries(parseJsonObject(body))) {
      if (value === null) continue;
      if (typeof value !== 'string') {
        throw new HttpError('invalid_parameter', `Body field "${name}" must be a string.`, { param: name });
      }
      add(raw, name, value);
    }
  }
  return takeRequestKeys(raw);
}

/** What a GET supplies: the query string alone. */
export function readSearch(search: string): RequestInput {
  return takeRequestKeys(searchParams(search));
}

function searchParams(search: string): Map<string, string[]> {
  const raw = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(search)) add(raw, name, value);
  return raw;
}

/** Separate `sql` and `format` (each given at most once) from the stored query's parameters. */
function takeRequestKeys(raw: Map<string, string[]>): RequestInput {
  const sql = takeOnce(raw, 'sql');
  const format = takeOnce(raw, 'format');
  return { raw, sql: sql === undefined || sql.trim() === '' ? null : sql, format: format === undefined || format === '' ? null : formatParam(format) };
}

function takeOnce(raw: Map<string, string[]>, name: string): string | undefined {
  const values = raw.get(name);
  if (values === undefined) return undefined;
  raw.delete(name);
  if (values.length > 1) throw new HttpError('invalid_parameter', `Parameter "${name}" was given more than once.`, { param: name });
  return values[0];
}

// Module-level rather than a closure per request: this runs on every call, cached ones included.
function add(raw: Map<string, string[]>, name: string, value: string): void {
  const list = raw.get(name);
  if (list) list.push(value);
  else raw.set(name, [value]);
}

function parseJsonObject(body: string): Record<string, unknown> {
  if (body.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new HttpError('invalid_parameter', 'The request body must be a JSON object of parameter names to string values.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError('invalid_parameter', 'The request body must be a JSON object of parameter names to string values.');
  }
  return value as Record<string, unknown>;
}
