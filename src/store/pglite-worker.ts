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
import { OID } from '../query/encode.ts';
import { textParsers, wrapNestedObjects, type ResponseShape } from '../query/logflare-shape.ts';
import { resultTooLarge } from './result-limit.ts';

export interface WorkerStart {
  dataDir: string | null;
  /** A data-directory tarball to start from (in-memory store being restored), or null. */
  snapshot: ArrayBuffer | null;
  /** Session settings, run once before anything else. */
  setup: string;
  /** Result byte limit of one statement (an estimate from the values' lengths). */
  maxResultBytes: number;
  responseShape: ResponseShape;
}

export type Job =
  | { id: number; kind: 'query'; sql: string; params: readonly unknown[] }
  | { id: number; kind: 'admin'; sql: string; params: readonly unknown[] | undefined }
  | { id: number; kind: 'dump' }
  | { id: number; kind: 'close' };

export interface SerializedError {
  message: string;
  code?: string;
  severity?: string;
}

export type Reply =
  | { id: number; ok: true; rows: Record<string, unknown>[]; jsonb: string[]; affectedRows: number }
  | { id: number; ok: true; dump: ArrayBuffer }
  | { id: number; ok: false; error: SerializedError };

/** JSON column types whose text is sent back as is, for the parent to mark as RawJson. */
const RAW_JSON_OIDS: Readonly<Record<ResponseShape, readonly number[]>> = { standard: [OID.jsonb], logflare: [OID.jsonb, OID.json] };

function parsersFor(shape: ResponseShape): Record<number, (text: string) => unknown> {
  const json = shape === 'logflare' ? wrapNestedObjects : (text: string) => text;
  return { ...textParsers(shape), ...Object.fromEntries(RAW_JSON_OIDS[shape].map((oid) => [oid, json])) };
}

/** Whether a result takes more than `limit` bytes, near enough: string lengths, 8 for anything else. */
function overLimit(rows: readonly Record<string, unknown>[], limit: number): boolean {
  let bytes = 0;
  for (const row of rows) {
    for (const key in row) {
      const v = row[key];
      bytes += key.length + (typeof v === 'string' ? v.length : 8);
    }
    if (bytes > limit) return true;
  }
  return false;
}

async function start(init: WorkerStart): Promise<void> {
  const port = parentPort!;
  const rawJson = RAW_JSON_OIDS[init.responseShape];
  const options = { parsers: parsersFor(init.responseShape), ...(init.snapshot === null ? {} : { loadDataDir: new Blob([init.snapshot]) }) };
  const db = init.dataDir === null ? new PGlite(options) : new PGlite(init.dataDir, options);
  await db.waitReady;
  await db.exec(init.setup);

  const reply = (r: Reply, transfer: ArrayBuffer[] = []) => port.postMessage(r, transfer);
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
      case 'query': {
        const result = await db.query<Record<string, unknown>>(job.sql, job.params as unknown[]);
        if (overLimit(result.rows, init.maxResultBytes)) throw resultTooLarge(init.maxResultBytes);
        return reply(rowsReply(job.id, result));
      }
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
      case 'dump': {
        const dump = await (await db.dumpDataDir('none')).arrayBuffer();
        return reply({ id: job.id, ok: true, dump }, [dump]);
      }
      case 'close':
        await db.close();
        reply({ id: job.id, ok: true, rows: [], jsonb: [], affectedRows: 0 });
        port.close();
        return;
    }
  }
  port.postMessage({ ready: true });
}

start(workerData as WorkerStart).catch((err: unknown) => {
  parentPort?.postMessage({ failed: err instanceof Error ? err.message : String(err) });
});
