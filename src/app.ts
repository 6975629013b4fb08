import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Authenticator } from './auth.ts';
import type { ResultCache } from './cache.ts';
import type { Config } from './config.ts';
import { mapDbError } from './db-errors.ts';
import { runEndpoint } from './endpoint.ts';
import type { Engine } from './engine/engine.ts';
import { HttpError } from './errors.ts';
import { errorFields, type Logger } from './logger.ts';
import type { Registry } from './registry.ts';
import { readInput } from './request-input.ts';
import { sendAnswer, sendError, sendJson } from './respond.ts';
import { matchRoute, splitTarget, type RouteMatch } from './router.ts';

export interface AppDeps {
  config: Config;
  engine: Engine;
  registry: Registry;
  auth: Authenticator;
  cache: ResultCache;
  logger: Logger;
}

/** The request handler: route → auth → registry → params → cache → bind → engine → max rows → redact → respond. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const PREFLIGHT_HEADERS = 'X-API-KEY, Authorization, Content-Type, LF-ENDPOINT-REDACT-PII, If-None-Match';
const EXPOSED_HEADERS = 'X-Request-Id, Cache-Status, Age, ETag, Server-Timing, X-Result-Truncated, Retry-After';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const READY_TIMEOUT_MS = 2_000;

/** Build the request handler from its dependencies (no globals). */
export function createApp(deps: AppDeps): Handler {
  const { config, logger } = deps;
  const cors: OutgoingHttpHeaders = { 'Access-Control-Allow-Origin': config.corsOrigin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS };
  if (config.corsOrigin !== '*') cors.Vary = 'Origin';

  return (req, res) => {
    const started = performance.now();
    const incomingId = req.headers['x-request-id'];
    const requestId = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    const headers: OutgoingHttpHeaders = { ...cors, 'X-Request-Id': requestId };
    handle(deps, req, res, headers, started).catch((err: unknown) => {
      const httpErr = err instanceof HttpError ? err : new HttpError('internal', undefined, { cause: err });
      if (httpErr.status >= 500) logger.error('request failed', { request_id: requestId, code: httpErr.code, ...errorFields(err) });
      sendError(req, res, httpErr, headers);
    });
  };
}

async function handle(deps: AppDeps, req: IncomingMessage, res: ServerResponse, headers: OutgoingHttpHeaders, started: number): Promise<void> {
  const url = req.url ?? '/';
  if (Buffer.byteLength(url) > deps.config.maxUrlBytes) throw new HttpError('uri_too_long');
  const { pathname, search } = splitTarget(url);
  const match = matchRoute(pathname);
  if (match === null) throw new HttpError('not_found', `No route for ${req.method} ${truncate(pathname)}.`);
  const method = req.method ?? 'GET';
  if (!match.allow.includes(method)) {
    throw new HttpError('method_not_allowed', `${method} is not allowed here; use ${match.allow.join(', ')}.`, { headers: { Allow: match.allow.join(', ') } });
  }
  if (method === 'OPTIONS') return preflight(res, match, headers);

  switch (match.route.kind) {
    case 'health':
      return sendJson(req, res, 200, { status: 'ok' }, headers);
    case 'ready':
      return ready(deps, req, res, headers);
    case 'query': {
      // 401 before 404: an unauthenticated caller learns nothing about which stored queries exist.
      deps.auth.check(req.headers);
      const target = match.route.target;
      const q = target === null ? undefined : deps.registry.lookup(target);
      if (q === undefined) throw new HttpError('not_found', 'No stored query with that id or name.');
      const input = await readInput(req, search, deps.config.maxBodyBytes);
      const redact = q.redactPii || String(req.headers['lf-endpoint-redact-pii'] ?? '').trim().toLowerCase() === 'true';
      // Only an uncached call can be cancelled (endpoint.ts), so only it pays for an AbortController
      // (an EventTarget: measurable on the cached path) and a close listener.
      if (q.cachingSeconds !== null) {
        sendAnswer(req, res, await runEndpoint(deps, q, input, redact), performance.now() - started, headers);
        return;
      }
      const abort = new AbortController();
      // The response closing before we answered means the client went away: cancel its statement.
      const onClose = () => {
        if (!res.writableFinished) abort.abort();
      };
      res.once('close', onClose);
      try {
        const answer = await runEndpoint(deps, q, input, redact, abort.signal);
        sendAnswer(req, res, answer, performance.now() - started, headers);
      } finally {
        res.off('close', onClose);
      }
      return;
    }
  }
}

function preflight(res: ServerResponse, match: RouteMatch, headers: OutgoingHttpHeaders): void {
  res.writeHead(204, {
    ...headers,
    'Access-Control-Allow-Methods': match.allow.join(', '),
    'Access-Control-Allow-Headers': PREFLIGHT_HEADERS,
    'Access-Control-Max-Age': '600',
  });
  res.end();
}

async function ready(deps: AppDeps, req: IncomingMessage, res: ServerResponse, headers: OutgoingHttpHeaders): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timeout exceeded when trying to connect'), { code: 'ETIMEDOUT' })), READY_TIMEOUT_MS);
  });
  try {
    await Promise.race([deps.engine.ping(), timeout]);
  } catch (err) {
    throw mapDbError(err, { callerSql: false, regexParam: undefined });
  } finally {
    clearTimeout(timer);
  }
  sendJson(req, res, 200, { status: 'ready', engine: deps.engine.name }, headers);
}

function truncate(s: string): string {
  return s.length > 200 ? s.slice(0, 200) + '…' : s;
}
