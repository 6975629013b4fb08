import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { createDrain } from '../../src/http/drain.ts';
import { assertOnlyControlPromotes } from '../support/promotion.ts';

/** A response as the drain sees it: whether its head has gone, and the headers set on it. */
function fakeResponse(headersSent = false): ServerResponse & { set: Record<string, string> } {
  const set: Record<string, string> = {};
  return { headersSent, set, setHeader: (name: string, value: string) => void (set[name] = value) } as unknown as ServerResponse & { set: Record<string, string> };
}

test('drain: counts what is in flight; a release counts once, and a stale slot releases nothing', () => {
  const drain = createDrain();
  const [a, b, c] = [fakeResponse(), fakeResponse(), fakeResponse()];
  const slotA = drain.track(a);
  const slotB = drain.track(b);
  assert.notEqual(slotA, slotB);
  assert.equal(drain.inFlight, 2);
  drain.release(slotA, a);
  drain.release(slotA, a);
  assert.equal(drain.inFlight, 1);
  // A's slot is reused for C: A released again, or B named with C's slot, change nothing.
  const slotC = drain.track(c);
  assert.equal(slotC, slotA);
  drain.release(slotC, a);
  drain.release(slotC, b);
  assert.equal(drain.inFlight, 2);
  drain.release(slotC, c);
  drain.release(slotB, b);
  assert.equal(drain.inFlight, 0);
});

test('drain: in-flight responses not yet begun, and every later one, get Connection: close; resolves when the last is released', async () => {
  const drain = createDrain();
  const begun = fakeResponse(true);
  const waiting = fakeResponse();
  const slots = [drain.track(begun), drain.track(waiting)];
  const drained = drain.drain(5_000);
  assert.equal(drain.draining, true);
  assert.deepEqual([begun.set, waiting.set], [{}, { Connection: 'close' }]);
  const late = fakeResponse();
  const lateSlot = drain.track(late);
  assert.deepEqual(late.set, { Connection: 'close' });
  drain.release(slots[0]!, begun);
  drain.release(slots[1]!, waiting);
  drain.release(lateSlot, late);
  assert.equal(await drained, true);
  assert.equal(await createDrain().drain(10), true, 'nothing in flight: drained at once');
});

test('drain: gives up after its timeout while something is still in flight', async () => {
  const drain = createDrain();
  drain.track(fakeResponse());
  // The drain's own timer does not hold the process open (unref'd): this one does, meanwhile.
  const alive = setTimeout(() => {}, 1_000);
  assert.equal(await drain.drain(20), false);
  clearTimeout(alive);
});

// Regression: the drain kept in-flight responses in a Set. A Set that gains and loses an entry per
// request is rebuilt every few dozen requests, and V8 leaves each superseded table pointing at its
// successor and at the entries it held; once one table was old, every request survived two
// scavenges and was promoted (a third of fresh processes under wrk, 16-19 µs of user CPU per cached
// call against 10-12; README, "Performance"). The Set run is the control: it shows the measure
// sees the state the drain must not fall into.
test('drain: request churn promotes nothing to the old generation (a Set in its place promotes every request)', () => {
  assertOnlyControlPromotes(new URL('../support/drain-churn.ts', import.meta.url), 'set', 50_000, 'drain');
});
