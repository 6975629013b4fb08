import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { formatParam } from '../query/formats.ts';
import type { CallInput } from '../query/run-query.ts';
import { HttpError } from '../errors.ts';

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

/**
 * Read the whole body as UTF-8, refusing more than `limit` bytes (413) without holding the excess.
 * With a `decoder` (gzip, deflate) the body is decompressed as it arrives and the limit applies to
 * the decompressed bytes, so a small compressed body cannot expand past it; `setting` names the
 * limit in the 413's message.
 */
export function readBody(req: IncomingMessage, limit: number, decoder: Transform | null = null, setting = 'MAX_BODY_BYTES'): Promise<string> {
  const tooLarge = () => new HttpError('payload_too_large', `The request body is larger than ${limit} bytes${decoder === null ? '' : ' once decompressed'} (${setting}).`);
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (decoder === null && Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (err: HttpError) => {
      if (done) return;
      done = true;
      req.unpipe();
      decoder?.destroy();
      // Drained, not buffered: the connection can still carry the answer.
      req.resume();
      reject(err);
    };
    const source = decoder ?? req;
    source.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) fail(tooLarge());
      else chunks.push(chunk);
    });
    source.on('end', () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    // The client went away or broke the framing mid-body: its fault, not an internal error.
    req.on('error', (err) => fail(new HttpError('bad_request', 'The request body was cut short.', { cause: err })));
    if (decoder !== null) {
      decoder.on('error', (err) => fail(new HttpError('invalid_body', `The body is not valid ${req.headers['content-encoding']} data.`, { cause: err })));
      req.pipe(decoder);
    }
  });
}
