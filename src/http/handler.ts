/**
 * The request handler: request id, drain tracking, routing, method check, then the route's own
 * handler (routes.ts); every error becomes the JSON envelope, and every request ends in one log
 * line and its metrics.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { acceptMismatch } from '../query/formats.ts';
import { loadExplorer } from './explorer.ts';
import { HttpError } from '../shared/errors.ts';
import { describeQuery } from './listing.ts';
import { errorFields, type Logger } from '../process/logger.ts';
import { PreparedCalls } from '../query/prepared-calls.ts';
import { RequestContext } from './request-context.ts';
import { RequestIds } from './request-ids.ts';
import { requestLineMembers, truncate } from './request-line.ts';
import { readSearch } from './request-input.ts';
import { AnswerTexts, sendError, type HeaderList } from './respond.ts';
import { TargetMemo, type RouteMatch } from './router.ts';
import { ROUTES, writeAnswer, type RouteDeps } from './routes.ts';
import { AnswerBatch } from './answer-batch.ts';

export type HandlerDeps = Omit<RouteDeps, 'listing' | 'prepared' | 'answerTexts' | 'answers' | 'acceptMismatch' | 'explorer'> & { logger: Logger };

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const PREFLIGHT_HEADERS = 'X-API-KEY, Authorization, Content-Type, LF-ENDPOINT-REDACT-PII, If-None-Match';
const EXPOSED_HEADERS = 'X-Request-Id, Cache-Status, Age, ETag, Server-Timing, X-Result-Truncated, Retry-After';
/** Status logged and counted when the client went away before the response was complete (nginx's convention). */
const CLIENT_CLOSED = 499;
const SHUTDOWN_RETRY_AFTER_SECONDS = '2';

/** Build the request handler from its dependencies (no globals). */
export function createHandler(handlerDeps: HandlerDeps): Handler {
  const { config, logger } = handlerDeps;
  const deps: DispatchDeps = {
    ...handlerDeps,
    listing: handlerDeps.registry.all.map((q) => ({ q, listed: describeQuery(q) })),
    prepared: new PreparedCalls(handlerDeps, readSearch),
    targets: new TargetMemo(),
    answerTexts: new AnswerTexts(),
    acceptMismatch: acceptMismatch(config.compat),
    explorer: loadExplorer(),
    answers: new AnswerBatch((ctx) => deliver(ctx)),
  };
  const cors: HeaderList = Object.freeze(
    config.corsOrigin === '*'
      ? ['Access-Control-Allow-Origin', '*', 'Access-Control-Expose-Headers', EXPOSED_HEADERS]
      : ['Access-Control-Allow-Origin', config.corsOrigin, 'Access-Control-Expose-Headers', EXPOSED_HEADERS, 'Vary', 'Origin'],
  );
  // Decided once: with request logging off, a request gathers no log fields at all.
  const logRequest = logger.infoMembersWriter('request');

  /** The request is over: count it, log it, and let a drain stop waiting for it. */
  const settle = (ctx: RequestContext, status: number): void => {
    deps.drain.release(ctx.drainSlot, ctx.res);
    const durationMs = performance.now() - ctx.started;
    deps.metrics.observeRequest({ route: ctx.route, query: ctx.query, status, durationMs });
    if (logRequest !== undefined) logRequest(requestLineMembers(ctx, status, durationMs));
  };
  const closed = (ctx: RequestContext): void => settle(ctx, ctx.res.writableFinished ? ctx.res.statusCode : CLIENT_CLOSED);

  const failed = (ctx: RequestContext, err: unknown): void => {
    const httpErr = err instanceof HttpError ? err : new HttpError('internal', undefined, { cause: err });
    ctx.code = httpErr.code;
    // A statement cancelled because its caller left ends in 57014 like a timeout, and a queued turn
    // in an AbortError, but nothing failed: the request line already says 499, and an error line
    // per closed browser tab would be noise.
    const cancelledForLeaving = ctx.abandoned && (httpErr.code === 'query_timeout' || (err instanceof Error && err.name === 'AbortError'));
    if (httpErr.status >= 500 && !cancelledForLeaving) logger.error('request failed', { request_id: ctx.requestId, code: httpErr.code, ...errorFields(err) });
    sendError(ctx.req, ctx.res, httpErr, ctx.headers);
  };

  /** The handler is done with a request that made no promise: settle it now if it is complete. */
  const finish = (ctx: RequestContext): void => {
    // Every byte is with the kernel already (a cache hit, most errors): done now, no close listener.
    if (writtenWhole(ctx.res)) settle(ctx, ctx.res.statusCode);
    else ctx.onClose(closed);
  };

  /**
   * Write an answer that waited for the end of its turn (answer-batch.ts). Its response cannot have
   * closed meanwhile: node emits a socket's close in the loop's close phase, after the turn's
   * immediates, so a client that left is heard by the close listener finish() attaches.
   */
  const deliver = (ctx: RequestContext): void => {
    try {
      writeAnswer(deps, ctx, ctx.pendingAnswer!);
    } catch (err) {
      failed(ctx, err);
    }
    finish(ctx);
  };

  const ids = new RequestIds();
  return (req, res) => {
    const started = performance.now();
    const ctx = new RequestContext(req, res, ids.for(req.headers['x-request-id']), started, cors);
    ctx.drainSlot = deps.drain.track(res);
    // No promise is made unless a step has to wait: a cache hit's answer waits in the answer batch instead.
    let pending: void | Promise<void> = undefined;
    try {
      pending = dispatch(deps, ctx);
    } catch (err) {
      failed(ctx, err);
    }
    if (pending !== undefined) {
      pending.catch((err: unknown) => failed(ctx, err));
      ctx.onClose(closed);
    } else if (ctx.pendingAnswer === undefined) {
      finish(ctx);
    }
  };
}

