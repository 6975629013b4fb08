import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestIds } from '../../src/http/request-ids.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('request ids are version 4 UUIDs, all distinct across random refills', () => {
  const ids = new RequestIds();
  const seen = new Set<string>();
  // 256 per refill: three refills and a part.
  for (let i = 0; i < 1000; i++) {
    const id = ids.next();
    assert.match(id, UUID_V4);
    seen.add(id);
  }
  assert.equal(seen.size, 1000);
});

test('request ids use the whole alphabet: every hex digit shows up in every free position', () => {
  const ids = new RequestIds();
  const perPosition = Array.from({ length: 36 }, () => new Set<string>());
  for (let i = 0; i < 2000; i++) [...ids.next()].forEach((c, j) => perPosition[j]!.add(c));
  for (const [j, chars] of perPosition.entries()) {
    if ([8, 13, 18, 23].includes(j)) assert.deepEqual([...chars], ['-']);
    else if (j === 14) assert.deepEqual([...chars], ['4']);
    else if (j === 19) assert.deepEqual([...chars].sort(), ['8', '9', 'a', 'b']);
    else assert.equal(chars.size, 16, `position ${j}`);
  }
});

test('two generators do not repeat each other', () => {
  const a = new RequestIds();
  const b = new RequestIds();
  assert.notEqual(a.next(), b.next());
});

test('for(): a fit X-Request-Id is kept, anything else (missing, repeated, too long, other characters) gets a fresh UUID', () => {
  const ids = new RequestIds();
  const table: { incoming: string | string[] | undefined; kept: boolean }[] = [
    { incoming: 'abc-123_x.y:z', kept: true },
    { incoming: 'a'.repeat(128), kept: true },
    { incoming: undefined, kept: false },
    { incoming: '', kept: false },
    { incoming: 'a'.repeat(129), kept: false },
    { incoming: ['a', 'b'], kept: false },
    { incoming: 'has space', kept: false },
    { incoming: 'quote"d', kept: false },
    { incoming: 'back\\slash', kept: false },
    { incoming: 'new\nline', kept: false },
    { incoming: 'é', kept: false },
  ];
  for (const c of table) {
    const id = ids.for(c.incoming);
    if (c.kept) assert.equal(id, c.incoming);
    else assert.match(id, UUID_V4, JSON.stringify(c.incoming));
  }
});
