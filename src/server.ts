import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type AppDeps } from './app.ts';

/** Socket limits: a slow or idle client cannot hold a connection for long. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Header bytes allowed besides the request line (whose own limit is MAX_URL_BYTES, answered with 414). */
const MAX_HEADER_BYTES = 16 * 1024;

/** A node:http server running the app; resolves once listening. */
export async function listen(deps: AppDeps): Promise<{ server: Server; url: string; port: number }> {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES + deps.config.maxUrlBytes, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS }, createApp(deps));
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // Malformed HTTP never reaches the app; answer it with a bare 400 instead of a silent reset.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
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
