import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cacheKey } from '../../src/query/cache/cache-key.ts';
import type { CachedPolicy } from '../../src/query/cache/cache-policy.ts';
import { ResultCache, type CacheOptions } from '../../src/query/cache/result-cache.ts';
import { encodedResult, type EncodedResult } from '../../src/query/encoded-result.ts';


// Fake time: tests move the clock and fire the warming tick by hand, never sleeping.
class FakeTime {
  t = 1_000_000;
  intervals = new Map<number, { fn: () => void; ms: number; unrefd: boolean }>();
  cleared: number[] = [];
  private nextId = 1;
  readonly clock = { now: () => this.t };
  readonly setInterval = ((fn: () => void, ms: number) => {
    const id = this.nextId++;
    const rec = { fn, ms, unrefd: false };
    this.intervals.set(id, rec);
    return { id, unref: () => { rec.unrefd = true; } };
  }) as unknown as typeof setInterval;
  readonly clearInterval = ((handle: { id: number }) => {
    this.cleared.push(handle.id);
    this.intervals.delete(handle.id);
  }) as unknown as typeof clearInterval;

  /** Advance the clock, then fire every live interval once (as a tick at that moment would). */
  async tick(ms: number): Promise<void> {
    this.t += ms;
    for (const { fn } of this.intervals.values()) fn();
    await flush();
  }
}

/** Let settled promises' continuations run. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function result(body: string): EncodedResult {
  return { ...encodedResult(Buffer.from(body), 1, false, 1), etag: `"${body}"` };
}

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

/** A load that counts calls and answers "<name>#<n>". */
function counter(name: string): { load: () => Promise<EncodedResult>; calls: () => number } {
  let n = 0;
  return { load: async () => result(`${name}#${++n}`), calls: () => n };
}

function setup(opts: Partial<CacheOptions> = {}): { cache: ResultCache; time: FakeTime } {
  const time = new FakeTime();
  const cache = new ResultCache({
    maxEntries: 100, maxBytes: 1_000_000,
    clock: time.clock, setInterval: time.setInterval, clearInterval: time.clearInterval,
    ...opts,
  });
  return { cache, time };
}

const TTL: CachedPolicy = { cached: true, ttlMs: 10_000, warmIntervalMs: null };

test('miss then hit with correct age and ttl remaining', async () => {
  const { cache, time } = setup();
  const a = counter('a');
  const first = await cache.get('k', TTL, a.load);
  assert.equal(first.status, 'miss');
  assert.equal(first.ageMs, 0);
  assert.equal(first.ttlRemainingMs, 10_000);
  time.t += 300;
  const second = await cache.get('k', TTL, a.load);
  assert.equal(second.status, 'hit');
  assert.equal(second.ageMs, 300);
  assert.equal(second.ttlRemainingMs, 9_700);
  assert.equal(second.result.body.toString(), 'a#1');
  assert.equal(a.calls(), 1);
  const s = cache.stats();
  assert.deepEqual([s.hits, s.misses, s.entries, s.bytes], [1, 1, 1, 'a#1'.length + 'k'.length]);
});

test('cacheKey: declared params in declared order; sql and redact split keys', () => {
  const base = { queryId: 'q1', declaredOrder: ['project', 'from'] as const, sql: null, redact: false };
  const k1 = cacheKey({ ...base, params: { project: 'p', from: 'x' } });
  const k2 = cacheKey({ ...base, params: { from: 'x', project: 'p' } });
  assert.equal(k1, k2, 'object key order is irrelevant');
  assert.equal(cacheKey({ ...base, params: { from: 'x', project: 'p', junk: '1' } }), k1, 'unknown params ignored');
  assert.equal(cacheKey({ ...base, params: { project: 'p' } }), cacheKey({ ...base, params: { project: 'p', from: null } }), 'absent = null');
  assert.notEqual(cacheKey({ ...base, params: { project: 'x', from: 'p' } }), k1, 'values stay bound to their names');
  assert.notEqual(cacheKey({ ...base, params: { project: 'p', from: 'x' }, redact: true }), k1);
  assert.notEqual(cacheKey({ ...base, params: { project: 'p', from: 'x' }, sql: 'select 1' }), k1);
  assert.notEqual(cacheKey({ ...base, params: { project: 'p', from: 'x' }, sql: '' }), cacheKey({ ...base, params: { project: 'p', from: 'x' } }));
  assert.notEqual(cacheKey({ ...base, queryId: 'q2', params: { project: 'p', from: 'x' } }), k1);
  // Separators inside values cannot forge another layout.
  assert.notEqual(cacheKey({ ...base, params: { project: 'a","b', from: null } }), cacheKey({ ...base, params: { project: 'a', from: 'b' } }));
  // Prototype members never leak in as values.
  assert.equal(cacheKey({ ...base, declaredOrder: ['constructor'], params: {} }), cacheKey({ ...base, declaredOrder: ['constructor'], params: { constructor: null } }));
});

