/** with-clause.ts: a stored ClickHouse statement's WITH clause, split and pruned to what is read. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitClickHouseWith, withOnlyWhatIsRead } from '../../src/sql/clickhouse/with-clause.ts';

const STATEMENT = `-- a comment with ( and , in it
with
  (select now64(6, 'UTC')) as anchor,
a as (select 1 as x, ')' as p /* ) , */ from t),
b as (select x from a where x > 0),
\`c d\` as (select 'b, c' as s),
unread as (select 2 as x)
select x, anchor from b`;

test('aliases, CTEs by name (quoted too) and the final SELECT; parentheses, commas and quotes inside literals and comments do not split', () => {
  const w = splitClickHouseWith(STATEMENT);
  assert.deepEqual(w.aliases, ["(select now64(6, 'UTC')) as anchor"]);
  assert.deepEqual(w.ctes.map((c) => c.name), ['a', 'b', 'c d', 'unread']);
  assert.equal(w.ctes[0]!.text, "a as (select 1 as x, ')' as p /* ) , */ from t)");
  assert.equal(w.final, 'select x, anchor from b');
});

test('only the CTEs the final SELECT reads, directly or through another kept CTE', () => {
  const sql = withOnlyWhatIsRead(splitClickHouseWith(STATEMENT));
  assert.equal(sql, "with\n(select now64(6, 'UTC')) as anchor,\na as (select 1 as x, ')' as p /* ) , */ from t),\nb as (select x from a where x > 0)\nselect x, anchor from b");
});

test('a statement without WITH is all final SELECT; a WITH without a final SELECT is refused', () => {
  assert.deepEqual(splitClickHouseWith('select 1'), { aliases: [], ctes: [], final: 'select 1' });
  assert.throws(() => splitClickHouseWith('with a as (select 1)'), /no final SELECT/);
  assert.throws(() => splitClickHouseWith("with a as (select 'x) select 1"), /unterminated literal/);
});
