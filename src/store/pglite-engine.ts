import { Worker } from 'node:worker_threads';
import { RawJson } from '../query/encode.ts';
import type { ResponseShape } from '../query/logflare-shape.ts';
import type { AdminExec, Engine, QueryOptions, Row } from './engine.ts';
import { DEFAULT_MAX_RESULT_BYTES } from './result-limit.ts';
import { sessionSettings } from './session-settings.ts';
import type { Job, Reply, WorkerStart } from './pglite-worker.ts';

export interface PgliteEngineOptions {
  /** Directory of the embedded store; in memory when null. */
  dataDir: string | null;
  schema: string;
  statementTimeoutMs: number;
  /** Result byte limit of one statement; default DEFAULT_MAX_RESULT_BYTES. */
  maxResultBytes?: number;
  /** How values are encoded (COMPAT=logflare: Logflare's shape); standard when unset. */
  responseShape?: ResponseShape;
}

type JobBody = Job extends infer J ? (J extends { id: number } ? Omit<J, 'id'> : never) : never;

interface Pending {
  body: JobBody;
  /** A statement timeout shorter than the session's, for this statement. */
  timeoutMs?: number;
  /** Whose turn this is (QueryOptions.owner); statements without one share the NO_OWNER turn. */
  owner: object;
  resolve(reply: Reply): void;
  reject(err: Error): void;
  signal: AbortSignal | undefined;
  onAbort?: () => void;
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

/** An error the engine reports like PostgreSQL would, so db-errors.ts maps it the same way. */
function pgError(message: string, code?: string, severity?: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code }, severity === undefined ? {} : { severity });
}

/** The worker's V8 heap limit (PGlite's own WASM memory is outside it). */
const WORKER_HEAP_MB = 1024;

/** The owner of statements that run for nobody in particular (admin writes, refreshes, snapshots). */
const NO_OWNER: object = Object.freeze({});

/** How long a statement whose caller went away may still run before its worker is replaced. */
const CANCEL_GRACE_MS = 500;

const TIMEOUT = () => pgError('canceling statement due to statement timeout', '57014', 'ERROR');
const CANCELLED = () => pgError('canceling statement due to user request', '57014', 'ERROR');

/**
 * The embedded engine: PostgreSQL compiled to WASM (PGlite), in a worker thread (pglite-worker.ts)
 * so a statement never blocks the event loop. One statement runs at a time (PGlite has one
 * session); the rest queue here. A statement past `statementTimeoutMs`, or whose caller went away,
 * is answered at once (57014, as PostgreSQL would) and its worker is terminated and replaced: from
 * DATA_DIR, or, in memory, from a snapshot of the store taken after the last write. Every
 * statement of the request path is read-only, so that snapshot is always the current data.
 * A caller who goes away gets its statement cancelled the same way, after CANCEL_GRACE_MS.
 */
export async function createPgliteEngine(opts: PgliteEngineOptions): Promise<{ engine: Engine; admin: AdminExec }> {
  const setup = sessionSettings(opts.schema, opts.statementTimeoutMs)
    .map(([name, value]) => `set ${name} = '${value}';`)
    .join(' ');
  const queue: Pending[] = [];
  let worker: Worker | null = null;
  let ready = false;
  let running: { pending: Pending; id: number; timer: NodeJS.Timeout | undefined } | null = null;
  let nextId = 1;
  let closed = false;
  // In memory: the store as of the last write, to restore a replaced worker from.
  let snapshot: ArrayBuffer | null = null;
  let dirty = false;
  let starting: Promise<void> = Promise.resolve();
  // Turn-taking between owners: owner → the turn number it last ran at (owners are a bounded set: tokens).
  const lastTurn = new Map<object, number>();
  let turns = 0;
  // A replacement worker that could not start: the engine is down until the process restarts.
  let startError: Error | null = null;

  function spawn(): Promise<void> {
    ready = false;
    const start: WorkerStart = { dataDir: opts.dataDir, snapshot: opts.dataDir === null ? snapshot : null, setup, maxResultBytes: opts.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES, responseShape: opts.responseShape ?? 'standard' };
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
    starting = spawn().catch(failAll);
  }

  function settle(pending: Pending, reply: Reply): void {
    if (pending.onAbort) pending.signal?.removeEventListener('abort', pending.onAbort);
    if (reply.ok) pending.resolve(reply);
    else pending.reject(pgError(reply.error.message, reply.error.code, reply.error.severity));
  }

  function pump(): void {
    if (!ready || running !== null || worker === null) return;
    let pending: Pending | undefined;
    if (dirty && opts.dataDir === null && queue.some((p) => p.body.kind === 'query')) {
      // Take the snapshot before the next statement: if that one has to be cut off, the
      // replacement starts from it.
      dirty = false;
      pending = {
        body: { kind: 'dump' },
        signal: undefined,
        owner: NO_OWNER,
        resolve: (reply) => {
          if ('dump' in reply) snapshot = reply.dump;
        },
        reject: () => {
          dirty = true;
        },
      };
    } else {
      pending = takeTurn();
      if (pending === undefined) return;
    }
    const id = nextId++;
    const current = pending;
    const timer = current.body.kind === 'query'
      ? setTimeout(() => cutOff(id, TIMEOUT()), Math.min(opts.statementTimeoutMs, current.timeoutMs ?? Infinity))
      : undefined;
    running = { pending: current, id, timer };
    if (current.body.kind === 'admin') dirty = true;
    worker.postMessage({ ...current.body, id } as Job);
  }

  /**
   * The next statement: the queued one whose owner ran least recently (first queued among equals).
   * One session serves every caller here, so a token with many statements queued takes turns with
   * the others instead of making them wait behind all of its own.
   */
  function takeTurn(): Pending | undefined {
    let best = -1;
    let bestTurn = Infinity;
    for (let i = 0; i < queue.length; i++) {
      const turn = lastTurn.get(queue[i]!.owner) ?? -1;
      if (turn < bestTurn) {
        best = i;
        bestTurn = turn;
      }
    }
    if (best === -1) return undefined;
    const [pending] = queue.splice(best, 1);
    lastTurn.set(pending!.owner, turns++);
    return pending;
  }

  function submit(body: JobBody, signal?: AbortSignal, timeoutMs?: number, owner: object = NO_OWNER): Promise<Reply> {
    if (closed) return Promise.reject(pgError('Connection terminated: the embedded database is closed'));
    if (signal?.aborted) return Promise.reject(CANCELLED());
    return new Promise<Reply>((resolve, reject) => {
      const pending: Pending = { body, resolve, reject, signal, owner, ...(timeoutMs === undefined ? {} : { timeoutMs }) };
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

  await spawn();

  const engine: Engine = {
    name: 'pglite',
    async query(sql: string, params: readonly (string | null)[], options: QueryOptions = {}): Promise<Row[]> {
      const reply = await submit({ kind: 'query', sql, params }, options.signal, options.timeoutMs, options.owner);
      if (!('rows' in reply)) return [];
      for (const name of reply.jsonb) {
        for (const row of reply.rows) {
          const v = row[name];
          if (typeof v === 'string') row[name] = new RawJson(v);
        }
      }
      return reply.rows;
    },
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
      await done;
      worker = null;
      await w?.terminate();
    },
  };

  const admin: AdminExec = async (sql, params) => {
    const reply = await submit({ kind: 'admin', sql, params });
    return 'rows' in reply ? { rows: reply.rows, affectedRows: reply.affectedRows } : {};
  };

  return { engine, admin };
}
