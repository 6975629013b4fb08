/**
 * The floor for a cached call: a bare node:http server that answers every request with one fixed
 * response (status, headers, body) read from the JSON file named on the command line, doing no
 * routing, auth or cache work at all. Prints `listening on http://host:port` when ready.
 *   node --import tsx scripts/bench/bare-server.ts response.json [--batch]
 * With `--batch` it writes its answers together at the end of each event-loop turn, as the service
 * writes its cache hits (src/http/answer-batch.ts): the floor written the service's way.
 * (the bench compiles it first, compileScript in child.ts, and runs it with npm start's node flags)
 */
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface FixedResponse {
  status: number;
  headers: Record<string, string>;
  bodyBase64: string;
}

const file = process.argv[2];
if (!file) throw new Error('usage: bare-server.ts <response.json>');
const fixed = JSON.parse(readFileSync(file, 'utf8')) as FixedResponse;
const body = Buffer.from(fixed.bodyBase64, 'base64');
const headers = { ...fixed.headers, 'Content-Length': String(body.length) };

const answer = (res: ServerResponse): void => {
  res.writeHead(fixed.status, headers);
  res.end(body);
};
const waiting: ServerResponse[] = [];
const flush = (): void => {
  for (const res of waiting) answer(res);
  waiting.length = 0;
};
const server = createServer(
  process.argv[3] === '--batch'
    ? (_req, res) => {
        if (waiting.push(res) === 1) setImmediate(flush);
      }
    : (_req, res) => answer(res),
);
// Same keep-alive timeout as the service's server.ts.
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
