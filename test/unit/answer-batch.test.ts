import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { test } from 'node:test';
import { AnswerBatch } from '../../src/http/answer-batch.ts';
import type { RequestContext } from '../../src/http/request-context.ts';
import type { QueryAnswer } from '../../src/query/run-query.ts';

const ctx = (name: string) => ({ name, pendingAnswer: undefined }) as unknown as RequestContext & { name: string };
const answer = (n: number) => ({ ageMs: n }) as unknown as QueryAnswer;

test('answer batch: answers deferred in one turn are delivered together after it, in order, each with its answer', async () => {
  const delivered: string[][] = [];
  let current: string[] | null = null;
  const batch = new AnswerBatch((c) => {
    current ??= [];
    current.push(`${(c as RequestContext & { name: string }).name}:${c.pendingAnswer!.ageMs}`);
  });
  const flushed = () => {
    if (current) delivered.push(current);
    current = null;
  };
  for (const [i, name] of ['a', 'b', 'c'].entries()) batch.defer(ctx(name), answer(i));
  assert.equal(current, null, 'nothing is written before the turn ends');
  await nextTurn();
  flushed();
  assert.deepEqual(delivered, [['a:0', 'b:1', 'c:2']]);
  await nextTurn();
  flushed();
  assert.deepEqual(delivered, [['a:0', 'b:1', 'c:2']], 'an empty turn delivers nothing');
});

test('answer batch: an answer deferred while a batch is delivered goes out in a later turn, not lost', async () => {
  const order: string[] = [];
  const batch: AnswerBatch = new AnswerBatch((c) => {
    const { name } = c as RequestContext & { name: string };
    order.push(name);
    if (name === 'first') batch.defer(ctx('during'), answer(9));
  });
  batch.defer(ctx('first'), answer(1));
  batch.defer(ctx('second'), answer(2));
  await nextTurn();
  assert.deepEqual(order, ['first', 'second']);
  await nextTurn();
  await nextTurn();
  assert.deepEqual(order, ['first', 'second', 'during']);
});