/**
 * The response has ended and the socket took all of it: nothing is left for node to send, so the
 * request is complete as far as this process can tell (nginx logs a request at the same point).
 */
function writtenWhole(res: ServerResponse): boolean {
  return res.writableEnded && !res.destroyed && res.writableLength === 0;
}

type DispatchDeps = RouteDeps & { targets: TargetMemo };

function dispatch(deps: DispatchDeps, ctx: RequestContext): void | Promise<void> {
  const url = ctx.req.url ?? '/';
  // A UTF-16 code unit is at most 3 UTF-8 bytes: most targets are short enough not to be measured.
  if (url.length * 3 > deps.config.maxUrlBytes && Buffer.byteLength(url) > deps.config.maxUrlBytes) throw new HttpError('uri_too_long');
  // Only requests already on an open connection get here after SIGTERM; send them to another replica.
  if (deps.drain.draining) {
    throw new HttpError('database_unavailable', 'The service is shutting down; retry shortly.', { headers: { 'Retry-After': SHUTDOWN_RETRY_AFTER_SECONDS } });
  }
  const { pathname, search, match } = deps.targets.resolve(url);
  ctx.pathname = pathname;
  if (match === null) throw new HttpError('not_found', `No route for ${ctx.req.method} ${truncate(pathname)}.`);
  ctx.route = match.route.kind;
  const method = ctx.req.method ?? 'GET';
  if (!match.allow.includes(method)) {
    throw new HttpError('method_not_allowed', `${method} is not allowed here; use ${match.allow.join(', ')}.`, { headers: { Allow: match.allow.join(', ') } });
  }
  if (method === 'OPTIONS') return preflight(ctx, match);
  return ROUTES[match.route.kind](deps, ctx, match, search);
}

function preflight(ctx: RequestContext, match: RouteMatch): void {
  ctx.res.writeHead(
    204,
    [...ctx.headers, 'Access-Control-Allow-Methods', match.allow.join(', '), 'Access-Control-Allow-Headers', PREFLIGHT_HEADERS, 'Access-Control-Max-Age', '600'],
  );
  ctx.res.end();
}
