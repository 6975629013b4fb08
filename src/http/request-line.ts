import { jsonString } from '../shared/json-string.ts';
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
  // The request id (request-ids.ts: letters, digits and `._:-`), the method (one of node's parser's
  // method tokens, http.METHODS: capitals and `-`), a stored query's name (registry.ts: dotted
  // lowercase words), a cache status and an error code are their own JSON text between quotes.
  let out = `"request_id":"${ctx.requestId}","method":"${req.method ?? ''}","path":${jsonString(truncate(path))}`;
  if (ctx.query !== '') out += `,"query":"${ctx.query}"`;
  out += `,"status":${status},"duration_ms":${hundredths(durationMs)}`;
  if (ctx.rows !== undefined) out += `,"rows":${ctx.rows}`;
  if (ctx.cache !== undefined) out += `,"cache":"${ctx.cache}"`;
  if (ctx.code !== undefined) out += `,"code":"${ctx.code}"`;
  const client = req.socket.remoteAddress;
  if (client !== undefined) out += `,"client":${jsonString(client)}`;
  return out;
}

/**
 * A duration in ms to 0.01 ms as JSON text: the text of `Math.round(ms * 100) / 100`, made from
 * integers (a small integer's text is looked up; a fraction's shortest decimal form is computed,
 * several times the cost, once per request). The two agree for any duration a process can see
 * (tested to 10^11 ms, three years).
 */
export function hundredths(ms: number): string {
  const h = Math.round(ms * 100);
  const whole = Math.floor(h / 100);
  const frac = h - whole * 100;
  if (frac === 0) return `${whole}`;
  return frac % 10 === 0 ? `${whole}.${frac / 10}` : `${whole}.${frac < 10 ? '0' : ''}${frac}`;
}

/** Cut a caller-chosen text (a path) to a length fit to echo. */
export function truncate(s: string): string {
  return s.length > MAX_ECHOED_CHARS ? s.slice(0, MAX_ECHOED_CHARS) + '…' : s;
}
