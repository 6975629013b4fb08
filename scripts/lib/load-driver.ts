/**
 * Drive a running service with a fixed number of calls (or until told to stop) at a fixed
 * concurrency, over keep-alive node:http connections. Every call gets an outcome: an HTTP status
 * or a transport error (reset, refused, or no answer within the per-call timeout).
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { LoadStats, type CallResult, type LoadSummary } from './load-stats.ts';

/** One call to make. */
export interface LoadCall {
  label: string;
  method: 'GET' | 'POST';
  /** Path and query string. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  /** Base URL, e.g. http://127.0.0.1:4000 */
  url: string;
  token: string;
  concurrency: number;
  /** Stop after this many calls… */
  requests?: number;
  /** …or when this returns true (checked before each call). At least one of the two. */
  until?: () => boolean;
  next: (i: number) => LoadCall;
  /** A call without an answer after this long counts as a transport error ("timeout"). Default 30 s. */
  timeoutMs?: number;
  onResult?: (r: CallResult) => void;
}

export async function runLoad(opts: LoadOptions): Promise<LoadSummary> {
  if (opts.requests === undefined && opts.until === undefined) throw new Error('runLoad needs requests or until');
  const base = new URL(opts.url);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const stats = new LoadStats();
  const started = performance.now();
  let issued = 0;
  const more = () => (opts.requests === undefined || issued < opts.requests) && !(opts.until?.() ?? false);

  const worker = async () => {
    while (more()) {
      const call = opts.next(issued++);
      const result = await once(base, agent, opts.token, call, started, opts.timeoutMs ?? 30_000);
      stats.add(result);
      opts.onResult?.(result);
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return stats.summary((performance.now() - started) / 1000);
}

function once(base: URL, agent: Agent, token: string, call: LoadCall, runStart: number, timeoutMs: number): Promise<CallResult> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let settled = false;
    const finish = (status: number, code: string | null, transportError: string | null, retryAfter: string | null) => {
      if (settled) return;
      settled = true;
      resolve({ label: call.label, status, code, ms: performance.now() - t0, startedAt: t0 - runStart, transportError, retryAfter });
    };
    const headers: Record<string, string> = { 'X-API-KEY': token, ...call.headers };
    if (call.body !== undefined) {
      headers['Content-Type'] ??= 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(call.body));
    }
    const req = request({ host: base.hostname, port: base.port, path: call.path, method: call.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err: NodeJS.ErrnoException) => finish(0, null, err.code ?? err.message, null));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        let code: string | null = null;
        if (status >= 400) {
          try {
            code = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error: { code: string } }).error.code);
          } catch {
            code = 'unparseable';
          }
        }
        const retryAfter = res.headers['retry-after'];
        finish(status, code, null, typeof retryAfter === 'string' ? retryAfter : null);
      });
    });
    req.setTimeout(timeoutMs, () => {
      finish(0, null, 'timeout', null);
      req.destroy();
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish(0, null, err.code ?? err.message, null));
    req.end(call.body);
  });
}
