/**
 * What each route does once matched, keyed by route kind: the HTTP layer reads the request, asks
 * the part that owns the decision (auth, registry, runQuery, metrics), and writes the answer.
 */
import type { Authenticator, Principal } from '../auth/authenticator.ts';
import type { Config } from '../process/config.ts';
import type { ListedQuery } from './listing.ts';
import { METRICS_CONTENT_TYPE, type Metrics } from '../metrics/metrics.ts';
import type { OpenApi } from './openapi.ts';
import type { ResultCache } from '../query/cache/result-cache.ts';
import { REDACT_HEADER, redactionApplies } from '../query/redaction.ts';
import type { Registry, StoredQuery } from '../query/registry.ts';
import { mergeQueueStats, type FairQueue } from '../queue/fair-queue.ts';
import type { Dialect } from '../sql/dialect.ts';
import type { PreparedCalls } from '../query/prepared-calls.ts';
import { runQuery, type QueryAnswer } from '../query/run-query.ts';
import { negotiate, type AcceptMismatch } from '../query/formats.ts';
import { inFormat } from '../query/encoded-result.ts';
import { HttpError } from '../shared/errors.ts';
import { mapDbError } from '../store/db-errors.ts';
import type { Engine } from '../store/engine.ts';
import { storeNotReady, type StoreCheck } from '../store/store-check.ts';
import { closest } from '../shared/did-you-mean.ts';
import type { Ingest } from '../ingest/receiver.ts';
import { logflareSourceList } from '../ingest/sources.ts';
import type { AnswerBatch } from './answer-batch.ts';
import type { Drain } from './drain.ts';
import { sendAsset, type ExplorerAssets } from './explorer.ts';
import type { RequestContext } from './request-context.ts';
import { readInput } from './request-input.ts';
import { sendAnswer, sendJson, type AnswerTexts } from './respond.ts';
import type { RouteKind, RouteMatch } from './router.ts';

export interface RouteDeps {
  config: Config;
  engine: Engine;
  registry: Registry;
  auth: Authenticator;
  cache: ResultCache;
  metrics: Metrics;
  drain: Drain;
  openapi: OpenApi;
  /** Turns on the engine's connections (queue/fair-queue.ts). */
  queue: FairQueue;
  /** The writer's queue when it is not `queue` (PostgreSQL's ingest pool); for /metrics. */
  writerQueue: FairQueue | null;
  callerStatementTimeoutMs: number;
  dialect: Dialect;
  /** Whether the log store has what each stored query reads (/ready, and calls that fail so). */
  store: StoreCheck;
  /** The ingest path (src/ingest/receiver.ts); answers 404 when ingest is off. */
  ingest: Ingest;
  /** Each stored query with its listing entry, built once. */
  listing: readonly { q: StoredQuery; listed: ListedQuery }[];
  /** GET calls prepared once per distinct query string. */
  prepared: PreparedCalls;
  /** What an Accept naming no format gets (formats.ts), decided once from COMPAT. */
  acceptMismatch: AcceptMismatch;
  /** The explorer page's files, read at start-up. */
  explorer: ExplorerAssets;
  /** Per-response header values of stored-query answers. */
  answerTexts: AnswerTexts;
  /** Where an answer ready at once waits for the end of the event-loop turn. */
  answers: AnswerBatch;
}

export type RouteHandler = (deps: RouteDeps, ctx: RequestContext, match: RouteMatch, search: string) => void | Promise<void>;

const READY_TIMEOUT_MS = 2_000;

export const ROUTES: Readonly<Record<RouteKind, RouteHandler>> = Object.freeze({
  health: (_deps, ctx) => sendJson(ctx.req, ctx.res, 200, { status: 'ok' }, ctx.headers),
  // No token: the page asks for one and calls the API with it.
  page: (deps, ctx) => sendAsset(ctx.req, ctx.res, deps.explorer.get(ctx.pathname)!, ctx.headers),
  ready,
  metrics: (deps, ctx) => {
    deps.auth.checkMetrics(ctx.req.headers);
    const { engine, cache, drain } = deps;
    const text = deps.metrics.render({
      cache: () => cache.stats(),
      pool: () => engine.poolStats?.() ?? { total: 0, idle: 0, waiting: 0, max: 0 },
      inFlight: () => drain.inFlight,
      queue: () => mergeQueueStats(deps.queue.stats(), deps.writerQueue?.stats()),
    });
    const body = Buffer.from(text, 'utf8');
    ctx.res.writeHead(200, [...ctx.headers, 'Content-Type', METRICS_CONTENT_TYPE, 'Content-Length', body.length, 'Cache-Control', 'no-store']);
    ctx.res.end(ctx.req.method === 'HEAD' ? undefined : body);
  },
  endpoints: (deps, ctx) => {
    const principal = deps.auth.check(ctx.req.headers);
    const result = deps.listing.filter(({ q }) => principal.mayCall(q)).map(({ listed }) => listed);
    sendJson(ctx.req, ctx.res, 200, { result }, ctx.headers);
  },
  // Authenticated like the listing (the document names stored queries), unless PUBLIC_DOCS=on.
  openapi: (deps, ctx) => sendJson(ctx.req, ctx.res, 200, deps.openapi.document(deps.config.publicDocs ? null : deps.auth.check(ctx.req.headers)), ctx.headers),
  query,
  ingest: async (deps, ctx, _match, search) => {
    await deps.ingest.receive(ctx.req, new URLSearchParams(search), ctx.clientGone());
    // Logflare's body (`log_controller.ex`); senders read only the status.
    sendJson(ctx.req, ctx.res, 200, { message: 'Logged!' }, ctx.headers);
  },
  drains: (deps, ctx) => {
    logflareOnly(deps);
    deps.auth.check(ctx.req.headers);
    // No drains exist, so Studio's Log Drains page shows none instead of an error.
    if (ctx.req.method === 'GET' && ctx.pathname === '/api/backends') return sendJson(ctx.req, ctx.res, 200, [], ctx.headers);
    if (ctx.req.method === 'GET') throw new HttpError('not_found', 'No log drain with that id: this service has none.');
    throw new HttpError('not_implemented', 'Log drains are not supported by this service: its logs stay in its own PostgreSQL store (README, "Use it with Supabase Studio").');
  },
  sources: (deps, ctx) => {
    logflareOnly(deps);
    deps.auth.check(ctx.req.headers);
    sendJson(ctx.req, ctx.res, 200, LOGFLARE_SOURCE_LIST, ctx.headers);
  },
});

