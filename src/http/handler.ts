import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { matchDigest, presentedToken, unauthorized, type Authenticator } from '../auth/authenticator.ts';
import type { ResultCache } from '../query/cache/result-cache.ts';
import type { Config } from '../ops/config.ts';
import { mapDbError } from '../store/db-errors.ts';
import type { Drain } from './drain.ts';
import { runEndpoint } from '../query/run-query.ts';
import type { Engine } from '../store/engine.ts';
import { HttpError } from '../errors.ts';
import { describeQuery, type ListedQuery } from '../ops/listing.ts';
import { errorFields, type Logger } from '../ops/logger.ts';
import { METRICS_CONTENT_TYPE, type Metrics } from '../ops/metrics.ts';
import type { OpenApi } from '../ops/openapi.ts';
import type { Registry, StoredQuery } from '../query/registry.ts';
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
  metrics: Metrics;
  drain: Drain;
  openapi: OpenApi;
}

/** The request handler: route → auth → registry → params → cache → bind → engine → max rows → redact → respond. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** What the per-request log line and metrics report, filled in as the request goes along. */
interface RequestRecord {
  route: string;
  /** Name of the stored query once resolved; never the raw path segment (unbounded, caller-chosen). */
  query: string;
  rows?: number;
  cache?: string;
  code?: string;
}

/** A stored query with its listing entry, built once. */
interface Listed {
  q: StoredQuery;
  listed: ListedQuery;
}

const PREFLIGHT_HEADERS = 'X-API-KEY, Authorization, Content-Type, LF-ENDPOINT-REDACT-PII, If-None-Match';
const EXPOSED_HEADERS = 'X-Request-Id, Cache-Status, Age, ETag, Server-Timing, X-Result-Truncated, Retry-After';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const READY_TIMEOUT_MS = 2_000;
/** Status logged and counted when the client went away before the response was complete (nginx's convention). */
const CLIENT_CLOSED = 499;
const SHUTDOWN_RETRY_AFTER_SECONDS = '2';

/** Build the request handler from its dependencies (no globals). */
export function createApp(deps: AppDeps): Handler {
  const { config, logger } = deps;
  const cors: OutgoingHttpHeaders = { 'Access-Control-Allow-Origin': config.corsOrigin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS };
  if (config.corsOrigin !== '*') cors.Vary = 'Origin';
  const listing = deps.registry.all.map((q) => ({ q, listed: describeQuery(q) }));

  return (req, res) => {
    const started = performance.now();
    const incomingId = req.headers['x-request-id'];
    const requestId = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    const headers: OutgoingHttpHeaders = { ...cors, 'X-Request-Id': requestId };
    const record: RequestRecord = { route: 'none', query: '' };
    deps.drain.track(res);
    res.once('close', () => finished(deps, req, res, record, requestId, started));
    handle(deps, listing, req, res, headers, started, record).catch((err: unknown) => {
      const httpErr = err instanceof HttpError ? err : new HttpError('internal', undefined, { cause: err });
      record.code = httpErr.code;
      if (httpErr.status >= 500) logger.error('request failed', { request_id: requestId, code: httpErr.code, ...errorFields(err) });
      sendError(req, res, httpErr, headers);
    });
  };
}

/** One log line and the request metrics, once the response is done or abandoned. */
function finished(deps: AppDeps, req: IncomingMessage, res: ServerResponse, record: RequestRecord, requestId: string, started: number): void {
  const durationMs = performance.now() - started;
  const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED;
  deps.metrics.observeRequest({ route: record.route, query: record.query, status, durationMs });
  // Path without the query string and no header values: parameter values and tokens never reach the log.
  deps.logger.info('request', {
    request_id: requestId,
    method: req.method,
    path: truncate(splitTarget(req.url ?? '/').pathname),
    query: record.query === '' ? undefined : record.query,
    status,
    duration_ms: Math.round(durationMs * 100) / 100,
    rows: record.rows,
    cache: record.cache,
    code: record.code,
    client: req.socket.remoteAddress,
  });
}

async function handle(deps: AppDeps, listing: readonly Listed[], req: IncomingMessage, res: ServerResponse, headers: OutgoingHttpHeaders, started: number, record: RequestRecord): Promise<void> {
  const url = req.url ?? '/';
  if (Buffer.byteLength(url) > deps.config.maxUrlBytes) throw new HttpError('uri_too_long');
  // Only requests already on an open connection get here after SIGTERM; send them to another replica.
  if (deps.drain.draining) {
    throw new HttpError('database_unavailable', 'The service is shutting down; retry shortly.', { headers: { 'Retry-After': SHUTDOWN_RETRY_AFTER_SECONDS } });
  }
  const { pathname, search } = splitTarget(url);
  const match = matchRoute(pathname);
  if (match === null) throw new HttpError('not_found', `No route for ${req.method} ${truncate(pathname)}.`);
  record.route = match.route.kind;
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
    case 'metrics':
      return metrics(deps, req, res, headers);
    case 'endpoints': {
      const principal = deps.auth.check(req.headers);
      const result = listing.filter(({ q }) => principal.mayCall(q)).map(({ listed }) => listed);
      return sendJson(req, res, 200, { result }, headers);
    }
    case 'openapi':
      // Authenticated like the listing: the document names stored queries (DESIGN 3: no token, nothing learned).
      return sendJson(req, res, 200, deps.openapi.document(deps.auth.check(req.headers)), headers);
    case 'query': {
      // 401 before 404: an unauthenticated caller learns nothing about which stored queries exist.
      const principal = deps.auth.check(req.headers);
      const target = match.route.target;
      const q = target === null ? undefined : deps.registry.lookup(target);
      if (q === undefined) throw new HttpError('not_found', 'No stored query with that id or name.');
      record.query = q.name;
      // After 404: a scoped token learns that a stored query exists, not what it returns.
      if (!principal.mayCall(q)) throw new HttpError('forbidden');
      const input = await readInput(req, search, deps.config.maxBodyBytes);
      const redact = q.redactPii || String(req.headers['lf-endpoint-redact-pii'] ?? '').trim().toLowerCase() === 'true';
      // Only an uncached call can be cancelled (endpoint.ts), so only it pays for an AbortController
      // (an EventTarget: measurable on the cached path) and a close listener.
      const abort = q.cachePolicy === null ? new AbortController() : null;
      // The response closing before we answered means the client went away: cancel its statement.
      const onClose = () => {
        if (!res.writableFinished) abort?.abort();
      };
      if (abort !== null) res.once('close', onClose);
      try {
        const answer = await runEndpoint(deps, q, input, redact, abort?.signal);
        record.rows = answer.result.rows;
        record.cache = answer.cache;
        sendAnswer(req, res, answer, performance.now() - started, headers);
      } finally {
        if (abort !== null) res.off('close', onClose);
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

function metrics(deps: AppDeps, req: IncomingMessage, res: ServerResponse, headers: OutgoingHttpHeaders): void {
  const required = deps.config.metricsToken;
  if (required !== null) {
    const token = presentedToken(req.headers);
    if (token === null || matchDigest(token, [required.digest]) === -1) throw unauthorized();
  }
  const { engine, cache, drain } = deps;
  const text = deps.metrics.render({
    cache: () => cache.stats(),
    pool: () => engine.poolStats?.() ?? { total: 0, idle: 0, waiting: 0, max: 0 },
    inFlight: () => drain.inFlight,
  });
  const body = Buffer.from(text, 'utf8');
  res.writeHead(200, { ...headers, 'Content-Type': METRICS_CONTENT_TYPE, 'Content-Length': body.length, 'Cache-Control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : body);
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
