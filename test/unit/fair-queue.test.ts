/**
 * The fair queue (src/queue/fair-queue.ts) on its own: tasks are promises the test settles, the
 * clock is the test's, so every ordering below is exact. The engines behind it are exercised in
 * test/unit/pglite-engine.test.ts and the behaviour suite (test/behaviour/queueing.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError } from '../../src/shared/errors.ts';
import { ACTIVE_WINDOW_MS, FairQueue, type FairQueueOptions, type Promotion, type QueueClass, type QueueRejection } from '../../src/queue/fair-queue.ts';

/** A queue on the test's clock, recording what it reports. */
function setup(options: Partial<FairQueueOptions> = {}) {
  const clock = { t: 0 };
  const seen = { rejected: [] as [QueueClass, QueueRejection][], abandoned: [] as QueueClass[], waited: [] as number[] };
  const queue = new FairQueue({
    capacity: 2,
    maxQueuedPerOwner: 100,
    maxQueued: 1000,
    queueTimeoutMs: 1_000,
    now: () => clock.t,
    observer: { waited: (_c, ms) => seen.waited.push(ms), rejected: (c, r) => seen.rejected.push([c, r]), abandoned: (c) => seen.abandoned.push(c) },
    ...options,
  });
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  /** Queue a task labelled `label` for `owner`; it runs until `end(label)`. */
  const submit = (label: string, owner: object, extra: { signal?: AbortSignal; background?: boolean; promotion?: Promotion } = {}) => {
    const turn = queue.run(owner, () => new Promise<string>((resolve) => {
      started.push(label);
      finish.set(label, () => resolve(label));
    }), { cls: extra.background ? 'warming' : 'query', ...extra });
    // Turns a test leaves waiting end at its queue timeout; what they reject with is asserted where it matters.
    turn.catch(() => {});
    return turn;
  };
  /** End a running task after `ms` of the test's clock. */
  const end = async (label: string, ms = 0) => {
    clock.t += ms;
    finish.get(label)!();
    await settle();
  };
  return { queue, clock, seen, started, submit, end };
}

const settle = () => new Promise((r) => setImmediate(r));

test('one owner alone uses every connection, and a burst beyond them is queued, not refused', async () => {
  const { queue, started, submit, end } = setup();
  const a = {};
  const all = ['a1', 'a2', 'a3', 'a4', 'a5'].map((l) => submit(l, a));
  await settle();
  assert.deepEqual(started, ['a1', 'a2']);
  assert.deepEqual(queue.stats().query, { waiting: 3, running: 2 });
  for (const l of ['a1', 'a2', 'a3', 'a4', 'a5']) await end(l, 1);
  assert.deepEqual(await Promise.all(all), ['a1', 'a2', 'a3', 'a4', 'a5']);
  assert.deepEqual(queue.stats().query, { waiting: 0, running: 0 });
});

test('a freed connection goes to the owner that has used the least time: slow statements wait behind quick ones', async () => {
  const { started, submit, end } = setup({ capacity: 1 });
  const slow = {};
  const quick = {};
  void submit('s1', slow);
  void submit('s2', slow);
  void submit('q1', quick);
  void submit('q2', quick);
  await settle();
  await end('s1', 1000);
  await end('q1', 1);
  await end('q2', 1);
  await end('s2', 1000);
  // Arrival order was s2 before q1; s1's second of database time puts slow behind both of quick's.
  assert.deepEqual(started, ['s1', 'q1', 'q2', 's2']);
});

test('while another owner is active, an owner past its share leaves a connection free for it', async () => {
  const { started, submit, end, clock } = setup({ capacity: 3 });
  const flood = {};
  const other = {};
  void submit('o1', other);
  await settle();
  await end('o1', 1);
  // other is active (it ended a statement just now) but has nothing running: one connection stays free for it.
  const floods = ['f1', 'f2', 'f3', 'f4'].map((l) => submit(l, flood));
  await settle();
  assert.deepEqual(started, ['o1', 'f1', 'f2']);
  void submit('o2', other);
  await settle();
  assert.deepEqual(started, ['o1', 'f1', 'f2', 'o2'], 'the other owner is served at once, not after a flood statement');
  // Once the other owner has been idle for the active window, the flood may use every connection.
  await end('o2', 1);
  clock.t += ACTIVE_WINDOW_MS;
  await end('f1', 1);
  assert.deepEqual(started.slice(4), ['f3', 'f4']);
  void floods;
});

test('bounds: an owner\'s own queue full is 429 with Retry-After; every owner\'s queues full is 503 overloaded', async () => {
  const { submit, seen } = setup({ capacity: 1, maxQueuedPerOwner: 2, maxQueued: 3, queueTimeoutMs: 50 });
  const a = {};
  const b = {};
  void submit('a1', a);
  void submit('a2', a);
  void submit('a3', a);
  await assert.rejects(submit('a4', a), (err: HttpError) => err.code === 'too_many_requests' && err.status === 429 && /^\d+$/.test(err.headers['Retry-After'] ?? ''));
  void submit('b1', b);
  await assert.rejects(submit('b2', b), (err: HttpError) => err.code === 'overloaded' && err.status === 503 && err.headers['Retry-After'] === '1');
  assert.deepEqual(seen.rejected, [['query', 'token_queue_full'], ['query', 'queue_full']]);
});

