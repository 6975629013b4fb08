/**
 * The one load driver of the scripts and tests. `runLoad` drives a running service with a mix of
 * calls at a fixed concurrency and counts every outcome (HTTP status or transport error: reset,
 * refused, or no answer within the per-call timeout). `closedLoop` times one call over and over
 * for the bench. Both use keep-alive node:http connections.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { LatencyHistogram, LoadStats, type CallResult, type LoadSummary } from './load-stats.ts';

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

/** One call to measure; resolves when the whole answer has arrived, rejects on any failure. */
export type Call = () => Promise<void>;

export interface RunOptions {
  concurrency: number;
  /** Workers stop starting new calls after this long (calls in flight are finished and counted). */
  durationMs: number;
  /** Stop earlier once this many calls have been started. */
  maxCalls?: number;
  /** Keep going past the deadline until this many calls have been started (slow calls). */
  minCalls?: number;
}

export interface RunResult {
  calls: number;
  errors: number;
  /** From the first call's start to the last call's end. */
  elapsedMs: number;
  p50: number;
  p99: number;
  rps: number;
  firstError?: string;
}

/** Run `call` in a closed loop and summarise latencies (ms) and throughput. */
export async function closedLoop(call: Call, opts: RunOptions): Promise<RunResult> {
  const latencies = new LatencyHistogram();
  let errors = 0;
  let started = 0;
  let firstError: string | undefined;
  const begin = performance.now();
  const deadline = begin + opts.durationMs;
  const max = opts.maxCalls ?? Number.POSITIVE_INFINITY;
  const min = opts.minCalls ?? 0;
  const worker = async (): Promise<void> => {
    while (started < max && (started < min || performance.now() < deadline)) {
      started++;
      const t0 = performance.now();
      try {
        await call();
        latencies.add(performance.now() - t0);
      } catch (err) {
        errors++;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const elapsedMs = performance.now() - begin;
  return {
    calls: latencies.count,
    errors,
    elapsedMs,
    p50: latencies.percentile(50),
    p99: latencies.percentile(99),
    rps: (latencies.count / elapsedMs) * 1000,
    ...(firstError === undefined ? {} : { firstError }),
  };
}

/**
 * A keep-alive agent with one socket per worker. Idle sockets are closed after 4 s, before the
 * servers' 5 s keep-alive timeout: otherwise a socket left idle while the other side of a pair
 * ran can be reused just as the server closes it ("socket hang up").
 */
export function keepAliveAgent(concurrency: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency, scheduling: 'fifo', timeout: 4_000 });
}

/** A GET of `url` that must answer `expectStatus` with exactly the declared Content-Length bytes. */
export function httpGet(agent: Agent, url: string, headers: Record<string, string>, expectStatus = 200): Call {
  const u = new URL(url);
  const options = { host: u.hostname, port: u.port, path: u.pathname + u.search, agent, headers };
  return () =>
    new Promise<void>((resolve, reject) => {
      const req = request(options, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('error', reject);
        res.on('end', () => {
          const declared = Number(res.headers['content-length']);
          if (res.statusCode !== expectStatus) reject(new Error(`HTTP ${res.statusCode} from ${u.pathname}`));
          else if (Number.isFinite(declared) && declared !== bytes) reject(new Error(`short body: ${bytes} of ${declared} bytes`));
          else resolve();
        });
      });
      req.on('error', reject);
      req.end();
    });
}
