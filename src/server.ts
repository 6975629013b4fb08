import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createApp, type AppDeps } from './app.ts';
import { HttpError, type ErrorCode } from './errors.ts';
import { rawErrorResponse } from './raw-response.ts';

/** Socket limits: a slow or idle client cannot hold a connection for long. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Header bytes allowed besides the request line (whose own limit is MAX_URL_BYTES, answered with 414). */
const MAX_HEADER_BYTES = 16 * 1024;
/** node's parser and socket errors that have a status of their own; every other one is a plain 400. */
const CLIENT_ERRORS: Readonly<Record<string, ErrorCode>> = {
  HPE_HEADER_OVERFLOW: 'header_too_large',
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
};

/** A node:http server running the app; resolves once listening. */
export async function listen(deps: AppDeps): Promise<{ server: Server; url: string; port: number }> {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES + deps.config.maxUrlBytes, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS }, createApp(deps));
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // Malformed HTTP never reaches the app; answer it with the JSON error envelope instead of a silent reset.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // Bytes of a response already on the wire: anything more would corrupt it for the peer.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (!socket.writable || err.code === 'ECONNRESET' || inFlight?.headersSent) return socket.destroy();
    socket.end(rawErrorResponse(new HttpError(CLIENT_ERRORS[err.code ?? ''] ?? 'bad_request')));
  });
  // CONNECT is not routed to the request handler; without a listener node would just drop the socket.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    if (!socket.writable) return socket.destroy();
    socket.end(rawErrorResponse(new HttpError('method_not_allowed', `${req.method} is not supported.`), { Allow: 'GET, HEAD, POST, OPTIONS' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.config.port, deps.config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return { server, url: `http://${host}:${port}`, port };
}
