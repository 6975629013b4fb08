/**
 * The embedded database's own thread. PGlite runs PostgreSQL compiled to WASM synchronously inside
 * whatever thread holds it and cannot interrupt a statement (no timer interrupts, so
 * `statement_timeout` never fires). Run here, a runaway statement blocks only this thread; the
 * main thread answers a 504 on time and replaces the worker (pglite-engine.ts).
 *
 * Protocol (structured-clone messages): the parent sends `Job`s one at a time and gets one `Reply`
 * per job. Values are encoded here with the same text parsers as the pg engine (encode.ts), except
 * jsonb, which comes back as text and is marked so the parent wraps it (a class instance does not
 * survive postMessage).
 */
import { PGlite, type Results } from '@electric-sql/pglite';
import { parentPort, workerData } from 'node:worker_threads';
import { OID } from '../values/pg-text.ts';
import { textParsers, wrapNestedObjects, type ResponseShape } from '../values/response-shape.ts';
import { PGLITE_EXTENSIONS } from './pglite-extensions.ts';
import { resultTooLarge } from '../result-limit.ts';

export interface WorkerStart {
  dataDir: string;
  /** Session settings, run once before anything else. */
  setup: string;
  /** Result byte limit of one statement (an estimate from the values' lengths). */
  maxResultBytes: number;
  /** The most WASM memory PGlite may grow to (bytes); past it, an allocation fails (53200). */
  memoryMaxBytes: number;
  responseShape: ResponseShape;
}

export type Job =
  | { id: number; kind: 'query'; sql: string; params: readonly unknown[] }
  | { id: number; kind: 'admin'; sql: string; params: readonly unknown[] | undefined }
  | { id: number; kind: 'close' };

export interface SerializedError {
  message: string;
  code?: string;
  severity?: string;
}

export type Reply =
  | { id: number; ok: true; rows: Record<string, unknown>[]; jsonb: string[]; affectedRows: number }
  | { id: number; ok: false; error: SerializedError };

/** JSON column types whose text is sent back as is, for the parent to mark as RawJson. */
const RAW_JSON_OIDS: Readonly<Record<ResponseShape, readonly number[]>> = { standard: [OID.jsonb], logflare: [OID.jsonb, OID.json] };

function parsersFor(shape: ResponseShape): Record<number, (text: string) => unknown> {
  const json = shape === 'logflare' ? wrapNestedObjects : (text: string) => text;
  return { ...textParsers(shape), ...Object.fromEntries(RAW_JSON_OIDS[shape].map((oid) => [oid, json])) };
}

/** A row's size, near enough: string lengths, 8 for anything else. */
function rowBytes(row: Record<string, unknown>): number {
  let bytes = 0;
  for (const key in row) {
    const v = row[key];
    bytes += key.length + (typeof v === 'string' ? v.length : 8);
  }
  return bytes;
}

/** The cursor a statement is read through (one statement at a time per worker). */
const CURSOR = 'endpoints_result';
/** Rows of the first FETCH: one, to learn how large rows are before asking for many. */
const FIRST_BATCH_ROWS = 1;
/** Later FETCHes ask for about this many bytes of rows (and at most MAX_BATCH_ROWS rows). */
const BATCH_BYTES = 1 << 20;
const MAX_BATCH_ROWS = 10_000;

/**
 * PostgreSQL's buffer cache in the WASM memory. The store is a directory, so its pages are in the
 * OS's page cache already, and PGlite's default 128MB would mostly hold a second copy: measured,
 * 128MB → 32MB takes ~115 MB off the process's RSS. 32MB fits in PGlite's initial 128 MiB of WASM
 * memory, which it never starts below.
 */
const SHARED_BUFFERS = '32MB';

/**
 * Cap the WASM memory of every PGlite instance this thread creates. PGlite makes its memory itself
 * (`new WebAssembly.Memory({ initial, maximum: 32768 pages })`, 2 GiB) and grows it when PostgreSQL's
 * allocator asks; a grow past `maximum` throws, which PGlite turns into a failed allocation, which
 * PostgreSQL reports as `53200 out of memory` for that statement alone (the session carries on).
 * Without a cap one caller's `repeat('x', 500000000)` grows it (for good: WASM memory never shrinks)
 * past 2 GB. The thread is this engine's own, so replacing the constructor here touches nothing else.
 */
