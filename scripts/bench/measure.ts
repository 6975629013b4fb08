/**
 * How the bench measures: every side warmed up, then run in alternating order, each figure the
 * median over runs, with the serving process's CPU per call beside the latency.
 */
import { closedLoop, type Call, type RunOptions, type RunResult } from '../lib/load-driver.ts';
import { fmt, median } from '../lib/load-stats.ts';

/** Run lengths from the command line, and where progress goes. */
export interface Timing {
  runs: number;
  seconds: number;
  warmup: number;
  log(msg: string): void;
}

export interface Summary {
  p50: number;
  p99: number;
  rps: number;
  /** Median CPU time per call of the process doing the side's work (ms), when known. */
  cpuPerCall: number;
  calls: number;
  runs: number;
  /** Failed calls (only with tolerateErrors) and the first error message. */
  errors: number;
  firstError?: string;
}

export interface Side {
  label: string;
  /**
   * How the side is driven: `call` in a closed loop in this process, or `external`, one timed run of
   * a C load generator (wrk for HTTP, pgbench for the database) at this concurrency.
   */
  drive: { call: Call } | { external: (concurrency: number, seconds: number) => Promise<RunResult> };
  /** Cumulative CPU ms of the process that serves this side (CPU per call is robust to a busy machine). */
  cpuMs?: () => number;
  /** Checked when a call fails, to say so when the service process died (something else may kill it). */
  alive?: () => string | null;
}

export interface MeasureOptions {
  runs?: number;
  /** Warm-up: timed (default) or this many calls; 0 skips it (already warm). */
  warmupCalls?: number;
  /** Each run lasts at least this many calls (slow statements), or exactly this many with maxCalls. */
  minCalls?: number;
  maxCalls?: number;
  /** Count failed calls instead of stopping (a refresh may hit the statement timeout at c=32). */
  tolerateErrors?: boolean;
}

function summarise(runs: { run: RunResult; cpu: number }[]): Summary {
  const firstError = runs.find((r) => r.run.firstError !== undefined)?.run.firstError;
  return {
    errors: runs.reduce((n, r) => n + r.run.errors, 0),
    ...(firstError === undefined ? {} : { firstError }),
    p50: median(runs.map((r) => r.run.p50)),
    p99: median(runs.map((r) => r.run.p99)),
    rps: median(runs.map((r) => r.run.rps)),
    cpuPerCall: median(runs.map((r) => r.cpu)),
    calls: runs.reduce((n, r) => n + r.run.calls, 0),
    runs: runs.length,
  };
}

/**
 * Warm every side up, then run them in alternating order (ABBA…) so drift on a shared machine hits
 * all sides alike; each side's figures are medians over its runs. Any failed call stops the bench.
 */
export async function measure(timing: Timing, sides: Side[], concurrency: number, opts: MeasureOptions = {}): Promise<Summary[]> {
  const runs = opts.runs ?? timing.runs;
  const check = (side: Side, r: RunResult) => {
    if (r.errors === 0 || opts.tolerateErrors) return;
    const died = side.alive?.();
    throw new Error(`${side.label}: ${r.errors} of ${r.calls + r.errors} calls failed (${r.firstError})${died ? `; the service process ${died}` : ''}`);
  };
  // An external generator runs timed only: its side ignores minCalls/maxCalls (those rows never set them).
  const drive = (side: Side, o: RunOptions): Promise<RunResult> =>
    'external' in side.drive ? side.drive.external(o.concurrency, (o.durationMs || timing.seconds * 1000) / 1000) : closedLoop(side.drive.call, o);
  for (const side of sides) {
    if (opts.warmupCalls === 0) continue;
    const warm = opts.warmupCalls === undefined ? { concurrency, durationMs: timing.warmup * 1000 } : { concurrency, durationMs: 0, minCalls: opts.warmupCalls, maxCalls: opts.warmupCalls };
    check(side, await drive(side, warm));
  }
  const results: { run: RunResult; cpu: number }[][] = sides.map(() => []);
  for (let run = 0; run < runs; run++) {
    const order = sides.map((_, i) => i);
    if (run % 2 === 1) order.reverse();
    for (const i of order) {
      const side = sides[i]!;
      const cpu0 = side.cpuMs?.() ?? Number.NaN;
      const r = await drive(side, {
        concurrency,
        durationMs: opts.maxCalls === undefined ? timing.seconds * 1000 : 0,
        ...(opts.minCalls === undefined ? {} : { minCalls: opts.minCalls }),
        ...(opts.maxCalls === undefined ? {} : { minCalls: opts.maxCalls, maxCalls: opts.maxCalls }),
      });
      check(side, r);
      results[i]!.push({ run: r, cpu: ((side.cpuMs?.() ?? Number.NaN) - cpu0) / r.calls });
    }
  }
  const summaries = results.map(summarise);
  summaries.forEach((s, i) => {
    const cpu = Number.isFinite(s.cpuPerCall) ? `, ${fmt(s.cpuPerCall, 3)} ms CPU/call` : '';
    const failed = s.errors > 0 ? `; ${s.errors} failed: ${s.firstError}` : '';
    timing.log(`  ${sides[i]!.label} c=${concurrency}: p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms, ${fmt(s.rps, 0)} req/s${cpu} (${s.calls} calls in ${s.runs} runs${failed})`);
  });
  return summaries;
}

/** This process's CPU time in ms (the direct-pg floor runs here). */
export const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