test('50 concurrent misses run load once; 49 callers are coalesced', async () => {
  const { cache } = setup();
  const d = deferred<EncodedResult>();
  let calls = 0;
  const load = () => { calls++; return d.promise; };
  const pending = Array.from({ length: 50 }, () => cache.get('k', TTL, load));
  d.resolve(result('shared'));
  const answers = await Promise.all(pending);
  assert.equal(calls, 1);
  assert.equal(answers.filter((a) => a.status === 'miss').length, 1);
  assert.equal(answers.filter((a) => a.status === 'coalesced').length, 49);
  assert.ok(answers.every((a) => a.result.body.toString() === 'shared'));
  const s = cache.stats();
  assert.deepEqual([s.misses, s.coalesced], [1, 49]);
});

test('an entry is never served at or past its ttl', async () => {
  const { cache, time } = setup();
  const a = counter('a');
  await cache.get('k', TTL, a.load);
  time.t += 9_999;
  assert.equal((await cache.get('k', TTL, a.load)).status, 'hit');
  time.t += 1; // exactly ttl old
  const expired = await cache.get('k', TTL, a.load);
  assert.equal(expired.status, 'miss');
  assert.equal(expired.result.body.toString(), 'a#2');
  assert.equal(a.calls(), 2);
  assert.equal(cache.stats().entries, 1);
});

test('errors are never cached: all waiters reject, next call loads again', async () => {
  const { cache } = setup();
  let calls = 0;
  const d = deferred<EncodedResult>();
  const failing = () => { calls++; return d.promise; };
  const p1 = cache.get('k', TTL, failing);
  const p2 = cache.get('k', TTL, failing);
  d.reject(new Error('boom'));
  await assert.rejects(p1, /boom/);
  await assert.rejects(p2, /boom/);
  assert.equal(calls, 1);
  assert.equal(cache.stats().entries, 0);
  // A synchronous throw is an error like any other.
  await assert.rejects(cache.get('k', TTL, () => { throw new Error('sync'); }), /sync/);
  assert.equal(cache.stats().entries, 0);
  const ok = await cache.get('k', TTL, async () => result('ok'));
  assert.equal(ok.status, 'miss');
  assert.equal(ok.result.body.toString(), 'ok');
  assert.equal(cache.stats().misses, 3);
});

test('warming refreshes a recently requested key and drops an idle one', async () => {
  const { cache, time } = setup();
  const warm: CachedPolicy = { cached: true, ttlMs: 1_000, warmIntervalMs: 600 };
  const a = counter('a');
  const b = counter('b');
  cache.startWarming();
  const t0 = time.t;
  await cache.get('A', warm, a.load);
  await cache.get('B', warm, b.load);

  await time.tick(500); // not yet due
  assert.deepEqual([a.calls(), b.calls()], [1, 1]);
  await time.tick(100); // t0+600: both due and both requested within ttl
  assert.deepEqual([a.calls(), b.calls()], [2, 2]);
  assert.equal(cache.stats().refreshes, 2);

  time.t += 300; // t0+900: only A is requested again
  const hitA = await cache.get('A', warm, a.load);
  assert.equal(hitA.status, 'hit');
  assert.equal(hitA.ageMs, 300, 'createdAt moved to the refresh');
  assert.equal(hitA.result.body.toString(), 'a#2');

  await time.tick(100); // t0+1000: B not requested for ttl -> dropped, not refreshed
  assert.equal(b.calls(), 2);
  assert.equal(cache.stats().entries, 1);

  await time.tick(200); // t0+1200: A due again
  assert.equal(a.calls(), 3);
  const fresh = await cache.get('A', warm, a.load);
  assert.equal(fresh.status, 'hit');
  assert.equal(fresh.ageMs, 0);
  assert.equal(fresh.result.body.toString(), 'a#3');
  assert.equal(time.t, t0 + 1200);

  const missB = await cache.get('B', warm, b.load);
  assert.equal(missB.status, 'miss');
  assert.equal(b.calls(), 3);
  cache.stop();
});