function capWasmMemory(maxBytes: number): void {
  const Native = WebAssembly.Memory;
  const maxPages = Math.floor(maxBytes / 65_536);
  class CappedMemory extends Native {
    constructor(descriptor: WebAssembly.MemoryDescriptor) {
      super({ ...descriptor, maximum: Math.max(descriptor.initial, Math.min(descriptor.maximum ?? maxPages, maxPages)) });
    }
  }
  WebAssembly.Memory = CappedMemory;
}

async function start(init: WorkerStart): Promise<void> {
  const port = parentPort!;
  const rawJson = RAW_JSON_OIDS[init.responseShape];
  capWasmMemory(init.memoryMaxBytes);
  const options = {
    parsers: parsersFor(init.responseShape),
    extensions: PGLITE_EXTENSIONS,
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
  };
  const db = new PGlite(init.dataDir, options);
  await db.waitReady;
  await db.exec(init.setup);
  // Statements are read through a cursor (below); plan them for the whole result, as without one
  // (the default 0.1 favours plans that return the first rows fast).
  await db.exec('set cursor_tuple_fraction = 1');

  const reply = (r: Reply) => port.postMessage(r);
  const rowsReply = (id: number, result: Results<Record<string, unknown>>): Reply => ({
    id,
    ok: true,
    rows: result.rows,
    jsonb: result.fields.filter((f) => rawJson.includes(f.dataTypeID)).map((f) => f.name),
    affectedRows: result.affectedRows ?? 0,
  });

  port.on('message', (job: Job) => {
    void run(job).catch((err: unknown) => {
      const e = (err ?? {}) as { message?: unknown; code?: unknown; severity?: unknown };
      const error: SerializedError = { message: typeof e.message === 'string' ? e.message : String(err) };
      if (typeof e.code === 'string') error.code = e.code;
      if (typeof e.severity === 'string') error.severity = e.severity;
      reply({ id: job.id, ok: false, error });
    });
  });

  async function run(job: Job): Promise<void> {
    switch (job.kind) {
      case 'query':
        return reply(rowsReply(job.id, await readThroughCursor(job.sql, job.params)));
      case 'admin': {
        // Writes (schema, demo data, test fixtures) opt out of the session's read-only default explicitly.
        const result = await db.transaction(async (tx) => {
          await tx.exec('set transaction read write');
          if (job.params === undefined) {
            const all = await tx.exec(job.sql);
            return all[all.length - 1] ?? { rows: [], fields: [], affectedRows: 0 };
          }
          return tx.query<Record<string, unknown>>(job.sql, job.params as unknown[]);
        });
        return reply(rowsReply(job.id, result as Results<Record<string, unknown>>));
      }
      case 'close':
        await db.close();
        reply({ id: job.id, ok: true, rows: [], jsonb: [], affectedRows: 0 });
        port.close();
        return;
    }
  }
  /**
   * Run a statement and read its rows a batch at a time, counting bytes as they arrive. PGlite
   * builds what it returns in WASM memory, which is this process's memory and never shrinks (it
   * grows up to capWasmMemory's cap): read whole, a result past the byte limit would already be
   * held before it could be refused. Through a cursor, no more than one batch (about BATCH_BYTES,
   * or one row) is ever held past the limit. The statement is the caller's validated SELECT;
   * values stay bound parameters.
   */
  async function readThroughCursor(sql: string, params: readonly unknown[]): Promise<Results<Record<string, unknown>>> {
    return db.transaction(async (tx) => {
      await tx.query(`declare ${CURSOR} no scroll cursor for ${sql}`, params as unknown[]);
      const rows: Record<string, unknown>[] = [];
      let fields: Results['fields'] = [];
      let bytes = 0;
      let batch = FIRST_BATCH_ROWS;
      for (;;) {
        // FETCH takes its count as a literal, never a parameter; this one is our own integer.
        const r = await tx.query<Record<string, unknown>>(`fetch forward ${batch} from ${CURSOR}`);
        fields = r.fields;
        let batchBytes = 0;
        for (const row of r.rows) {
          batchBytes += rowBytes(row);
          rows.push(row);
        }
        bytes += batchBytes;
        if (bytes > init.maxResultBytes) throw resultTooLarge(init.maxResultBytes);
        if (r.rows.length < batch) break;
        batch = Math.max(1, Math.min(MAX_BATCH_ROWS, Math.floor(BATCH_BYTES / Math.max(1, batchBytes / r.rows.length))));
      }
      return { rows, fields, affectedRows: 0 };
    });
  }

  port.postMessage({ ready: true });
}

start(workerData as WorkerStart).catch((err: unknown) => {
  parentPort?.postMessage({ failed: err instanceof Error ? err.message : String(err) });
});
