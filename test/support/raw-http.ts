/**
 * Send raw bytes as an HTTP request and parse what comes back, without any client-side
 * normalisation (fetch and node:http refuse or rewrite exactly the inputs a fuzz test wants).
 */
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

export interface RawExchange {
  /** Final (non-1xx) responses in the order received; usually one. */
  responses: RawResponse[];
  /** Bytes after the last complete response that the server sent before closing (garbage or a cut answer). */
  rest: Buffer;
  /** No answer even after the grace half-close: the server hung. */
  timedOut: boolean;
  /** The request looked complete but got no answer within `graceMs`, so it was half-closed to flush it. */
  flushed: boolean;
}

export interface RawOptions {
  /** Every response answers HEAD (no body). */
  head?: boolean;
  /** Half-close right after writing: the request is known to be cut short and the server must see its end. */
  halfClose?: boolean;
  /** Silence this long before half-closing anyway (the request was unexpectedly incomplete). */
  graceMs?: number;
  timeoutMs?: number;
}

/**
 * Write `bytes` and read the answer. A complete keep-alive response ends the exchange (we close);
 * otherwise it ends when the server closes. Half-closing is kept for requests known to be
 * incomplete, because node treats a client's FIN as "gone" and abandons an answer still in progress.
 */
export function rawExchange(port: number, bytes: Buffer, opts: RawOptions = {}): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timedOut = false;
    let flushed = false;
    let done = false;
    const finish = (trustRest: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(grace);
      clearTimeout(timer);
      const parsed = parseResponses(Buffer.concat(chunks), opts.head ?? false);
      resolve({ responses: parsed.responses, rest: trustRest ? parsed.rest : Buffer.alloc(0), timedOut, flushed });
      socket.destroy();
    };
    const grace = setTimeout(() => {
      if (chunks.length > 0 || opts.halfClose) return;
      flushed = true;
      socket.end();
    }, opts.graceMs ?? 3_000);
    const timer = setTimeout(() => {
      timedOut = true;
      finish(true);
    }, opts.timeoutMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const { responses } = parseResponses(Buffer.concat(chunks), opts.head ?? false);
      const last = responses.at(-1);
      // The server keeps the connection for more requests: this answer is all we will get.
      if (last && !/\bclose\b/i.test(last.headers.connection ?? '')) finish(false);
    });
    // A reset after the server answered is fine; what it sent is judged by the caller.
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
    if (opts.halfClose) socket.end(bytes);
    else socket.write(bytes);
  });
}

/**
 * Write `bytes` (pipelined requests, say, the last asking to close) and parse everything the server
 * sends until it closes the connection.
 */
export function untilClose(port: number, bytes: string): Promise<RawResponse[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseResponses(Buffer.concat(chunks), false).responses));
    socket.write(bytes);
  });
}

/** Split a byte stream into HTTP/1.x responses (Content-Length or no body; this server never chunks errors). */
export function parseResponses(data: Buffer, head: boolean): { responses: RawResponse[]; rest: Buffer } {
  const responses: RawResponse[] = [];
  let at = 0;
  while (at < data.length) {
    const headEnd = data.indexOf('\r\n\r\n', at);
    if (headEnd === -1) break;
    const lines = data.subarray(at, headEnd).toString('latin1').split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
    if (!m) break;
    const status = Number(m[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    let bodyStart = headEnd + 4;
    if (status < 200) {
      at = bodyStart; // interim (100 Continue): the real answer follows
      continue;
    }
    // An answer to HEAD has no body, unless the request was too malformed for the server to know it was HEAD.
    const headAnswer = head && (bodyStart === data.length || data.subarray(bodyStart, bodyStart + 5).toString('latin1') === 'HTTP/');
    const noBody = headAnswer || status === 204 || status === 304;
    let body: Buffer = Buffer.alloc(0);
    if (!noBody) {
      if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
        const decoded = decodeChunked(data, bodyStart);
        if (decoded === null) break;
        body = decoded.body;
        bodyStart = decoded.end;
      } else {
        const length = Number(headers['content-length'] ?? 0);
        if (bodyStart + length > data.length) break;
        body = data.subarray(bodyStart, bodyStart + length);
        bodyStart += length;
      }
    }
    responses.push({ status, headers, body });
    at = bodyStart;
  }
  return { responses, rest: data.subarray(at) };
}

function decodeChunked(data: Buffer, from: number): { body: Buffer; end: number } | null {
  const parts: Buffer[] = [];
  let at = from;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) return null;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) return null;
    at = lineEnd + 2;
    if (size === 0) {
      const trailerEnd = data.indexOf('\r\n', at);
      return trailerEnd === -1 ? null : { body: Buffer.concat(parts), end: trailerEnd + 2 };
    }
    if (at + size + 2 > data.length) return null;
    parts.push(data.subarray(at, at + size));
    at += size + 2;
  }
}
