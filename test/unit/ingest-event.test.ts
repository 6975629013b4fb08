import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventMicros, microsText } from '../../src/ingest/event-timestamp.ts';
import { cleanObject, depthWithin, normaliseKey, storable } from '../../src/ingest/logflare-body.ts';
import { eventIds, eventRow } from '../../src/ingest/event-row.ts';
import { tableOf } from '../../src/ingest/sources.ts';

const TIMESTAMPS: [unknown, string | null][] = [
  ['2026-11-26T06:10:11.123456789Z', '2026-11-26T06:10:11.123456Z'],
  ['2026-11-26T06:10:11Z', '2026-11-26T06:10:11.000000Z'],
  ['2026-11-26t06:10:11.5z', '2026-11-26T06:10:11.500000Z'],
  ['2026-11-26T07:40:11.000001+01:30', '2026-11-26T06:10:11.000001Z'],
  ['2026-11-26T00:10:11-06:00', '2026-11-26T06:10:11.000000Z'],
  ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000000Z'],
  [1764137411123456789, '2025-11-26T06:10:11.123457Z'],
  [1764137411123456, '2025-11-26T06:10:11.123456Z'],
  [1764137411123, '2025-11-26T06:10:11.123000Z'],
  [1764137411, '2025-11-26T06:10:11.000000Z'],
  [1764137411.6, '2025-11-26T06:10:12.000000Z'],
  // Without an offset, unparseable, or what ::timestamptz alone would take: the caller's "now".
  ['2026-11-26T06:10:11', null],
  ['2026-11-26', null],
  ['now', null],
  ['epoch', null],
  ['infinity', null],
  ['2026-02-29T00:00:00Z', null],
  ['2026-11-26T24:00:00Z', null],
  ['2026-11-26T06:10:11+24:00', null],
  [null, null],
  [true, null],
  [{}, null],
  [Number.NaN, null],
  [1e300, null],
];
for (const [input, expected] of TIMESTAMPS) {
  test(`event timestamp ${JSON.stringify(input)} → ${expected}`, () => {
    const micros = eventMicros(input);
    assert.equal(micros === null ? null : microsText(micros), expected);
  });
}

const KEYS: [string, string][] = [
  ['plain_key', 'plain_key'],
  ['x-forwarded-for', '_x_forwarded_for'],
  ['content-length', '_content_length'],
  ['1st', '_1st'],
  ['_TABLE_x', '__TABLE_x'],
  ['_PARTITION_y', '__PARTITION_y'],
  ['a.b', '_a_b'],
  ['a b', '_a_b'],
  ['héllo', '_h__llo'],
  ['9-lives', '_9_lives'],
  ['k'.repeat(130), `_${'k'.repeat(128)}`],
];
for (const [key, expected] of KEYS) {
  test(`Logflare key normalisation: ${JSON.stringify(key.slice(0, 20))} → ${JSON.stringify(expected.slice(0, 20))}`, () => assert.equal(normaliseKey(key), expected));
}

test('cleaning drops null, "", {} and [] at every depth, and containers left empty; keeps 0, false and spaces', () => {
  assert.deepEqual(cleanObject({ a: null, b: '', c: {}, d: [], e: { f: { g: null } }, h: [null, '', {}, [], 1], i: 0, j: false, k: ' ', l: [{ m: null }] }), { h: [1], i: 0, j: false, k: ' ' });
  assert.equal(cleanObject({ a: null }), undefined);
});

test('storable strings: NUL and lone surrogates become U+FFFD, pairs stay', () => {
  assert.equal(storable('a\u0000b'), 'a\uFFFDb');
  assert.equal(storable('\ud800x\udc00'), '\uFFFDx\uFFFD');
  assert.equal(storable('😀'), '😀');
});

test('depth is measured without recursion, so a million levels is answered, not a stack overflow', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 1_000_000; i++) deep = [deep];
  assert.equal(depthWithin(deep, 64), false);
  assert.equal(depthWithin({ a: { b: [1] } }, 3), true);
  assert.equal(depthWithin({ a: { b: [1] } }, 2), false);
});

test('an event row: id kept or made, message from message ?? event_message, other top-level keys dropped', () => {
  const now = 1_764_137_411_000_000;
  const made = () => eventIds('edge_logs:digest')(7);
  const a = eventRow({ id: 'keep-me', message: 'm', event_message: 'e', project: 'p', appname: 'x', severity: 'err', metadata: { 'x-y': 1 } }, now, made);
  assert.ok('row' in a);
  assert.deepEqual(a.row, { id: 'keep-me', timestamp: '2025-11-26T06:10:11.000000Z', event_message: 'm', project: 'p', metadata: { _x_y: 1 } });
  const b = eventRow({ id: '', event_message: { nested: true }, project: 5, metadata: null }, now, made);
  assert.ok('row' in b);
  assert.match(b.row.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(b.row.id, made());
  assert.deepEqual([b.row.event_message, b.row.project, b.row.metadata], ['{"nested":true}', null, {}]);
  const c = eventRow({ id: 'x'.repeat(257), event_message: false }, now, made);
  assert.ok('row' in c && c.row.id !== 'x'.repeat(257) && c.row.event_message === 'false');
  assert.deepEqual(eventRow({ metadata: 'text' }, now, made), { rejected: 'metadata must be a JSON object, got string' });
  assert.deepEqual(eventRow('event', now, made), { rejected: 'an event must be a JSON object' });
});

test('regression: ingest made up random ids, so a resent body sharded differently on a ClickHouse cluster and one shard kept a duplicate: ids are the body digest and the position', () => {
  assert.equal(eventIds('edge_logs:abc')(0), eventIds('edge_logs:abc')(0));
  const idAt = eventIds('edge_logs:abc');
  const ids = new Set(Array.from({ length: 100_000 }, (_, i) => idAt(i)));
  assert.equal(ids.size, 100_000, 'two positions never share an id');
  for (const id of [idAt(0), idAt(99_999)]) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(eventIds('edge_logs:abc')(0), eventIds('edge_logs:abd')(0));
  assert.notEqual(eventIds('edge_logs:abc')(0), eventIds('auth_logs:abc')(0));
});

test('source names are exact and case-sensitive; table names are accepted too', () => {
  assert.equal(tableOf('postgREST.logs.prod'), 'postgrest_logs');
  assert.equal(tableOf('postgrest.logs.prod'), undefined);
  assert.equal(tableOf('edge_logs'), 'edge_logs');
  assert.equal(tableOf('deno-relay-logs'), 'function_edge_logs');
  assert.equal(tableOf('deno-subhosting-events'), 'function_logs');
});
