import type { IncomingMessage } from 'node:http';
import { HttpError } from '../errors.ts';
import type { RawParams } from '../query/params.ts';

/** What a stored-query request supplies: parameter values (query string and JSON body) and optional `sql`. */
export interface RequestInput {
  raw: RawParams;
  sql: string | null;
}

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
  return takeSql(raw);
}

/** What a GET supplies: the query string alone. */
export function readSearch(search: string): RequestInput {
  return takeSql(searchParams(search));
}

function searchParams(search: string): Map<string, string[]> {
  const raw = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(search)) add(raw, name, value);
  return raw;
}

/** Separate `sql` (given at most once) from the stored query's parameters. */
function takeSql(raw: Map<string, string[]>): RequestInput {
  const sqlValues = raw.get('sql');
  raw.delete('sql');
  if (sqlValues !== undefined && sqlValues.length > 1) {
    throw new HttpError('invalid_parameter', 'Parameter "sql" was given more than once.', { param: 'sql' });
  }
  const sql = sqlValues?.[0];
  return { raw, sql: sql === undefined || sql.trim() === '' ? null : sql };
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

/** Read the whole body as UTF-8, refusing more than `limit` bytes (413) without buffering the excess. */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new HttpError('payload_too_large', `The request body is larger than ${limit} bytes.`));
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new HttpError('payload_too_large', `The request body is larger than ${limit} bytes.`));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    // The client went away or broke the framing mid-body: its fault, not an internal error.
    req.on('error', (err) => reject(new HttpError('bad_request', 'The request body was cut short.', { cause: err })));
  });
}
