/**
 * Child processes of the benchmark (the service, the bare node:http floor): started with `node`
 * itself (`--import tsx` for a TypeScript script), so the pid we hold is the process that serves
 * (npm/tsx wrappers would put another process in between and hide its memory).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface NodeChild {
  pid: number;
  /** The first capture group of `ready` in the child's stdout (e.g. its URL). */
  ready: string;
  /** Peak and current resident set size in MB, from /proc/<pid>/status (VmHWM, VmRSS). */
  memory(): { peakMb: number; rssMb: number };
  /** CPU time (user + system, all threads) used so far, in ms, from /proc/<pid>/stat. */
  cpuMs(): number;
  /** Why the child ended, if it did (the benchmark reports a service that died mid-run). */
  exited(): string | null;
  /** SIGTERM, then wait for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Compile a standalone script (one that imports only node: modules) to JavaScript under
 * `.bench/build/`, and return its path: a floor must run as the service does, without tsx's
 * loader, whose hooks cost a bare node:http server ~15% of its throughput.
 */
export function compileScript(script: string): string {
  const outDir = '.bench/build';
  execFileSync('npx', ['--no-install', 'tsc', '--ignoreConfig', script, '--outDir', outDir, '--target', 'es2022', '--module', 'nodenext', '--types', 'node', '--skipLibCheck'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return `${outDir}/${script.replace(/^.*\//, '').replace(/\.ts$/, '.js')}`;
}

/** Spawn `node [nodeArgs] [--import tsx] script [args]` in the repository root and wait for `ready` on stdout. */
export async function startNodeChild(opts: {
  script: string;
  args?: string[];
  nodeArgs?: string[];
  env?: Record<string, string>;
  ready: RegExp;
  timeoutMs?: number;
}): Promise<NodeChild> {
  const loader = opts.script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...loader, opts.script, ...(opts.args ?? [])], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c;
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  const ready = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`${opts.script} did not become ready within ${opts.timeoutMs ?? 30_000} ms`)), opts.timeoutMs ?? 30_000);
    const fail = (err: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${err.message}\n${stderr.trim()}`));
    };
    child.once('exit', (code, signal) => fail(new Error(`${opts.script} exited (${signal ?? code}) before it was ready`)));
    child.once('error', fail);
    const onData = (c: Buffer) => {
      out += c;
      const m = opts.ready.exec(out);
      if (m) {
        clearTimeout(timer);
        // Ready: stop collecting (a logging child writes a line per request from now on).
        child.stdout!.off('data', onData);
        child.removeAllListeners('exit');
        resolve(m[1] ?? m[0]);
      }
    };
    child.stdout!.on('data', onData);
  });
  // BENCH_CHILD_LOG=1 passes the children's output through (debugging); otherwise it is discarded.
  if (process.env.BENCH_CHILD_LOG === '1') {
    child.stdout!.on('data', (c: Buffer) => process.stderr.write(`[${opts.script} ${child.pid}] ${c}`));
    child.stderr!.on('data', (c: Buffer) => process.stderr.write(`[${opts.script} ${child.pid}] ${c}`));
  } else {
    child.stdout!.resume();
  }
  let exitReason: string | null = null;
  child.once('exit', (code, signal) => (exitReason = signal ? `killed by ${signal}` : `exited with code ${code}`));
  // Never leave a child running when the benchmark dies.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    pid: child.pid!,
    ready,
    memory: () => procMemory(child.pid!),
    cpuMs: () => procCpuMs(child.pid!),
    exited: () => exitReason,
    stop: (graceMs = 10_000) => stopChild(child, graceMs).finally(() => process.off('exit', killOnExit)),
  };
}

function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** VmHWM (peak) and VmRSS of a process, in MB. */
export function procMemory(pid: number): { peakMb: number; rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
}

/** User + system CPU time of a process (all its threads) in ms. Linux reports clock ticks of 10 ms. */
export function procCpuMs(pid: number): number {
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the line.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
