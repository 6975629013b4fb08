/**
 * HTTP load from `wrk` (a C load generator; Debian package `wrk`), so a floor the service is
 * compared with is one the load generator can actually reach: a Node loop on the same two cores
 * saturates long before a bare node:http server does. Installed on first use the way `.ci/run`
 * installs PostgreSQL (apt-get, when running as root).
 */
import { execFileSync, spawn } from 'node:child_process';
import type { RunResult } from './load-driver.ts';

export interface WrkTarget {
  url: string;
  headers: Readonly<Record<string, string>>;
}

/** The wrk binary's path; installs the Debian package when missing and allowed to. */
export function ensureWrk(): string {
  const find = () => {
    try {
      return execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  let path = find();
  if (path === '' && process.getuid?.() === 0) {
    execFileSync('sh', ['-c', 'apt-get install -y wrk >/dev/null 2>&1 || (apt-get update >/dev/null 2>&1 && apt-get install -y wrk >/dev/null 2>&1)'], { stdio: 'inherit' });
    path = find();
  }
  if (path === '') throw new Error('wrk is not installed (apt-get install wrk); the HTTP rows of the bench need it');
  return path;
}

const UNIT_MS: Readonly<Record<string, number>> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

/** Parse `wrk --latency` output into the bench's run summary (latencies in ms). */
export function parseWrk(out: string): RunResult {
  const latency = (pct: string): number => {
    const m = new RegExp(`^\\s*${pct}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm').exec(out);
    if (!m) throw new Error(`wrk output has no ${pct}% latency:\n${out}`);
    return Number(m[1]) * UNIT_MS[m[2]!]!;
  };
  const total = /^\s*(\d+) requests in ([\d.]+)(us|ms|s|m)/m.exec(out);
  if (!total) throw new Error(`wrk output has no request count:\n${out}`);
  const calls = Number(total[1]);
  const elapsedMs = Number(total[2]) * UNIT_MS[total[3]!]!;
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1).reduce((n, v) => n + Number(v), 0) : 0;
  const errors = non2xx + socketErrors;
  return {
    calls: calls - non2xx,
    errors,
    elapsedMs,
    p50: latency('50'),
    p99: latency('99'),
    rps: (calls - non2xx) / (elapsedMs / 1000),
    ...(errors > 0 ? { firstError: `${non2xx} non-2xx responses, ${socketErrors} socket errors` } : {}),
  };
}

/** One wrk run: one thread (the other core serves), `concurrency` connections, `seconds` long. */
export function runWrk(wrk: string, target: WrkTarget, concurrency: number, seconds: number): Promise<RunResult> {
  const args = ['-t1', `-c${concurrency}`, `-d${Math.max(1, Math.round(seconds))}s`, '--latency', ...Object.entries(target.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), target.url];
  return new Promise((resolve, reject) => {
    const child = spawn(wrk, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited with ${code}:\n${out}`));
      try {
        resolve(parseWrk(out));
      } catch (err) {
        reject(err);
      }
    });
  });
}
