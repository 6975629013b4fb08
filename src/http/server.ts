import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createHandler, type Handler, type HandlerDeps } from './handler.ts';
import { HttpError, type ErrorCode } from '../shared/errors.ts';
import { rawErrorResponse } from './raw-response.ts';
import { sendError } from './respond.ts';

/** Header bytes allowed besides the request line (whose own limit is MAX_URL_BYTES, answered with 414). */
const MAX_HEADER_BYTES = 16 * 1024;
/**
 * node:http enforces the header and request timeouts by sweeping connections periodically (30 s by
 * default), so a timeout could fire up to that much late; sweep at least every second.
 */
const MAX_SWEEP_MS = 1_000;
/** How long a refused CONNECT socket may stay open after our answer, for the client to read it. */
const LINGER_MS = 5_000;

/** node's parser and socket errors that have a status of their own (and a metric reason); every other one is a plain 400. */
const REJECTIONS: Readonly<Record<string, { code: ErrorCode; reason: string }>> = {
  HPE_HEADER_OVERFLOW: { code: 'header_too_large', reason: 'header_overflow' },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout', reason: 'timeout' },
};
const MALFORMED = { code: 'bad_request', reason: 'malformed' } as const;

/** A node:http server running the app; resolves once listening. Slow or idle clients cannot hold a socket for long. */
export async function listen(deps: HandlerDeps): Promise<{ server: Server; url: string; port: number }> {
  const { config } = deps;
  const app = withHostCheck(createHandler(deps));
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES + config.maxUrlBytes,
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(MAX_SWEEP_MS, Math.ceil(config.headersTimeoutMs / 2)),
      // node's own Host check would answer a bare 400; withHostCheck makes the same check with the JSON envelope.
      requireHostHeader: false,
    },
    app,
  );
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  // An Expect other than 100-continue: node would answer a bare 417; RFC 9110 10.1.1 lets us ignore it and serve the request.
  server.on('checkExpectation', app);
  // node writes 100 Continue for us, but into a pipelined response still queued behind another it
  // lands between that response's head and body (node 20 unshifts the head before it). RFC 9110
  // 10.1.1 lets a server omit the 100; a pipelining client has already sent the content anyway.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (res.socket !== null) res.writeContinue();
    app(req, res);
  });
  // Malformed HTTP and timeouts never reach the app; answer with the JSON error envelope instead of a silent reset.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const rejection = REJECTIONS[err.code ?? ''] ?? MALFORMED;
    // A reset by the client itself is no rejection of ours.
    if (err.code !== 'ECONNRESET') {
      deps.metrics.observeRejected(rejection.reason);
      deps.logger.debug('connection rejected', { reason: rejection.reason, error_code: err.code, client: (socket as Duplex & { remoteAddress?: string }).remoteAddress });
    }
    if (err.code === 'ECONNRESET') return socket.destroy();
    rejectAfterAnswers(socket, rawErrorResponse(new HttpError(rejection.code)));
  });
  // CONNECT is not routed to the request handler; without a listener node would just drop the socket.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    // node removed its own listeners from this socket: a reset with none would be an uncaught exception.
    socket.on('error', () => socket.destroy());
    if (!socket.writable) return socket.destroy();
    socket.end(rawErrorResponse(new HttpError('method_not_allowed', `${req.method} is not supported.`), { Allow: 'GET, HEAD, POST, OPTIONS' }));
    // node hands the socket over paused: unread input would keep it open forever. Read and drop it
    // until the client closes, and give up on a client that never does.
    socket.resume();
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return { server, url: `http://${host}:${port}`, port };
}

/** What node:http keeps on a socket about the response it is writing there (its `_httpMessage`). */
type SocketAnswer = { headersSent: boolean; writableEnded: boolean; req: { complete: boolean }; once(event: 'close', listener: () => void): unknown };

/**
 * Write the error response for bad bytes on a connection, then close it. The answers of requests
 * read whole before those bytes come first: node parsed them, and one may still be on its way (a
 * cache hit written at the end of its turn, answer-batch.ts, or a call waiting on the database,
 * with pipelined ones queued behind it). Bad bytes inside a request still being read leave that
 * request unanswerable: the error goes out at once, unless its response has begun, which any
 * further byte would corrupt for the peer.
 */
function rejectAfterAnswers(socket: Duplex, response: Buffer): void {
  if (!socket.writable) return void socket.destroy();
  // node keeps a response here until it has finished with it (all written, 'finish' handled), then
  // hands the socket to the next queued one; a written response may still be here, others behind it.
  const inFlight = (socket as Duplex & { _httpMessage?: SocketAnswer | null })._httpMessage;
  if (inFlight != null) {
    if (inFlight.req.complete || inFlight.writableEnded) {
      // Its 'close' comes once node is done with it (or its client has gone): look again then.
      inFlight.once('close', () => rejectAfterAnswers(socket, response));
      return;
    }
    if (inFlight.headersSent) return void socket.destroy();
  }
  // Destroy once written: a client that never closes its side must not keep the socket half-open.
  socket.end(response, () => socket.destroy());
}

/** RFC 9112 3.2: an HTTP/1.1 request without a Host header is answered 400 (as node would, but with a body). */
function withHostCheck(app: Handler): Handler {
  return (req, res) => {
    if (req.httpVersion !== '1.1' || req.headers.host !== undefined) return app(req, res);
    sendError(req, res, new HttpError('bad_request', 'An HTTP/1.1 request needs a Host header.'), ['Connection', 'close']);
  };
}
