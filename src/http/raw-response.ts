import { STATUS_CODES } from 'node:http';
import type { HttpError } from '../shared/errors.ts';

/**
 * A complete HTTP/1.1 error response as raw bytes, for sockets node:http hands over without a
 * ServerResponse (malformed requests, CONNECT): the same JSON envelope as every other error, and
 * `Connection: close` because the request's framing cannot be trusted.
 */
export function rawErrorResponse(err: HttpError, headers: Readonly<Record<string, string>> = {}): Buffer {
  const body = JSON.stringify(err.toBody());
  const lines = [
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries({ ...headers, ...err.headers }).map(([name, value]) => `${name}: ${value}`),
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`, 'utf8');
}