test('callers never wait for a refresh; an expired entry joins the running refresh', async () => {
  const { cache, time } = setup();
  const warm: CachedPolicy = { cached: true, ttlMs: 1_000, warmIntervalMs: 500 };
  const slow = deferred<EncodedResult>();
  let calls = 0;
  const load = () => (++calls === 1 ? Promise.resolve(result('old')) : slow.promise);
  cache.startWarming();
  await cache.get('k', warm, load);

  await time.tick(500);
  assert.equal(calls, 2, 'refresh started');
  const during = await cache.get('k', warm, load);
  assert.equal(during.status, 'hit');
  assert.equal(during.result.body.toString(), 'old');
  assert.equal(during.ageMs, 500);

  time.t += 500; // old entry now expired while the refresh is still running
  const joined = cache.get('k', warm, load);
  await flush();
  assert.equal(calls, 2, 'no second load while the refresh runs');
  slow.resolve(result('new'));
  const answer = await joined;
  assert.equal(answer.status, 'coalesced');
  assert.equal(answer.result.body.toString(), 'new');
  assert.equal(answer.ageMs, 500, 'age counts from when the refresh started');
  assert.equal((await cache.get('k', warm, load)).status, 'hit');
  cache.stop();
});

test('a failed refresh keeps the old entry until its ttl, is retried on the warming schedule, then the next call loads', async () => {
  const errors: [string, unknown][] = [];
  const { cache, time } = setup({ onRefreshError: (key, err) => errors.push([key, err]) });
  const warm: CachedPolicy = { cached: true, ttlMs: 1_000, warmIntervalMs: 400 };
  let calls = 0;
  const load = async () => {
    calls++;
    if (calls === 2 || calls === 3) throw new Error('db down');
    return result(`v${calls}`);
  };
  cache.startWarming();
  await cache.get('k', warm, load);
  await time.tick(400);
  assert.equal(calls, 2);
  assert.equal(cache.stats().refreshFailures, 1);
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.[0], 'k');
  assert.match(String(errors[0]?.[1]), /db down/);

  await time.tick(200); // t0+600: no hot retry loop, no retry before another warm interval
  assert.equal(calls, 2);
  const stillOld = await cache.get('k', warm, load);
  assert.equal(stillOld.status, 'hit');
  assert.equal(stillOld.result.body.toString(), 'v1');

  await time.tick(200); // t0+800: retried once, fails again
  assert.equal(calls, 3);
  assert.equal(cache.stats().refreshFailures, 2);

  time.t += 199;
  const lastOld = await cache.get('k', warm, load);
  assert.equal(lastOld.status, 'hit');
  assert.equal(lastOld.result.body.toString(), 'v1');
  assert.equal(lastOld.ageMs, 999);

  time.t += 1;
  const reloaded = await cache.get('k', warm, load);
  assert.equal(reloaded.status, 'miss');
  assert.equal(reloaded.result.body.toString(), 'v4');
  cache.stop();
});

test('eviction by count is least-recently-used first', async () => {
  const { cache } = setup({ maxEntries: 2 });
  const load = (s: string) => async () => result(s);
  await cache.get('A', TTL, load('a'));
  await cache.get('B', TTL, load('b'));
  assert.equal((await cache.get('A', TTL, load('a'))).status, 'hit'); // A now most recent
  await cache.get('C', TTL, load('c'));
  assert.equal(cache.stats().evictions, 1);
  assert.equal((await cache.get('A', TTL, load('a'))).status, 'hit');
  assert.equal((await cache.get('C', TTL, load('c'))).status, 'hit');
  assert.equal((await cache.get('B', TTL, load('b'))).status, 'miss');
  assert.equal(cache.stats().entries, 2);
});