const LOGFLARE_SOURCE_LIST = Object.freeze(logflareSourceList());

/** Logflare's management routes exist only for its clients (COMPAT=logflare); elsewhere they are unknown paths. */
function logflareOnly(deps: RouteDeps): void {
  if (deps.config.compat !== 'logflare') throw new HttpError('not_found', 'No such route (Logflare\'s management API answers with COMPAT=logflare).');
}

function query(deps: RouteDeps, ctx: RequestContext, match: RouteMatch, search: string): void | Promise<void> {
  // 401 before 404: an unauthenticated caller learns nothing about which stored queries exist.
  const principal = deps.auth.check(ctx.req.headers);
  const target = match.route.kind === 'query' ? match.route.target : null;
  const q = target === null ? undefined : deps.registry.lookup(target);
  if (q === undefined) throw notFound(deps.registry, principal, target ?? '');
  ctx.query = q.name;
  // After 404: a scoped token learns that a stored query exists, not what it returns.
  if (!principal.mayCall(q)) throw new HttpError('forbidden');
  const redact = redactionApplies(q.redactPii, ctx.req.headers[REDACT_HEADER]);
  if (ctx.req.method === 'POST') return queryWithBody(deps, ctx, q, search, redact, principal);
  // A GET (or HEAD) is its query string: prepared once per distinct one, and a hit answered without
  // waiting on anything: written with the other answers of this event-loop turn.
  const call = deps.prepared.fromSearch(q, search, redact);
  // 406 before the statement runs: a format nobody can read costs no database time.
  ctx.format = negotiate(call.format, ctx.req.headers.accept, deps.acceptMismatch);
  const run = runQuery(deps, call, ctx, principal);
  if (run instanceof Promise) return run.then((a) => writeAnswer(deps, ctx, a));
  deps.answers.defer(ctx, run);
}

/** 404 for a stored query that does not exist: the nearest name this token may call, and where the list is. */
function notFound(registry: Registry, principal: Principal, target: string): HttpError {
  const near = closest(target, registry.all.filter((q) => principal.mayCall(q)).map((q) => q.name));
  const hint = near === undefined ? '' : ` Did you mean ${near}?`;
  return new HttpError('not_found', `No stored query with that id or name.${hint} GET /api/endpoints lists the stored queries this token may call.`);
}

/** A POST adds its JSON body to the query string's parameters. */
async function queryWithBody(deps: RouteDeps, ctx: RequestContext, q: StoredQuery, search: string, redact: boolean, principal: Principal): Promise<void> {
  const call = deps.prepared.prepare(q, await readInput(ctx.req, search, deps.config.maxBodyBytes), redact);
  ctx.format = negotiate(call.format, ctx.req.headers.accept, deps.acceptMismatch);
  writeAnswer(deps, ctx, await runQuery(deps, call, ctx, principal));
}

/** Write a stored query's answer, and note what the request log reports of it. */
export function writeAnswer(deps: Pick<RouteDeps, 'answerTexts'>, ctx: RequestContext, a: QueryAnswer): void {
  ctx.rows = a.result.rows;
  ctx.cache = a.cache;
  sendAnswer(ctx.req, ctx.res, a, inFormat(a.result, ctx.format), ctx.cors, ctx.requestId, ctx.started, deps.answerTexts);
}

async function ready(deps: RouteDeps, ctx: RequestContext): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timeout exceeded when trying to connect'), { code: 'ETIMEDOUT' })), READY_TIMEOUT_MS);
  });
  let problems;
  try {
    await Promise.race([deps.engine.ping(), timeout]);
    // The database answered; probes still queued behind callers' statements when the time is up
    // (the embedded store's one session under a flood) leave the last completed check standing.
    problems = await Promise.race([deps.store.checkAll(), timeout]).catch((err: unknown) => {
      const known = deps.store.lastKnown();
      if (known === undefined || (err as { code?: unknown }).code !== 'ETIMEDOUT') throw err;
      return known;
    });
  } catch (err) {
    throw mapDbError(err, { callerSql: false, regexParam: undefined });
  } finally {
    clearTimeout(timer);
  }
  if (problems.length > 0) throw storeNotReady(problems);
  sendJson(ctx.req, ctx.res, 200, { status: 'ready', engine: deps.engine.name }, ctx.headers);
}
