import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoundedMemo } from '../../src/bounded-memo.ts';
import { LruMap } from '../../src/lru-map.ts';

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

test('LruMap: use moves a key last, the key already last stays; set keeps an existing key in place; delete and clear forget the last key', () => {
  const m = new LruMap<string, number>();
  m.set('a', 1);
  m.set('b', 2);
  m.set('c', 3);
  m.use('a', 1);
  m.use('a', 1);
  assert.deepEqual([...m.keys()], ['b', 'c', 'a']);
  m.set('b', 20); // in place
  assert.deepEqual([...m], [['b', 20], ['c', 3], ['a', 1]]);
  m.delete('a'); // the last key goes: the next use of any key must move it
  m.use('b', 20);
  assert.deepEqual([...m.keys()], ['c', 'b']);
  m.set('a', 1); // a new key goes last
  m.use('b', 20);
  assert.deepEqual([...m.keys()], ['c', 'a', 'b']);
  m.clear();
  m.set('x', 1);
  m.set('y', 2);
  m.use('x', 1);
  assert.deepEqual([...m.keys()], ['y', 'x']);
});
