import { jsonString } from '../json-string.ts';
import type { RequestContext } from './request-context.ts';
import { splitTarget } from './router.ts';

/** Longest caller-chosen text echoed into a log line or an error message, in UTF-16 code units. */
const MAX_ECHOED_CHARS = 200;

/**
 * The request line's fields (README, "Request log"), written as JSON members by hand: building an
 * object for JSON.stringify took most of the line's cost, once per request. Undefined fields are
 * left out, as JSON.stringify would. The path has no query string and no header value is logged,
 * so parameter values and tokens never reach the log.
 */
export function requestLineMembers(ctx: RequestContext, status: number, durationMs: number): string {
  const { req } = ctx;
  const path = ctx.pathname === '' ? splitTarget(req.url ?? '/').pathname : ctx.pathname;
  let out = `"request_id":${jsonString(ctx.requestId)},"method":${jsonString(req.method ?? '')},"path":${jsonString(truncate(path))}`;
  // A stored query's name (registry.ts: dotted lowercase words), a cache status and an error code
  // are identifiers: their own JSON text between quotes.
  if (ctx.query !== '') out += `,"query":"${ctx.query}"`;
  out += `,"status":${status},"duration_ms":${Math.round(durationMs * 100) / 100}`;
  if (ctx.rows !== undefined) out += `,"rows":${ctx.rows}`;
  if (ctx.cache !== undefined) out += `,"cache":"${ctx.cache}"`;
  if (ctx.code !== undefined) out += `,"code":"${ctx.code}"`;
  const client = req.socket.remoteAddress;
  if (client !== undefined) out += `,"client":${jsonString(client)}`;
  return out;
}

/** Cut a caller-chosen text (a path) to a length fit to echo. */
export function truncate(s: string): string {
  return s.length > MAX_ECHOED_CHARS ? s.slice(0, MAX_ECHOED_CHARS) + '…' : s;
}
