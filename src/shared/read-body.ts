/** A request body read whole, with its byte limit: the query API's JSON bodies and ingest's batches. */
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { HttpError } from './errors.ts';

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
