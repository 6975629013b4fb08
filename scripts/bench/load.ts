/**
 * A small closed-loop load generator: `concurrency` workers, each sending its next request as soon
 * as the previous one finished, for a fixed time. HTTP requests go through one keep-alive Agent
 * (one socket per worker), so connection set-up is paid in the warm-up, not in the measurement.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { percentile } from './stats.ts';

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
  const latencies: number[] = [];
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
        latencies.push(performance.now() - t0);
      } catch (err) {
        errors++;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const elapsedMs = performance.now() - begin;
  return {
    calls: latencies.length,
    errors,
    elapsedMs,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    rps: (latencies.length / elapsedMs) * 1000,
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