test('LRU order stays exact when the newest entry is hit again and again, and after the newest one goes', async () => {
  // result-cache.ts skips the reorder when the hit entry is already last: a stale idea of "last" would evict the wrong key.
  const { cache, time } = setup({ maxEntries: 3 });
  const load = (s: string) => async () => result(s);
  const status = async (k: string) => (await cache.get(k, TTL, load(k))).status;
  assert.deepEqual([await status('A'), await status('B'), await status('C')], ['miss', 'miss', 'miss']);
  assert.deepEqual([await status('C'), await status('C'), await status('A'), await status('A')], ['hit', 'hit', 'hit', 'hit']); // order B, C, A
  await status('D'); // evicts B
  assert.deepEqual([await status('C'), await status('A'), await status('D')], ['hit', 'hit', 'hit']); // order C, A, D
  assert.equal(await status('B'), 'miss'); // evicts C
  assert.equal(await status('C'), 'miss'); // evicts A
  assert.equal(await status('A'), 'miss'); // evicts D
  assert.deepEqual([await status('B'), await status('C'), await status('A')], ['hit', 'hit', 'hit']);
  // The newest entry expires and is dropped: the next hit on another key must still move it last.
  time.t += TTL.ttlMs;
  assert.equal(await status('A'), 'miss'); // A (newest) expired; reloaded, newest again
  time.t += 1;
  cache.clear();
  assert.deepEqual([await status('X'), await status('Y'), await status('X'), await status('Z'), await status('W')], ['miss', 'miss', 'hit', 'miss', 'miss']); // W evicts Y
  assert.deepEqual([await status('X'), await status('Z'), await status('W'), await status('Y')], ['hit', 'hit', 'hit', 'miss']);
  assert.equal(cache.stats().entries, 3);
});

test('eviction by bytes is LRU; an oversized result is served but not stored', async () => {
  const { cache } = setup({ maxBytes: 25, maxEntryBytes: 25 });
  const ten = (c: string) => async () => result(c.repeat(10)); // 10 + 1-char key = 11 bytes
  await cache.get('A', TTL, ten('a'));
  await cache.get('B', TTL, ten('b'));
  assert.equal(cache.stats().bytes, 22);
  await cache.get('A', TTL, ten('a')); // touch A
  await cache.get('C', TTL, ten('c')); // 33 > 25: B goes
  assert.deepEqual([cache.stats().bytes, cache.stats().evictions], [22, 1]);
  assert.equal((await cache.get('B', TTL, ten('b'))).status, 'miss'); // evicts A (LRU after C)
  assert.equal((await cache.get('C', TTL, ten('c'))).status, 'hit');

  const big = await cache.get('X', TTL, async () => result('x'.repeat(30)));
  assert.equal(big.status, 'miss');
  assert.equal(big.result.body.length, 30);
  assert.equal(cache.stats().entries, 2);
  assert.equal(cache.stats().bytes, 22);
  assert.equal((await cache.get('X', TTL, async () => result('x'.repeat(30)))).status, 'miss');
});

test('refreshes never overlap per key and are capped cache-wide', async () => {
  const { cache, time } = setup({ maxConcurrentRefreshes: 2 });
  const warm: CachedPolicy = { cached: true, ttlMs: 100_000, warmIntervalMs: 1_000 };
  const running = new Map<string, number>();
  const pendingRefreshes: { key: string; d: ReturnType<typeof deferred<EncodedResult>> }[] = [];
  let maxTotal = 0;
  let maxPerKey = 0;
  const loadFor = (key: string) => {
    let first = true;
    return () => {
      if (first) { first = false; return Promise.resolve(result(key)); }
      running.set(key, (running.get(key) ?? 0) + 1);
      const total = [...running.values()].reduce((x, y) => x + y, 0);
      maxTotal = Math.max(maxTotal, total);
      maxPerKey = Math.max(maxPerKey, ...running.values());
      const d = deferred<EncodedResult>();
      pendingRefreshes.push({ key, d });
      return d.promise.finally(() => running.set(key, (running.get(key) ?? 1) - 1));
    };
  };
  const keys = ['k1', 'k2', 'k3', 'k4', 'k5'];
  const loads = new Map(keys.map((k) => [k, loadFor(k)]));
  cache.startWarming();
  for (const [i, k] of keys.entries()) {
    await cache.get(k, warm, loads.get(k)!);
    time.t += 10 * (i + 1); // created at different times
  }
  await time.tick(1_000); // all five due
  assert.equal(pendingRefreshes.length, 2, 'only two started');
  assert.deepEqual(pendingRefreshes.map((p) => p.key), ['k1', 'k2'], 'oldest first');
  await time.tick(1_000);
  await time.tick(1_000);
  assert.equal(pendingRefreshes.length, 2, 'ticks do not exceed the cap or re-run a running key');

  pendingRefreshes[0]!.d.resolve(result('k1-new'));
  await flush();
  assert.equal(pendingRefreshes.length, 3, 'a finished refresh frees a slot at once');
  assert.equal(pendingRefreshes[2]!.key, 'k3');
  while (pendingRefreshes.some((p) => running.get(p.key))) {
    for (const p of pendingRefreshes) p.d.resolve(result(`${p.key}-new`));
    await flush();
  }
  assert.equal(maxTotal, 2);
  assert.equal(maxPerKey, 1);
  cache.stop();
});

