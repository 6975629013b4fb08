/**
 * Regression: an uncached answer must not outlive its call. With `pg`'s promise form of
 * `client.query`, or its `query_timeout` timer, every `logs.all` answer stayed reachable from
 * promoted garbage, so the next scavenge copied it and the one after promoted it: ~700 KB promoted
 * per scavenge and 1.0–1.4 ms pauses at concurrency 1, where a few KB is what a call that lets go
 * of its answer leaves (README, Performance). The engine runs in a child process under
 * `--trace-gc-nvp`, which prints each scavenge's promoted bytes; V8 gives no other way to see them.
 *
 * The same happened again, in some service processes only, after a stretch of 32 concurrent calls
 * (the bench's c=32 row): answers in flight then survive scavenges, V8's allocation-site
 * pretenuring starts allocating some of the answer's objects in the old generation, and every later
 * answer hangs from them (~700 KB promoted per scavenge in 5 of 5 loops; 600 against 1,000+ µs of
 * CPU per call in the service). `npm start` runs node with `--no-allocation-site-pretenuring`;
 * the child runs with npm start's own flags, so removing it fails the second test.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generateDemoLogs, insertDemoLogs } from '../src/store/demo/demo-data.ts';
import { npmStartFlags } from '../scripts/lib/npm-start.ts';
import { pgFactory, SCHEMA, type TestStore } from './support/engines.ts';

const LOOP = fileURLToPath(new URL('./support/engine-gc-loop.ts', import.meta.url));
const DURATION_MS = 3_000;
/** Shorter than the measured phase, so the last half of the scavenges are all in the measured one. */
const CONCURRENT_MS = 1_500;
/** A tenth of one answer: what stays when nothing but the call in flight survives a scavenge. */
const MAX_PROMOTED_PER_SCAVENGE = 10_000;

describe('uncached answers on PostgreSQL and the young generation', () => {
  let store: TestStore;
  before(async () => {
    store = await pgFactory.open();
    // Enough rows that logs.all answers its full 100 rows (~100 KB), as in the benchmark.
    await insertDemoLogs(store.admin, SCHEMA, generateDemoLogs({ rows: 2_000 }));
  });
  after(async () => {
    await store?.teardown();
  });

  /** Run the loop under npm start's node flags: the median bytes promoted per scavenge of its one-at-a-time phase stay small. */
  async function assertNotPromoted(concurrentMs: number): Promise<void> {
    const start = npmStartFlags();
    const child = spawn(process.execPath, [...start.nodeArgs, '--trace-gc-nvp', '--import', 'tsx', LOOP], {
      env: { ...process.env, ...start.env, DATABASE_URL: store.url!, PROJECT: 'default', DURATION_MS: String(DURATION_MS), CONCURRENT_MS: String(concurrentMs) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
    const loop = /LOOP calls=(\d+) bytes_per_call=(\d+)/.exec(out);
    assert.ok(loop, 'the loop did not report');
    assert.ok(Number(loop[2]) > 50_000, `answers of ${loop[2]} bytes are too small to tell`);
    // Scavenges (gc=s) after the start-up's and the concurrent phase's: the last half of them.
    const promoted = [...out.matchAll(/gc=s .*?promoted=(\d+)/g)].map((m) => Number(m[1]));
    assert.ok(promoted.length >= 10, `only ${promoted.length} scavenges in ${loop[1]} calls`);
    const steady = promoted.slice(Math.floor(promoted.length / 2)).sort((a, b) => a - b);
    const median = steady[Math.floor(steady.length / 2)]!;
    assert.ok(median <= MAX_PROMOTED_PER_SCAVENGE, `median ${median} bytes promoted per scavenge over ${loop[1]} calls (${steady.join(', ')})`);
  }

  test('an uncached logs.all answer is not promoted out of the young generation', { timeout: 60_000 }, async () => {
    await assertNotPromoted(0);
  });

  test('nor after a stretch of 32 concurrent calls (allocation-site pretenuring off)', { timeout: 60_000 }, async () => {
    await assertNotPromoted(CONCURRENT_MS);
  });
});
