/**
 * The embedded engine (src/store/pglite/pglite-engine.ts): one session serves every caller, so behind the
 * service's fair queue owners share its time; a statement cut off by its timeout leaves the store
 * intact; and its memory cap (pglite-worker.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { AdminExec, Engine, LogWriter } from '../../src/store/engine.ts';
import { createPgliteEngine, TEMPORARY_STORE_PREFIX } from '../../src/store/pglite/pglite-engine.ts';
import { applySchema } from '../../src/store/schema.ts';
import { FairQueue } from '../../src/queue/fair-queue.ts';
import { queuedWriter } from '../../src/queue/queued-writer.ts';
import { tempDir } from '../support/temp-dir.ts';

let engine: Engine;
let admin: AdminExec;
let writer: LogWriter;

before(async () => {
  ({ engine, admin, writer } = await createPgliteEngine({ dataDir: null, schema: 'logs', statementTimeoutMs: 10_000 }));
  await applySchema(admin, 'logs');
  await admin("insert into logs.edge_logs (id, timestamp) values ('kept', '2026-11-20T12:00:00Z')");
});
after(async () => {
  await engine?.close();
});

/** A fair queue in front of the embedded engine, as service.ts puts one. */
const queueFor = (e: Engine) => new FairQueue({ capacity: e.concurrency, maxQueuedPerOwner: 100, maxQueued: 1000, queueTimeoutMs: 60_000, notReady: e.notReady });

test('through the fair queue: a token with many statements queued takes turns with another token instead of going first with all of them', async () => {
  const a = {};
  const b = {};
  const done: string[] = [];
  const queue = queueFor(engine);
  const run = (label: string, owner: object) =>
    queue.run(owner, () => engine.query('select count(*)::int as n from generate_series(1, 300000)', []), { cls: 'query' }).then(() => done.push(label));
  // a1 starts at once; a2..a4 and b1 queue behind it. FIFO would run b1 last.
  await Promise.all([run('a1', a), run('a2', a), run('a3', a), run('a4', a), run('b1', b)]);
  assert.deepEqual(done, ['a1', 'b1', 'a2', 'a3', 'a4']);
});

test('an ingest write shares the one session\'s queue: it waits as class ingest while a query runs, then commits', async () => {
  assert.equal(writer.sharesEngine, true);
  const queue = queueFor(engine);
  const ingestToken = {};
  const logs = queuedWriter(writer, queue);
  const query = queue.run({}, () => engine.query('select count(*)::int as n from generate_series(1, 2000000)', []), { cls: 'query' });
  const write = logs.write("insert into logs.edge_logs (id, timestamp) values ('queued-write', '2026-11-20T12:00:01Z')", [], { owner: ingestToken });
  assert.deepEqual([queue.stats().query.running, queue.stats().ingest.waiting], [1, 1]);
  await query;
  assert.equal(await write, 1);
  assert.deepEqual(await engine.query("select id from edge_logs where id = 'queued-write'", []), [{ id: 'queued-write' }]);
  assert.deepEqual(queue.stats().ingest, { waiting: 0, running: 0 });
  await admin("delete from logs.edge_logs where id = 'queued-write'");
});

test('a statement past its timeout is cut off on time; the next one runs on a fresh worker with the same data', async () => {
  const started = Date.now();
  await assert.rejects(engine.query('select count(*) from generate_series(1, 1e10)', [], { timeoutMs: 300 }), (err: Error & { code?: string }) => err.code === '57014');
  assert.ok(Date.now() - started < 1_500, `cut off after ${Date.now() - started} ms`);
  assert.deepEqual(await engine.query('select id from edge_logs', []), [{ id: 'kept' }]);
});

test('through the fair queue, owners share the session by time: after one statement of a that held it until cut off, every queued statement of b runs first', async () => {
  const a = {};
  const b = {};
  const done: string[] = [];
  const queue = queueFor(engine);
  const short = (label: string, owner: object) => queue.run(owner, () => engine.query('select 1 as one', []), { cls: 'query' }).then(() => done.push(label));
  const long = queue.run(a, () => engine.query('select count(*) from generate_series(1, 1e10)', [], { timeoutMs: 300 }), { cls: 'query' }).catch(() => done.push('a1 cut off'));
  // Taking turns would run b1, a2, b2, b3: a's 300 ms (and the worker's start-up) count against it.
  await Promise.all([long, short('a2', a), short('b1', b), short('b2', b), short('b3', b)]);
  assert.deepEqual(done, ['a1 cut off', 'b1', 'b2', 'b3', 'a2']);
});

test('a value larger than the WASM memory cap fails as out of memory (53200); the session carries on', async () => {
  await assert.rejects(engine.query("select repeat('x', 300000000) as v", []), (err: Error & { code?: string }) => err.code === '53200');
  assert.deepEqual(await engine.query('select id from edge_logs', []), [{ id: 'kept' }]);
});

test('a process that crashes (an uncaught exception) still removes the engine\'s temporary store', () => {
  const tmp = tempDir('pglite-crash-');
  const engineUrl = new URL('../../src/store/pglite/pglite-engine.ts', import.meta.url).href;
  const script = `const { createPgliteEngine } = await import(${JSON.stringify(engineUrl)});
    await createPgliteEngine({ dataDir: null, schema: 'logs', statementTimeoutMs: 10000 });
    const { readdirSync } = await import('node:fs');
    console.log('stores while up: ' + readdirSync(${JSON.stringify(tmp)}).filter((n) => n.startsWith(${JSON.stringify(TEMPORARY_STORE_PREFIX)})).length);
    throw new Error('crash');`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, TMPDIR: tmp }, encoding: 'utf8', timeout: 60_000 });
  assert.match(child.stdout, /stores while up: 1/, child.stderr);
  assert.equal(child.status, 1, child.stderr);
  assert.deepEqual(readdirSync(tmp).filter((n) => n.startsWith(TEMPORARY_STORE_PREFIX)), []);
});

// Regression: closing while a statement ran (the service's start-up store check, a test's
// teardown) left that statement's timeout armed; it fired after close and started a new worker,
// and the process never exited.
test('closing while a statement runs answers it at once as closed, and nothing starts again', async () => {
  const own = await createPgliteEngine({ dataDir: null, schema: 'logs', statementTimeoutMs: 3_000 });
  const running = own.engine.query('select count(*)::int as n from generate_series(1, 20000000)', []).then(
    () => 'answered',
    (err: Error) => err.message,
  );
  await new Promise((r) => setTimeout(r, 150));
  const closedAt = Date.now();
  await own.engine.close();
  assert.match(await running, /closed/);
  assert.ok(Date.now() - closedAt < 2_000, 'answered when closed, not at its timeout');
  await assert.rejects(own.engine.query('select 1', []), /closed/);
});