test('a wait past QUEUE_TIMEOUT_MS: 429 when the owner waits on its own statements, 503 when on everyone\'s', async () => {
  const { submit, seen } = setup({ capacity: 1, queueTimeoutMs: 30 });
  const a = {};
  const b = {};
  void submit('a1', a);
  const own = submit('a2', a);
  const others = submit('b1', b);
  await assert.rejects(own, (err: HttpError) => err.code === 'too_many_requests' && /waited 30 ms \(QUEUE_TIMEOUT_MS\) behind its own/.test(err.message));
  await assert.rejects(others, (err: HttpError) => err.code === 'overloaded');
  assert.deepEqual(seen.rejected.map(([, r]) => r), ['queue_timeout', 'queue_timeout']);
});

test('a caller that goes away while queued leaves the queue at once; its task never runs', async () => {
  const { queue, started, submit, end, seen } = setup({ capacity: 1 });
  const a = {};
  void submit('a1', a);
  const gone = new AbortController();
  const leaving = submit('a2', a, { signal: gone.signal });
  await settle();
  assert.equal(queue.stats().query.waiting, 1);
  gone.abort();
  await assert.rejects(leaving, (err: Error) => err.name === 'AbortError');
  assert.equal(queue.stats().query.waiting, 0);
  assert.deepEqual(seen.abandoned, ['query']);
  await end('a1');
  assert.deepEqual(started, ['a1']);
});

test('background turns run only when no caller waits and leave one connection free; a caller waiting on one promotes it', async () => {
  const { started, submit, end } = setup({ capacity: 2 });
  const warming = {};
  const a = {};
  void submit('a1', a);
  const promotion: Promotion = { promoted: false, onPromote: null };
  void submit('w1', warming, { background: true, promotion });
  await settle();
  assert.deepEqual(started, ['a1'], 'with one connection free, background work waits');
  await end('a1');
  assert.deepEqual(started, ['a1', 'w1'], 'idle: background work runs');
  await end('w1');
  // Both connections busy with callers and more waiting: a background turn waits, until promoted.
  void submit('a2', a);
  void submit('a3', a);
  void submit('a4', a);
  const raised: Promotion = { promoted: false, onPromote: null };
  void submit('w2', warming, { background: true, promotion: raised });
  await settle();
  raised.promoted = true;
  raised.onPromote?.();
  await end('a2', 1);
  await end('a3', 1);
  // The warming owner has used less time than a: once promoted it goes before a4.
  assert.deepEqual(started.slice(2), ['a2', 'a3', 'w2', 'a4']);
});

test('a held turn keeps its connection, and its owner is charged, until the engine is ready again', async () => {
  let restart: Promise<void> | undefined;
  let ready!: () => void;
  // The engine is not ready from the moment a1's statement ends until `ready()`.
  const { started, submit, end } = setup({ capacity: 1, notReady: () => restart });
  const a = {};
  const b = {};
  const answered = submit('a1', a);
  void submit('b1', b);
  await settle();
  restart = new Promise<void>((r) => (ready = () => ((restart = undefined), r())));
  await end('a1', 10);
  assert.equal(await answered, 'a1', 'the caller has its answer at once');
  assert.deepEqual(started, ['a1'], 'the next turn waits for the engine');
  ready();
  await settle();
  assert.deepEqual(started, ['a1', 'b1']);
});

test('background work that waited a whole queue timeout is raised, not refused: it runs before callers that came later', async () => {
  const { started, submit, end, seen } = setup({ capacity: 1, queueTimeoutMs: 50 });
  const a = {};
  void submit('a1', a);
  const a2 = submit('a2', a);
  void submit('r1', {}, { background: true });
  // At 50 ms a2 is refused (it waited on its own token's statement) and r1 is raised to a caller's turn.
  await assert.rejects(a2, (err: HttpError) => err.code === 'too_many_requests');
  await new Promise((r) => setTimeout(r, 10));
  void submit('a3', a);
  await end('a1', 1);
  assert.deepEqual(started, ['a1', 'r1']);
  assert.deepEqual(seen.rejected, [['query', 'queue_timeout']]);
  await end('r1', 1);
  assert.deepEqual(started, ['a1', 'r1', 'a3']);
});

test('a promoted background turn keeps a queue timeout: it does not wait forever', async () => {
  const { submit } = setup({ capacity: 1, queueTimeoutMs: 20 });
  const a = {};
  void submit('a1', a);
  const promotion: Promotion = { promoted: false, onPromote: null };
  const raised = submit('w1', {}, { background: true, promotion });
  promotion.promoted = true;
  promotion.onPromote?.();
  await assert.rejects(raised, (err: HttpError) => err.code === 'overloaded');
});
