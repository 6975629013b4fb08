/** optional-filters.ts: `(@p is null or …)` folded per call shape, only where the result is certain. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { foldableParams, foldOptional } from '../../src/sql/clickhouse/optional-filters.ts';

// [label, statement, folded with @p absent, folded with @p given]; a statement left as written has the same text in both.
const CASES: readonly (readonly [label: string, sql: string, absent: string, given: string])[] = [
  ['a conjunct between two', 'where a = 1 and (@p is null or b > @p) and c', 'where a = 1 and c', 'where a = 1 and ( b > @p) and c'],
  ['the last conjunct before ORDER BY', 'where a and (@p is null or b > @p)\norder by x', 'where a\norder by x', 'where a and ( b > @p)\norder by x'],
  ['the last conjunct in parentheses', 'where (a and (@p is null or b > @p))', 'where (a)', 'where (a and ( b > @p))'],
  ['the first conjunct', 'where (@p is null or b > @p) and a', 'where a', 'where ( b > @p) and a'],
  ['the only condition', 'where (@p is null or b > @p)', 'where true', 'where ( b > @p)'],
  ['a disjunct', 'where a or (@p is null or b) or c', 'where a or true or c', 'where a or ( b) or c'],
  ['an operand of a comparison', 'where a and (@p is null or b) = 1', 'where a and true = 1', 'where a and ( b) = 1'],
  ['BETWEEN\'s and', 'where x between 1 and (@p is null or b)', 'where x between 1 and true', 'where x between 1 and ( b)'],
  ['BETWEEN\'s and, a conjunction after', 'where x between 1 and (@p is null or b) and c', 'where x between 1 and true and c', 'where x between 1 and ( b) and c'],
  ['a conjunct after OR', 'where a or (@p is null or b) and c', 'where a or c', 'where a or ( b) and c'],
  ['a condition with its own OR and AND', 'where a and (@p is null or b > @p and c or d)', 'where a', 'where a and ( b > @p and c or d)'],
  ['a lambda inside a call', 'where a and (@p is null or arrayExists(x -> x > @p, xs))', 'where a', 'where a and ( arrayExists(x -> x > @p, xs))'],
];

const LEFT_AS_WRITTEN: readonly (readonly [label: string, sql: string])[] = [
  ['a function\'s arguments', 'where f(@p is null or b)'],
  ['a ternary, looser than OR', 'where a and (@p is null or b ? 1 : 0)'],
  ['an alias inside', 'select (@p is null or b as c)'],
  ['a lambda at the top', 'where a and (@p is null or x -> x)'],
  ['after an operator', 'where x = (@p is null or b) and c'],
  ['IS NOT NULL', 'where a and (@p is not null or b)'],
  ['@ apart from the name', 'where a and (@ p is null or b)'],
  ['nested groups', 'where a and (@p is null or (@q is null or b))'],
  ['in a literal and a comment', "select '(@p is null or b)' as s -- and (@p is null or c)\nfrom t /* and (@p is null or d) */"],
];

test('a group folds away with its conjunction\'s `and` when absent, to its condition when given; elsewhere to true', () => {
  for (const [label, sql, absent, given] of CASES) {
    assert.equal(foldOptional(sql, new Set(['p'])), absent, `${label}, absent`);
    assert.equal(foldOptional(sql, new Set()), given, `${label}, given`);
    assert.deepEqual(foldableParams(sql), ['p'], label);
  }
});

test('where folding could change the meaning, the statement is left as written', () => {
  for (const [label, sql] of LEFT_AS_WRITTEN) {
    assert.equal(foldOptional(sql, new Set(['p', 'q'])), sql, `${label}, absent`);
    assert.equal(foldOptional(sql, new Set()), sql, `${label}, given`);
    assert.deepEqual(foldableParams(sql), [], label);
  }
});

test('each parameter folds on its own, every group of it', () => {
  const sql = 'where k = @k and (@a is null or t > @a) and (@b is null or t <= @b) and (@a is null or u > @a)';
  assert.deepEqual(foldableParams(sql), ['a', 'b']);
  assert.equal(foldOptional(sql, new Set(['a', 'b'])), 'where k = @k');
  assert.equal(foldOptional(sql, new Set(['a'])), 'where k = @k and ( t <= @b)');
  assert.equal(foldOptional(sql, new Set(['b'])), 'where k = @k and ( t > @a) and ( u > @a)');
  assert.equal(foldOptional(sql, new Set()), 'where k = @k and ( t > @a) and ( t <= @b) and ( u > @a)');
  // Two groups that share an `and`: both gone, the rest as written.
  const leading = 'where (@a is null or t > @a) and (@b is null or t <= @b) and c';
  assert.equal(foldOptional(leading, new Set(['a', 'b'])), 'where c');
  assert.equal(foldOptional(leading, new Set(['a'])), 'where ( t <= @b) and c');
  assert.equal(foldOptional(leading, new Set(['b'])), 'where ( t > @a) and c');
  const middle = 'where x and (@a is null or t > @a) and (@b is null or t <= @b) and c';
  assert.equal(foldOptional(middle, new Set(['a', 'b'])), 'where x and c');
  const last = 'where (@a is null or t > @a) and (@b is null or t <= @b) order by t';
  assert.equal(foldOptional(last, new Set(['a', 'b'])), 'where true order by t');
  assert.equal(foldOptional(last, new Set(['b'])), 'where ( t > @a) order by t');
});
