import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { RawJson } from '../values/pg-text.ts';
import type { ResponseShape } from '../values/response-shape.ts';
import type { AdminExec, LogWriter, Engine, QueryOptions, Row } from '../engine.ts';
import { DEFAULT_MAX_RESULT_BYTES } from '../result-limit.ts';
import { sessionSettings, WRITER_STATEMENT_TIMEOUT_MS } from '../session-settings.ts';
import type { Job, Reply, WorkerStart } from './pglite-worker.ts';

export interface PgliteEngineOptions {
  /** Directory of the embedded store; null: a temporary one of its own, removed by close(). */
  dataDir: string | null;
  schema: string;
  statementTimeoutMs: number;
  /** Result byte limit of one statement; default DEFAULT_MAX_RESULT_BYTES. */
  maxResultBytes?: number;
  /** The most memory PostgreSQL may use (PGlite's WASM memory), MiB; default DEFAULT_EMBEDDED_MEMORY_MB. */
  memoryMaxMb?: number;
  /** How values are encoded (COMPAT=logflare: Logflare's shape); standard when unset. */
  responseShape?: ResponseShape;
}

type JobBody = Job extends infer J ? (J extends { id: number } ? Omit<J, 'id'> : never) : never;

interface Pending {
  body: JobBody;
  /** A statement timeout shorter than the session's, for this statement. */
  timeoutMs?: number;
  resolve(reply: Reply): void;
  reject(err: Error): void;
  signal: AbortSignal | undefined;
  onAbort?: () => void;
}

