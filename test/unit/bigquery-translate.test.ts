import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { HttpError } from '../../src/shared/errors.ts';
import { prePass } from '../../src/sql/bigquery/bigquery-lexer.ts';
import { translateBigQuery } from '../../src/sql/bigquery/translate.ts';
import { loadSqlParser, type SqlParser } from '../../src/sql/sandbox/sql-parser.ts';
import { REFUSED_TRANSLATIONS, TRANSLATED } from '../support/bigquery-cases.ts';

const TABLES = ['edge_logs', 'postgres_logs', 'function_edge_logs', 'function_logs', 'auth_logs', 'realtime_logs', 'storage_logs', 'postgrest_logs', 'pgbouncer_logs'];

const POSITIONS = new Set(['location', 'rexpr_list_start', 'rexpr_list_end', 'list_start', 'list_end']);

/** A statement's parse tree without positions: equal trees, equal meaning, whatever the layout. */
function tree(parser: SqlParser, sql: string): unknown {
  return JSON.parse(JSON.stringify(parser.parse(sql)[0]!.stmt), (key, value) => (POSITIONS.has(key) ? undefined : value));
}

describe('BigQuery translation table', () => {
  let parser: SqlParser;
  before(async () => {
    parser = await loadSqlParser();
  });

  test('the table has at least 100 cases', () => {
    assert.ok(TRANSLATED.length + REFUSED_TRANSLATIONS.length >= 100, String(TRANSLATED.length + REFUSED_TRANSLATIONS.length));
  });

  for (const [bigquery, postgresql] of TRANSLATED) {
    test(`translates: ${bigquery.slice(0, 110)}`, () => {
      const out = translateBigQuery(parser, bigquery, TABLES);
      assert.deepEqual(tree(parser, out), tree(parser, postgresql), `got: ${out}`);
    });
  }

  for (const [bigquery, message] of REFUSED_TRANSLATIONS) {
    test(`refuses: ${bigquery.slice(0, 110) || '(empty)'}`, () => {
      assert.throws(
        () => translateBigQuery(parser, bigquery, TABLES),
        (err: unknown) => err instanceof HttpError && err.code === 'invalid_sql' && message.test(err.message) || assert.fail(String(err)),
      );
    });
  }

  test('the pre-pass maps every written character back to the character it came from', () => {
    const sql = 'select `a`, from t # c\nwhere x = "q"';
    const { text, origin } = prePass(sql);
    assert.equal(text, `select "a" from t where x = 'q'`);
    assert.equal(origin.length, text.length);
    assert.equal(sql[origin[text.indexOf('where')]!], 'w');
    assert.equal(sql[origin[text.indexOf("'q'")]!], '"');
  });

  test('a string never gets the escape-string prefix of the word before it', () => {
    // e'…' in BigQuery is a word and a string; glued together PostgreSQL would read an E'…' escape string.
    assert.equal(prePass("select e'\\\\x41'").text, "select e '\\x41'");
  });
});