test('startWarming is idempotent and unrefs; stop() clears the timer and halts refreshes', async () => {
  const { cache, time } = setup({ tickMs: 250 });
  cache.startWarming();
  cache.startWarming();
  assert.equal(time.intervals.size, 1);
  const [id, rec] = [...time.intervals.entries()][0]!;
  assert.equal(rec.ms, 250);
  assert.equal(rec.unrefd, true);

  const warm: CachedPolicy = { cached: true, ttlMs: 10_000, warmIntervalMs: 100 };
  const a = counter('a');
  await cache.get('k', warm, a.load);
  cache.stop();
  assert.deepEqual(time.cleared, [id]);
  assert.equal(time.intervals.size, 0);
  await time.tick(5_000); // nothing left to fire
  assert.equal(a.calls(), 1);
  cache.stop(); // harmless twice
});

test('real timers: a warming cache that is never stopped does not keep the process alive', () => {
  // A child process that starts warming with the real setInterval and then has nothing else to do:
  // it exits on its own only if the timer is unref'd (a ref'd 1 s interval would run until killed).
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e',
    `import { ResultCache } from ${JSON.stringify(new URL('../../src/query/cache/result-cache.ts', import.meta.url).href)}; new ResultCache({ maxEntries: 10, maxBytes: 1024 }).startWarming(); console.log('started');`],
  { encoding: 'utf8', timeout: 20_000 });
  assert.equal(child.error, undefined, 'the child exited by itself');
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout.trim(), 'started');
});

test('clear() empties the cache and in-flight loads do not repopulate it', async () => {
  const { cache } = setup();
  await cache.get('A', TTL, async () => result('a'));
  const d = deferred<EncodedResult>();
  const pending = cache.get('B', TTL, () => d.promise);
  cache.clear();
  assert.deepEqual([cache.stats().entries, cache.stats().bytes], [0, 0]);
  d.resolve(result('b'));
  assert.equal((await pending).result.body.toString(), 'b');
  assert.equal(cache.stats().entries, 0);
  assert.equal((await cache.get('A', TTL, async () => result('a2'))).status, 'miss');
});

test('expired, unrequested entries are swept on the tick, freeing bytes', async () => {
  const { cache, time } = setup();
  cache.startWarming();
  await cache.get('k', TTL, async () => result('v'));
  assert.equal(cache.stats().entries, 1);
  await time.tick(10_000);
  assert.deepEqual([cache.stats().entries, cache.stats().bytes], [0, 0]);
  cache.stop();
});

test('a throwing onRefreshError is contained', async () => {
  const { cache, time } = setup({ onRefreshError: () => { throw new Error('reporter broke'); } });
  const warm: CachedPolicy = { cached: true, ttlMs: 1_000, warmIntervalMs: 100 };
  let calls = 0;
  await cache.get('k', warm, async () => {
    if (++calls > 1) throw new Error('db down');
    return result('v1');
  });
  cache.startWarming();
  await time.tick(100);
  assert.equal(calls, 2);
  assert.equal(cache.stats().refreshFailures, 1);
  assert.equal((await cache.get('k', warm, async () => result('x'))).result.body.toString(), 'v1');
  cache.stop();
});

test('one caller cannot flush the cache: an answer over maxBytes / 8 is served but never stored', async () => {
  const { cache } = setup({ maxBytes: 8_000 }); // entries up to 1,000 bytes
  for (const k of ['k1', 'k2', 'k3']) await cache.get(k, TTL, async () => result('v'.repeat(100)));
  for (const k of ['huge1', 'huge2']) {
    const big = await cache.get(k, TTL, async () => result('x'.repeat(5_000)));
    assert.equal(big.result.body.length, 5_000, 'the caller still gets its answer');
  }
  assert.deepEqual([cache.stats().entries, cache.stats().evictions], [3, 0]);
  for (const k of ['k1', 'k2', 'k3']) assert.equal((await cache.get(k, TTL, async () => result('new'))).status, 'hit');
  assert.equal((await cache.get('big-enough', TTL, async () => result('y'.repeat(990)))).status, 'miss');
  assert.equal(cache.stats().entries, 4, 'an answer under the cap is stored');
});