/** The statement in the worker and its timeout timer. */
interface Running {
  pending: Pending;
  id: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The worker's entry: pglite-worker beside this module. From the build (`dist/`, what `npm start`
 * runs) that is plain JavaScript. From the TypeScript sources (tests and scripts, `node --import
 * tsx`) the worker registers tsx's hooks itself first: a worker does not inherit the main thread's.
 */
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WORKER_BOOT = FROM_SOURCES
  ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((api) => { api.register(); return import(${JSON.stringify(new URL('./pglite-worker.ts', import.meta.url).href)}); })`
  : `import(${JSON.stringify(new URL('./pglite-worker.js', import.meta.url).href)})`;

/**
 * Make a new cluster in `dir` in a child process. PGlite runs initdb in whichever thread opens a
 * new directory, and much of what initdb allocates stays with this process after that thread is
 * gone (measured: RSS 800 MB at its peak, 360 MB after, against 230 MB when the worker opens a
 * directory that already holds a cluster). A child process returns all of it when it exits.
 */
async function initCluster(dir: string): Promise<void> {
  const script = `const { PGlite } = await import(process.argv[1]); const db = new PGlite(process.argv[2]); await db.waitReady; await db.close();`;
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script, import.meta.resolve('@electric-sql/pglite'), dir], { timeout: INIT_TIMEOUT_MS }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`embedded database failed to create its store in ${dir}: ${stderr.trim() || err.message}`));
      else resolve();
    });
  });
}

/** An error the engine reports like PostgreSQL would, so db-errors.ts maps it the same way. */
function pgError(message: string, code?: string, severity?: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code }, severity === undefined ? {} : { severity });
}

/** Name prefix of the store directory an engine without DATA_DIR makes under the OS's temporary directory. */
export const TEMPORARY_STORE_PREFIX = 'endpoints-pglite-';

/** How long making a new cluster may take (3–4 s measured). */
const INIT_TIMEOUT_MS = 60_000;

/** The worker's V8 heap limit (PGlite's own WASM memory is outside it). */
const WORKER_HEAP_MB = 1024;

/**
 * PGlite's WASM memory cap (pglite-worker.ts, capWasmMemory). It starts at 128 MiB; 256 leaves
 * PostgreSQL ~100 MiB beyond its buffer cache for sorts, hashes and one statement's values (a
 * value of ~60 MB still builds; 100 MB is refused, 53200).
 */
export const DEFAULT_EMBEDDED_MEMORY_MB = 256;

/** How long a statement whose caller went away may still run before its worker is replaced. */
const CANCEL_GRACE_MS = 500;

const TIMEOUT = () => pgError('canceling statement due to statement timeout', '57014', 'ERROR');
const CANCELLED = () => pgError('canceling statement due to user request', '57014', 'ERROR');

/**
 * The embedded engine: PostgreSQL compiled to WASM (PGlite), in a worker thread (pglite-worker.ts)
 * so a statement never blocks the event loop. One statement runs at a time (PGlite has one
 * session); the rest queue here. A statement past `statementTimeoutMs`, or whose caller went away,
 * is answered at once (57014, as PostgreSQL would) and its worker is terminated and replaced by one
 * that reopens the same directory. Every statement of the request path is read-only, so a worker
 * cut off mid-statement leaves the data as it was. A caller who goes away gets its statement
 * cancelled the same way, after CANCEL_GRACE_MS.
 *
 * The store is always a directory: DATA_DIR, or without it one of the engine's own under the OS's
 * temporary directory, removed by close(). PGlite's in-memory file system would hold the cluster
 * (~40 MB, 16 of them a WAL segment) in this process's memory a second time beside PostgreSQL's
 * buffer cache, and a replaced worker would need a copy of it to start from: measured, RSS 495 MB
 * in memory against 200 MB on a directory.
 */
export async function createPgliteEngine(opts: PgliteEngineOptions): Promise<{ engine: Engine; admin: AdminExec; writer: LogWriter }> {
  const setup = sessionSettings(opts.schema, opts.statementTimeoutMs)
    .map(([name, value]) => `set ${name} = '${value}';`)
    .join(' ');
  const queue: Pending[] = [];
  let worker: Worker | null = null;
  let ready = false;
  let running: Running | null = null;
  let nextId = 1;
  let closed = false;
  // Without DATA_DIR, a directory of this engine's own, removed by close(), or as the process exits
  // if it ends without one (an uncaught exception); only SIGKILL leaves it behind.
  const dir = opts.dataDir ?? mkdtempSync(join(tmpdir(), TEMPORARY_STORE_PREFIX));
  const removeOwnDir = (): void => {
    if (opts.dataDir !== null) return;
    process.off('exit', removeOwnDir);
    rmSync(dir, { recursive: true, force: true });
  };
  if (opts.dataDir === null) process.once('exit', removeOwnDir);
  let starting: Promise<void> = Promise.resolve();
  // A replacement worker that could not start: the engine is down until the process restarts.
  let startError: Error | null = null;

  function spawn(): Promise<void> {
    ready = false;
    const start: WorkerStart = {
      dataDir: dir,
      setup,
      maxResultBytes: opts.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
      memoryMaxBytes: (opts.memoryMaxMb ?? DEFAULT_EMBEDDED_MEMORY_MB) * 2 ** 20,
      responseShape: opts.responseShape ?? 'standard',
    };
    // A heap limit of its own: a statement that blows the worker's heap ends the worker, not the process.
    const w = new Worker(WORKER_BOOT, { eval: true, workerData: start, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    worker = w;
    return new Promise<void>((resolve, reject) => {
      w.on('message', (msg: Reply | { ready: true } | { failed: string }) => {
        if (w !== worker) return;
        if ('ready' in msg) {
          ready = true;
          resolve();
          pump();
        } else if ('failed' in msg) {
          reject(new Error(`embedded database failed to start: ${msg.failed}`));
        } else if (running !== null && msg.id === running.id) {
          const { pending, timer } = running;
          clearTimeout(timer);
          running = null;
          settle(pending, msg);
          // Not a PostgreSQL error (a WASM trap, memory exhausted): the instance cannot be trusted.
          if (!msg.ok && msg.error.code === undefined) cutOff(undefined, null);
          else pump();
        }
      });
      w.on('error', (err) => lost(w, err));
      w.on('exit', (code) => lost(w, new Error(`exited with code ${code}`)));
    });
  }

  /** The worker died on its own (not replaced by us): fail its statement, start another. */
  function lost(w: Worker, err: Error): void {
    if (w !== worker || closed) return;
    cutOff(running?.id, pgError(`Connection terminated: the embedded database worker ${err.message}`));
  }

  function failAll(err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    startError = error;
    for (const p of queue.splice(0)) p.reject(error);
  }

  /**
   * Give up on the worker: fail the statement `id` with `err` if it is still the running one (a
   * caller who already got its answer passes null), terminate the worker and start a fresh one;
   * the queue waits for it. The one way a statement is cut off: timeout, caller gone, worker lost.
   */
  function cutOff(id: number | undefined, err: Error | null): void {
    if (running !== null && running.id === id) {
      clearTimeout(running.timer);
      if (err !== null) running.pending.reject(err);
      running = null;
    }
    const old = worker;
    worker = null;
    void old?.terminate();
    // Closed meanwhile (a statement's timer fired after close()): nothing may start again.
    if (!closed) starting = spawn().catch(failAll);
  }

  function settle(pending: Pending, reply: Reply): void {
    if (pending.onAbort) pending.signal?.removeEventListener('abort', pending.onAbort);
    if (reply.ok) pending.resolve(reply);
    else pending.reject(pgError(reply.error.message, reply.error.code, reply.error.severity));
  }

  function pump(): void {
    if (!ready || running !== null || worker === null) return;
    // In arrival order: callers' turns are decided before they get here (queue/fair-queue.ts).
    const current = queue.shift();
    if (current === undefined) return;
    const id = nextId++;
    // Queries always have a statement timeout; writes their own (the log writer's); admin work none.
    const limitMs = current.body.kind === 'query' ? Math.min(opts.statementTimeoutMs, current.timeoutMs ?? Infinity) : current.timeoutMs;
    const timer = limitMs === undefined ? undefined : setTimeout(() => cutOff(id, TIMEOUT()), limitMs);
    running = { pending: current, id, timer };
    worker.postMessage({ ...current.body, id } as Job);
  }

  function submit(body: JobBody, signal?: AbortSignal, timeoutMs?: number): Promise<Reply> {
    if (closed) return Promise.reject(pgError('Connection terminated: the embedded database is closed'));
    if (signal?.aborted) return Promise.reject(CANCELLED());
    return new Promise<Reply>((resolve, reject) => {
      const pending: Pending = { body, resolve, reject, signal, ...(timeoutMs === undefined ? {} : { timeoutMs }) };
      if (signal) {
        pending.onAbort = () => {
          const queued = queue.indexOf(pending);
          if (queued !== -1) {
            queue.splice(queued, 1);
            reject(CANCELLED());
          } else if (running?.pending === pending) {
            // The caller went away mid-statement. PGlite cannot cancel it, so if it has not ended
            // within CANCEL_GRACE_MS its worker goes; a short statement is cheaper to let finish
            // than a worker is to replace (seconds of start-up that every queued call would wait).
            reject(CANCELLED());
            const id = running.id;
            setTimeout(() => {
              if (running?.id === id) cutOff(id, null);
            }, CANCEL_GRACE_MS).unref();
          }
        };
        signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      queue.push(pending);
      pump();
    });
  }

  try {
    if (!existsSync(join(dir, 'PG_VERSION'))) await initCluster(dir);
    await spawn();
  } catch (err) {
    removeOwnDir();
    throw err;
  }

  const engine: Engine = {
    name: 'pglite',
    dialect: 'postgresql',
    // One session: one statement at a time.
    concurrency: 1,
    async query(sql: string, params: readonly (string | null)[], options: QueryOptions = {}): Promise<Row[]> {
      const reply = await submit({ kind: 'query', sql, params }, options.signal, options.timeoutMs);
      if (!('rows' in reply)) return [];
      for (const name of reply.jsonb) {
        for (const row of reply.rows) {
          const v = row[name];
          if (typeof v === 'string') row[name] = new RawJson(v);
        }
      }
      return reply.rows;
    },
    notReady: () => (ready || closed ? undefined : starting),
    // The worker is up or being replaced: no statement, so a long one in the single session does not
    // make /ready fail (it is cut off at the statement timeout); a worker that cannot start does.
    async ping() {
      if (closed) throw pgError('Connection terminated: the embedded database is closed');
      if (startError !== null) throw pgError(`Connection terminated: ${startError.message}`);
    },
    async close() {
      if (closed) return;
      await starting;
      const w = worker;
      const done = submit({ kind: 'close' }).catch(() => {});
      closed = true;
      failAll(pgError('Connection terminated: the embedded database is closed'));
      // A statement still running is answered now, and its timer cleared: left armed, it would
      // fire after close and start a new worker, which keeps the process alive.
      if (running !== null) cutOff(running.id, pgError('Connection terminated: the embedded database is closed'));
      await done;
      worker = null;
      await w?.terminate();
      removeOwnDir();
    },
  };

  const admin: AdminExec = async (sql, params) => {
    const reply = await submit({ kind: 'admin', sql, params });
    return 'rows' in reply ? { rows: reply.rows, affectedRows: reply.affectedRows } : {};
  };
  // Ingest and retention: a read-write transaction like admin's, under the writer's statement
  // timeout (past it the worker is replaced: nothing half-written). The same one session.
  const writer: LogWriter = Object.freeze({
    concurrency: 1,
    sharesEngine: true,
    async write(sql: string, params: readonly unknown[]): Promise<number> {
      const reply = await submit({ kind: 'admin', sql, params }, undefined, WRITER_STATEMENT_TIMEOUT_MS);
      return 'rows' in reply ? reply.affectedRows : 0;
    },
    // The engine's owner closes the session.
    close: async () => {},
  });

  return { engine, admin, writer };
}
