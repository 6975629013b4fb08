import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedMemo } from '../../src/shared/bounded-memo.ts';
import { LruMap } from '../../src/shared/lru-map.ts';
import { assertOnlyControlPromotes } from '../support/promotion.ts';

test('BoundedMemo: past maxEntries the least recently used goes; a get counts as a use', () => {
  const memo = new BoundedMemo<number>(2, 10);
  memo.set('a', 1);
  memo.set('b', 2);
  assert.equal(memo.get('a'), 1);
  assert.equal(memo.set('c', 3), 3);
  assert.equal(memo.size, 2);
  assert.deepEqual([memo.get('a'), memo.get('b'), memo.get('c')], [1, undefined, 3]);
});

test('BoundedMemo: a key longer than maxKeyChars is never held, and set still returns the value', () => {
  const memo = new BoundedMemo<string>(4, 3);
  assert.equal(memo.set('abcd', 'x'), 'x');
  assert.equal(memo.get('abcd'), undefined);
  memo.set('abc', 'y');
  assert.equal(memo.get('abc'), 'y');
  assert.equal(memo.size, 1);
});

test('BoundedMemo: using the most recent key again keeps the order right', () => {
  const memo = new BoundedMemo<number>(2, 10);
  memo.set('a', 1);
  memo.set('b', 2);
  memo.get('b');
  memo.get('b');
  memo.get('a'); // a is the most recent now, b the least
  memo.get('a');
  memo.set('c', 3); // evicts b
  assert.deepEqual([memo.get('a'), memo.get('b'), memo.get('c')], [1, undefined, 3]);
});

test('LruMap: the least recent key follows uses (the key used last again included); set keeps an existing key\'s place; delete and clear forget', () => {
  /** Empty `m` least recent first: the order a full memo or cache evicts in. */
  const evictionOrder = (m: LruMap<string, number>): string[] => {
    const out: string[] = [];
    for (let k = m.leastRecent(); k !== undefined; k = m.leastRecent()) {
      out.push(k);
      m.delete(k);
    }
    return out;
  };
  const abc = () => {
    const m = new LruMap<string, number>();
    m.set('a', 1);
    m.set('b', 2);
    m.set('c', 3);
    m.use('a');
    m.use('a');
    return m;
  };
  assert.deepEqual(evictionOrder(abc()), ['b', 'c', 'a']);
  const inPlace = abc();
  inPlace.set('b', 20); // in place
  assert.equal(inPlace.get('b'), 20);
  assert.deepEqual(evictionOrder(inPlace), ['b', 'c', 'a']);
  const deleted = abc();
  deleted.delete('a');
  deleted.use('b');
  assert.deepEqual(evictionOrder(deleted), ['c', 'b']);
  const added = abc();
  added.delete('a');
  added.use('b');
  added.set('a', 1); // a new key is the most recent
  added.use('b');
  assert.deepEqual(evictionOrder(added), ['c', 'a', 'b']);
  const cleared = abc();
  cleared.clear();
  assert.equal(cleared.leastRecent(), undefined);
  cleared.set('x', 1);
  cleared.set('y', 2);
  cleared.use('x');
  assert.deepEqual(evictionOrder(cleared), ['y', 'x']);
});

// Regression: LruMap kept its Map in use order, a delete and an insert per use. With two or more hot
// keys in turn that rebuilt the table every few dozen uses, and the superseded tables, pointing at
// their successors, took each use's key string into the old generation (shared/lru-map.ts). The control is
// that mechanism on a plain Map: it shows the measure sees the state the memo must not fall into.
test('BoundedMemo: hits on eight hot keys in turn promote nothing to the old generation (a Map reordered per use does)', () => {
  assertOnlyControlPromotes(new URL('../support/memo-churn.ts', import.meta.url), 'reinsert', 10_000, 'memo');
});
