import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createApp, type AppDeps } from './app.ts';

/** Header bytes allowed besides the request line (whose own limit is MAX_URL_BYTES, answered with 414). */
const MAX_HEADER_BYTES = 16 * 1024;
/**
 * node:http enforces the header and request timeouts by sweeping connections periodically (30 s by
 * default), so a timeout could fire up to that much late; sweep at least every second.
 */
const MAX_SWEEP_MS = 1_000;

/** What clientError codes mean, for the rejected-connections metric. */
const REJECTIONS: Readonly<Record<string, { status: string; reason: string }>> = {
  HPE_HEADER_OVERFLOW: { status: '431 Request Header Fields Too Large', reason: 'header_overflow' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: '408 Request Timeout', reason: 'timeout' },
};
const MALFORMED = { status: '400 Bad Request', reason: 'malformed' };

/** A node:http server running the app; resolves once listening. Slow or idle clients cannot hold a socket for long. */
export async function listen(deps: AppDeps): Promise<{ server: Server; url: string; port: number }> {
  const { config } = deps;
  const server = createServer(
    {
      maxHeaderSize: MAX_HEADER_BYTES + config.maxUrlBytes,
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(MAX_SWEEP_MS, Math.ceil(config.headersTimeoutMs / 2)),
    },
    createApp(deps),
  );
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  // Malformed HTTP and timeouts never reach the app; answer with a bare status instead of a silent reset.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const rejection = REJECTIONS[err.code ?? ''] ?? MALFORMED;
    // A reset by the client itself is no rejection of ours.
    if (err.code !== 'ECONNRESET') {
      deps.metrics.observeRejected(rejection.reason);
      deps.logger.debug('connection rejected', { reason: rejection.reason, error_code: err.code, client: socket.remoteAddress });
    }
    // Node's own rule: never write a bare status into a response that has already started.
    const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (!socket.writable || started) return socket.destroy();
    // Destroy once written: a client that never closes its side must not keep the socket half-open.
    socket.end(`HTTP/1.1 ${rejection.status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => socket.destroy());
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
