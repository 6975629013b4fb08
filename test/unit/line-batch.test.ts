import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as turnEnd } from 'node:timers/promises';
import { LineBatch, type LineSink } from '../../src/process/line-batch.ts';
import { HOSTILE_STRINGS } from '../support/hostile-strings.ts';

/** A sink that records each write; `keeps` makes it hold on to the bytes, as a stream with a full pipe does. */
function recorder(keeps = false): LineSink & { chunks: Uint8Array[]; text(): string } {
  const chunks: Uint8Array[] = [];
  return {
    chunks,
    // Without `keeps`, a copy: the bytes are the OS's once write returns, and the batch may reuse its buffer.
    write: (chunk: Uint8Array) => chunks.push(keeps ? chunk : Buffer.from(chunk)),
    get writableLength() {
      return keeps ? chunks.reduce((n, c) => n + c.length, 0) : 0;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}

test('a turn’s lines are written once, at the end of the turn, as UTF-8 with a newline each', async () => {
  const sink = recorder();
  const batch = new LineBatch(sink, 64 * 1024);
  for (const s of HOSTILE_STRINGS) batch.add(JSON.stringify({ s }));
  batch.add('plain line');
  assert.equal(sink.chunks.length, 0, 'nothing written during the turn');
  await turnEnd();
  assert.equal(sink.chunks.length, 1);
  const lines = sink.text().split('\n');
  assert.equal(lines.pop(), '', 'ends with a newline');
  assert.deepEqual(lines, [...HOSTILE_STRINGS.map((s) => JSON.stringify({ s })), 'plain line']);
  batch.flush();
  assert.equal(sink.chunks.length, 1, 'an empty batch writes nothing');
});

test('a full batch is written before the line that would not fit; a line longer than a batch goes alone, in order', async () => {
  const sink = recorder();
  // Room for 30 bytes: "line n" takes 7 but is given room for 6 × 3 + 1 = 19, so a third one finds
  // 14 + 19 > 30 and flushes the two before it.
  const batch = new LineBatch(sink, 30);
  const long = 'é'.repeat(40);
  const sent = ['line 1', 'line 2', 'line 3', 'line 4', long, 'line 5'];
  for (const line of sent) batch.add(line);
  await turnEnd();
  assert.deepEqual(
    sink.chunks.map((c) => Buffer.from(c).toString('utf8')),
    ['line 1\nline 2\n', 'line 3\nline 4\n', `${long}\n`, 'line 5\n'],
  );
});

test('bytes a stream still holds are never written over: the next lines go into a new buffer', async () => {
  const sink = recorder(true);
  const batch = new LineBatch(sink, 1024);
  batch.add('first turn');
  await turnEnd();
  batch.add('second turn, longer than the first');
  await turnEnd();
  assert.deepEqual(sink.chunks.map((c) => Buffer.from(c).toString('utf8')), ['first turn\n', 'second turn, longer than the first\n']);
});
