import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bindSql, firstParam, scanSql, SqlTokenizeError } from '../../src/sql/binding/sql-bind.ts';

type Case =
  | { name: string; input: string; sql: string; names: string[] }
  | { name: string; input: string; throws: RegExp };

// A long stored query: many params, comments and literals that hold look-alikes.
const longInput = Array.from({ length: 400 }, (_, k) => `(@p${k % 40} /* @c${k} */ || 'x@y${k}' || $q$@z$q$) -- @l${k}\n`).join(' + ');
const longSql = Array.from({ length: 400 }, (_, k) => `($${(k % 40) + 1} /* @c${k} */ || 'x@y${k}' || $q$@z$q$) -- @l${k}\n`).join(' + ');
const longNames = Array.from({ length: 40 }, (_, k) => `p${k}`);

const CASES: Case[] = [
  // plain code
  { name: 'plain params', input: 'SELECT * FROM logs WHERE ts >= @from AND ts < @to', sql: 'SELECT * FROM logs WHERE ts >= $1 AND ts < $2', names: ['from', 'to'] },
  { name: 'repeated names reuse $n', input: '@a + @b + @a - @b', sql: '$1 + $2 + $1 - $2', names: ['a', 'b'] },
  { name: 'names are case-sensitive', input: '@Day, @day', sql: '$1, $2', names: ['Day', 'day'] },
  { name: 'cast after param', input: 'ts >= @from::timestamptz', sql: 'ts >= $1::timestamptz', names: ['from'] },
  { name: 'adjacent to parens and commas', input: 'f(@a,@b)', sql: 'f($1,$2)', names: ['a', 'b'] },
  { name: 'at end of text', input: 'SELECT @x', sql: 'SELECT $1', names: ['x'] },
  { name: 'whole text is a param', input: '@_x1', sql: '$1', names: ['_x1'] },
  { name: 'newline and tab around', input: 'a =\n\t@x\n', sql: 'a =\n\t$1\n', names: ['x'] },
  { name: 'ten+ params get multi-digit numbers', input: '@a,@b,@c,@d,@e,@f,@g,@h,@i,@j,@k', sql: '$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11', names: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'] },
  { name: 'x::text untouched', input: 'SELECT x::text', sql: 'SELECT x::text', names: [] },
  { name: 'identifier before @ is not an operator', input: 'a@b', sql: 'a$1', names: ['b'] },

  // single-quoted strings
  { name: "'' doubling inside string", input: "SELECT 'it''s @x', @y", sql: "SELECT 'it''s @x', $1", names: ['y'] },
  { name: "'@x' inside string", input: "a = '@x' AND b = @x", sql: "a = '@x' AND b = $1", names: ['x'] },
  { name: 'standard string: backslash is not an escape', input: String.raw`'a\' || @p`, sql: String.raw`'a\' || $1`, names: ['p'] },
  { name: 'email-like text in string', input: "WHERE email = 'user@example.com' AND id = @id", sql: "WHERE email = 'user@example.com' AND id = $1", names: ['id'] },
  { name: "U&'' string keeps '' rules", input: String.raw`U&'d\0061t@x\' || @p`, sql: String.raw`U&'d\0061t@x\' || $1`, names: ['p'] },
  { name: 'empty string then param', input: "''@x", sql: "''$1", names: ['x'] },

  // E'' strings
  { name: "E'' with backslash-escaped quote", input: String.raw`E'it\'s @x', @y`, sql: String.raw`E'it\'s @x', $1`, names: ['y'] },
  { name: "lowercase e''", input: String.raw`e'\'@x' || @y`, sql: String.raw`e'\'@x' || $1`, names: ['y'] },
  { name: "E'\\\\' then param", input: String.raw`E'\\' || @p`, sql: String.raw`E'\\' || $1`, names: ['p'] },
  { name: "E'' with '' doubling", input: "E'a''b @x' || @y", sql: "E'a''b @x' || $1", names: ['y'] },
  { name: "E'\\\\\\'' (escaped backslash then escaped quote)", input: String.raw`E'\\\'@x' || @y`, sql: String.raw`E'\\\'@x' || $1`, names: ['y'] },
  { name: 'E ending an identifier is not an E-string', input: String.raw`typE'\' || @p`, sql: String.raw`typE'\' || $1`, names: ['p'] },

  // quoted identifiers
  { name: 'quoted identifier with @', input: 'SELECT "quoted @ident", @x', sql: 'SELECT "quoted @ident", $1', names: ['x'] },
  { name: 'quoted identifier with "" doubling', input: '"a""b@c" = @d', sql: '"a""b@c" = $1', names: ['d'] },
  { name: 'email-like quoted identifier', input: 'SELECT "user@example.com" FROM t', sql: 'SELECT "user@example.com" FROM t', names: [] },

  // dollar quotes
  { name: '$$ quote', input: '$$ @x $$ || @y', sql: '$$ @x $$ || $1', names: ['y'] },
  { name: '$tag$ quote', input: '$tag$ @x $tag$ @y', sql: '$tag$ @x $tag$ $1', names: ['y'] },
  { name: '$tag$ holding $other$ and $$', input: '$tag$ $other$ @x $$ @y $other$ $tag$ || @z', sql: '$tag$ $other$ @x $$ @y $other$ $tag$ || $1', names: ['z'] },
  { name: 'longer tag does not close a shorter one', input: '$a$ x $ab$a$ @y', sql: '$a$ x $ab$a$ $1', names: ['y'] },
  { name: 'tag with digits after the first char', input: '$_a1$ @x $_a1$ @y', sql: '$_a1$ @x $_a1$ $1', names: ['y'] },
  { name: 'tags are case-sensitive', input: '$T$ @x $t$ @y $T$ @z', sql: '$T$ @x $t$ @y $T$ $1', names: ['z'] },
  { name: '$ inside an identifier is not a quote or param', input: 'col$1 = @v AND a$$b = 1', sql: 'col$1 = $1 AND a$$b = 1', names: ['v'] },
  { name: 'number then $$ opens a quote', input: '5$$ @x $$ @y', sql: '5$$ @x $$ $1', names: ['y'] },

  // comments
  { name: 'nested block comments', input: '/* /* @x */ @y */ @z', sql: '/* /* @x */ @y */ $1', names: ['z'] },
  { name: 'line comment then newline', input: '-- @x\n@y', sql: '-- @x\n$1', names: ['y'] },
  { name: 'line comment ended by CR', input: '-- @x\r@y', sql: '-- @x\r$1', names: ['y'] },
  { name: 'line comment to end of text', input: 'SELECT 1 -- @x', sql: 'SELECT 1 -- @x', names: [] },
  { name: 'comment end is not an operator', input: '/* a */@x', sql: '/* a */$1', names: ['x'] },
  { name: '/**/ and /*/ edge forms', input: '/**/@a /*/ @x */ @b', sql: '/**/$1 /*/ @x */ $2', names: ['a', 'b'] },
  { name: 'quote inside comment is ignored', input: "/* it's */ @a -- don't\n@b", sql: "/* it's */ $1 -- don't\n$2", names: ['a', 'b'] },

  // operators
  { name: '@> untouched', input: "tags @> '{a}'", sql: "tags @> '{a}'", names: [] },
  { name: '<@ untouched', input: "'{a}' <@ tags", sql: "'{a}' <@ tags", names: [] },
  { name: '<@ directly before identifier untouched', input: 'a <@b', sql: 'a <@b', names: [] },
  { name: '@@ untouched', input: 'tsv @@ q', sql: 'tsv @@ q', names: [] },
  { name: '@@ directly before identifier untouched', input: 'tsv @@q', sql: 'tsv @@q', names: [] },
  { name: '@-@ untouched', input: 'SELECT @-@ lseg', sql: 'SELECT @-@ lseg', names: [] },
  { name: '@ 5 absolute value', input: 'SELECT @ 5', sql: 'SELECT @ 5', names: [] },
  { name: '@> then param', input: 'a @> @b', sql: 'a @> $1', names: ['b'] },
  { name: '@@ then param', input: 'v @@ @q', sql: 'v @@ $1', names: ['q'] },
  { name: '=@x is an operator', input: 'a =@x', sql: 'a =@x', names: [] },
  { name: '@1 is not a name', input: 'SELECT @1', sql: 'SELECT @1', names: [] },

  // unicode
  { name: 'unicode in strings and identifiers', input: "SELECT 'héllo @wörld ✓ 😀', \"naïve@x\", ünï, @p", sql: "SELECT 'héllo @wörld ✓ 😀', \"naïve@x\", ünï, $1", names: ['p'] },
  { name: 'param running into non-ASCII throws', input: 'SELECT @näme', throws: /parameter name @n .*offset 7/ },
  { name: 'param running into $ throws', input: 'SELECT @a$b', throws: /parameter name @a .*offset 7/ },

  // positional params
  { name: 'pre-existing $1 in code throws', input: 'WHERE a = $1 AND b = @b', throws: /positional parameter \$1 .*offset 10/ },
  { name: '$12 in code names the number', input: 'SELECT $12', throws: /positional parameter \$12 .*offset 7/ },
  { name: 'digit-first dollar tag is a positional param', input: '$1tag$ x $1tag$', throws: /positional parameter \$1 .*offset 0/ },
  { name: '$1 inside string/comment/quote is fine', input: "'$1' || \"$2\" /* $3 */ -- $4\n|| $q$ $5 $q$ || @x", sql: "'$1' || \"$2\" /* $3 */ -- $4\n|| $q$ $5 $q$ || $1", names: ['x'] },
  { name: 'lone $ is plain code', input: 'SELECT $ @x', sql: 'SELECT $ $1', names: ['x'] },

  // unterminated
  { name: "unterminated '", input: "SELECT 'abc", throws: /unterminated string literal at offset 7/ },
  { name: "unterminated ' after doubled quote", input: "SELECT 'it''", throws: /unterminated string literal at offset 7/ },
  { name: "unterminated E'", input: String.raw`SELECT E'abc\'`, throws: /unterminated escape string literal .*offset 7/ },
  { name: "unterminated E' ending in backslash", input: "E'\\", throws: /unterminated escape string literal .*offset 0/ },
  { name: 'unterminated "', input: 'SELECT "abc""', throws: /unterminated quoted identifier at offset 7/ },
  { name: 'unterminated $tag$', input: 'SELECT $tag$ abc $TAG$', throws: /unterminated dollar-quoted string \$tag\$ at offset 7/ },
  { name: 'unterminated $$', input: '$$ abc $', throws: /unterminated dollar-quoted string \$\$ at offset 0/ },
  { name: 'unterminated /*', input: 'SELECT 1 /* abc', throws: /unterminated block comment at offset 9/ },
  { name: 'unterminated nested /*', input: 'SELECT 1 /* a /* b */ c', throws: /unterminated block comment at offset 9/ },

  { name: 'long query', input: longInput, sql: longSql, names: longNames },
];

for (const c of CASES) {
  test(`bindSql: ${c.name}`, () => {
    if ('throws' in c) {
      assert.throws(() => bindSql(c.input), (err: unknown) => {
        assert.ok(err instanceof SqlTokenizeError, 'SqlTokenizeError');
        assert.match(err.message, c.throws);
        return true;
      });
      // The caller-SQL detector never throws: text it cannot read is left to the parser.
      assert.doesNotThrow(() => firstParam(c.input));
    } else {
      const bound = bindSql(c.input);
      assert.equal(bound.sql, c.sql);
      assert.deepEqual(bound.names, c.names);
      // firstParam (the caller-SQL detector) finds the same first name the binder numbers $1.
      assert.equal(firstParam(c.input)?.name, c.names[0]);
    }
  });
}

test('SqlTokenizeError carries the offset', () => {
  try {
    bindSql("SELECT 'x");
    assert.fail('expected a throw');
  } catch (err) {
    assert.ok(err instanceof SqlTokenizeError);
    assert.equal(err.position, 7);
    assert.equal(err.name, 'SqlTokenizeError');
  }
});

test('scanSql reports offsets of each @name', () => {
  const seen: [string, number, number][] = [];
  scanSql("'@a' @b + @b", (p) => seen.push([p.name, p.start, p.end]));
  assert.deepEqual(seen, [
    ['b', 5, 7],
    ['b', 10, 12],
  ]);
});

test('large input scans in linear time', () => {
  // Worst cases for a backtracking scanner: long runs of operator chars, quotes and comment openers.
  const big = '@@'.repeat(200_000) + " '" + "''".repeat(200_000) + "' " + '/*'.repeat(50_000) + '*/'.repeat(50_000) + ' @z';
  const started = performance.now();
  assert.deepEqual(bindSql(big).names, ['z']);
  assert.ok(performance.now() - started < 2000, 'took too long');
});
