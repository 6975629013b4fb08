/**
 * BigQuery conformance (docs/logflare-compat.md): one row per case, the BigQuery expression, the
 * answer BigQuery's documentation gives for it and where it says so. The answers are BigQuery's,
 * never this service's: a row is passed when an engine answers exactly that, or refuses the
 * construct by name before running anything (`400 invalid_sql`); `ERROR` rows are those BigQuery
 * documents as an error, which must be a 4xx here, never a value and never a 500.
 *
 * Values are written as Logflare sends them (COMPAT=logflare, docs/logflare-compat.md): TIMESTAMP
 * as integer unix microseconds, DATE as `YYYY-MM-DD`, DATETIME as `YYYY-MM-DDTHH:MM:SS[.ffffff]`,
 * FLOAT64 and INT64 as JSON numbers, ARRAY as a JSON array.
 *
 * Sources are pages of the GoogleSQL for BigQuery reference,
 * https://cloud.google.com/bigquery/docs/reference/standard-sql/<page>#<function>: the function's
 * description (its NULL and edge rules) or its examples table.
 */
export const ERROR = Symbol('a BigQuery error');
export type Expected = unknown;

export interface ConformanceCase {
  /** A BigQuery expression, selected as `v` from one row; or with `query`, a whole statement whose column `v` is compared. */
  sql: string;
  expected: Expected;
  /** `<page>#<function>` of the reference. */
  source: string;
  query?: true;
}

const S = 'string_functions';
const M = 'mathematical_functions';
const C = 'conditional_expressions';
const O = 'operators';
const V = 'conversion_functions';
const D = 'date_functions';
const T = 'timestamp_functions';
const DT = 'datetime_functions';
const J = 'json_functions';
const A = 'array_functions';
const G = 'aggregate_functions';
const H = 'hash_functions';

type Row = readonly [sql: string, expected: Expected, source: string];

const rows: Row[] = [];
const add = (source: string, cases: readonly (readonly [string, Expected])[]) => {
  for (const [sql, expected] of cases) rows.push([sql, expected, source]);
};

/**
 * "Returns NULL if any input is NULL" (the functions' descriptions): each argument in turn NULL.
 * `args` are the arguments of a call that answers a value.
 */
const nullRows = (fn: string, args: readonly string[], source: string) => {
  args.forEach((_, i) => rows.push([`${fn}(${args.map((a, j) => (j === i ? 'NULL' : a)).join(', ')})`, null, source]));
};

// ---------------------------------------------------------------- strings
add(`${S}#concat`, [
  ["CONCAT('The ', 'quick ', 'brown')", 'The quick brown'], ["CONCAT('a', '')", 'a'], ["CONCAT('', '')", ''],
  ["CONCAT('a', 'b', 'c', 'd')", 'abcd'], ["CONCAT('x')", 'x'],
]);
nullRows('CONCAT', ["'a'", "'b'"], `${S}#concat`);
nullRows('CONCAT', ["'a'", "'b'", "'c'"], `${S}#concat`);
add(`${O}#concatenation_operator`, [["'a' || 'b'", 'ab'], ["'a' || NULL", null], ["NULL || 'b'", null], ["'' || ''", '']]);
add(`${S}#length`, [["LENGTH('абвгд')", 5], ["LENGTH('')", 0], ["LENGTH('abc')", 3], ['LENGTH(NULL)', null], ["CHAR_LENGTH('абв')", 3], ["CHARACTER_LENGTH('ab')", 2]]);
add(`${S}#lower`, [["LOWER('FOO BAR')", 'foo bar'], ["LOWER('')", ''], ['LOWER(NULL)', null], ["LOWER('ÀB')", 'àb']]);
add(`${S}#upper`, [["UPPER('foo')", 'FOO'], ['UPPER(NULL)', null], ["UPPER('àb')", 'ÀB']]);
add(`${S}#substr`, [
  ["SUBSTR('apple', 2)", 'pple'], ["SUBSTR('apple', 2, 2)", 'pp'], ["SUBSTR('apple', -2)", 'le'], ["SUBSTR('apple', 1, 123)", 'apple'],
  ["SUBSTR('apple', 123)", ''], ["SUBSTR('abcdef', 0, 2)", 'ab'], ["SUBSTR('abcdef', 0)", 'abcdef'], ["SUBSTR('abcdef', -10, 2)", 'ab'],
  ["SUBSTR('abcdef', -3, 2)", 'de'], ["SUBSTR('abcdef', 2, 0)", ''], ["SUBSTR('abcdef', 2, -1)", ERROR], ["SUBSTRING('apple', 2, 2)", 'pp'],
  ["SUBSTR('', 1)", ''], ["SUBSTR('абв', 2)", 'бв'],
]);
nullRows('SUBSTR', ["'apple'", '2', '2'], `${S}#substr`);
add(`${S}#trim`, [
  ["TRIM('   apple   ')", 'apple'], ["TRIM('***apple***', '*')", 'apple'], ["TRIM('xzxapplexxy', 'xyz')", 'apple'], ["TRIM('')", ''],
  ['TRIM(NULL)', null], ["TRIM('a', NULL)", null],
]);
add(`${S}#ltrim`, [["LTRIM('   apple   ')", 'apple   '], ["LTRIM('***apple***', '*')", 'apple***'], ['LTRIM(NULL)', null]]);
add(`${S}#rtrim`, [["RTRIM('   apple   ')", '   apple'], ["RTRIM('***apple***', '*')", '***apple'], ['RTRIM(NULL)', null]]);
add(`${S}#replace`, [
  ["REPLACE('apple pie', 'pie', 'cobbler')", 'apple cobbler'], ["REPLACE('abcabc', 'b', '')", 'acac'], ["REPLACE('abc', '', 'x')", 'abc'],
  ["REPLACE('aaa', 'a', 'aa')", 'aaaaaa'],
]);
nullRows('REPLACE', ["'abc'", "'b'", "'x'"], `${S}#replace`);
add(`${S}#reverse`, [["REVERSE('abc')", 'cba'], ["REVERSE('')", ''], ['REVERSE(NULL)', null], ["REVERSE('аб')", 'ба']]);
add(`${S}#starts_with`, [["STARTS_WITH('bar', 'b')", true], ["STARTS_WITH('bar', 'a')", false], ["STARTS_WITH('bar', '')", true], ["STARTS_WITH(NULL, 'b')", null], ["STARTS_WITH('bar', NULL)", null]]);
add(`${S}#ends_with`, [["ENDS_WITH('apple', 'e')", true], ["ENDS_WITH('apple', 'a')", false], ["ENDS_WITH(NULL, 'e')", null], ["ENDS_WITH('apple', NULL)", null]]);
add(`${S}#strpos`, [["STRPOS('foo@example.com', '@')", 4], ["STRPOS('foobar', 'z')", 0], ["STRPOS(NULL, 'a')", null], ["STRPOS('a', NULL)", null]]);
add(`${S}#lpad`, [
  ["LPAD('c', 5, 'ab')", 'ababc'], ["LPAD('abc', 2)", 'ab'], ["LPAD('c', 3)", '  c'], ["LPAD('abc', 5, '')", ERROR], ["LPAD('abc', -1)", ERROR],
  ["LPAD(NULL, 3)", null], ["LPAD('a', NULL)", null],
]);
add(`${S}#rpad`, [["RPAD('c', 5, 'ab')", 'cabab'], ["RPAD('abc', 2)", 'ab'], ["RPAD('c', 3)", 'c  '], ["RPAD('abc', -1)", ERROR], ['RPAD(NULL, 3)', null]]);
add(`${S}#repeat`, [["REPEAT('abc', 3)", 'abcabcabc'], ["REPEAT('abc', 0)", ''], ["REPEAT('', 5)", ''], ["REPEAT('abc', NULL)", null], ['REPEAT(NULL, 3)', null], ["REPEAT('abc', -1)", ERROR]]);
add(`${S}#left`, [["LEFT('apple', 3)", 'app'], ["LEFT('apple', 0)", ''], ["LEFT('apple', 10)", 'apple'], ["LEFT('apple', -1)", ERROR], ['LEFT(NULL, 1)', null]]);
add(`${S}#right`, [["RIGHT('apple', 3)", 'ple'], ["RIGHT('apple', 0)", ''], ["RIGHT('apple', 10)", 'apple'], ["RIGHT('apple', -1)", ERROR], ["RIGHT('a', NULL)", null]]);
add(`${S}#initcap`, [["INITCAP('hello world')", 'Hello World'], ["INITCAP('HELLO')", 'Hello'], ['INITCAP(NULL)', null]]);
add(`${S}#ascii`, [["ASCII('abcd')", 97], ["ASCII('a')", 97], ["ASCII('')", 0], ['ASCII(NULL)', null]]);
add(`${S}#chr`, [['CHR(65)', 'A'], ['CHR(255)', 'ÿ'], ['CHR(NULL)', null]]);
add(`${S}#split`, [
  ["SPLIT('b,c,d', ',')", ['b', 'c', 'd']], ["SPLIT('b c d', ' ')", ['b', 'c', 'd']], ["SPLIT('b,c')", ['b', 'c']], ["SPLIT('', ',')", ['']],
  ["SPLIT('abc', '')", ['a', 'b', 'c']], ["SPLIT('a,,b', ',')", ['a', '', 'b']], ["SPLIT(NULL, ',')", null],
]);
add(`${S}#regexp_contains`, [
  ["REGEXP_CONTAINS('foo@example.com', r'@[a-zA-Z0-9-]+\\.[a-zA-Z0-9-.]+')", true], ["REGEXP_CONTAINS('www.example.net', r'@')", false],
  ["REGEXP_CONTAINS('abc', '')", true], ["REGEXP_CONTAINS('ABC', r'(?i)abc')", true], ["REGEXP_CONTAINS(NULL, 'a')", null], ["REGEXP_CONTAINS('a', NULL)", null],
]);
add(`${S}#regexp_extract`, [
  ["REGEXP_EXTRACT('foo@example.com', r'^[a-zA-Z0-9_.+-]+')", 'foo'], ["REGEXP_EXTRACT('foo@example.com', r'@(.+)')", 'example.com'],
  ["REGEXP_EXTRACT('abc', r'z')", null], ["REGEXP_EXTRACT(NULL, 'a')", null], ["REGEXP_EXTRACT('abc123', r'[0-9]+')", '123'],
]);
add(`${S}#regexp_extract_all`, [
  ["REGEXP_EXTRACT_ALL('Try `func(x)` or `func(y)`', '`(.+?)`')", ['func(x)', 'func(y)']], ["REGEXP_EXTRACT_ALL('a1b22c333', r'[0-9]+')", ['1', '22', '333']],
  ["REGEXP_EXTRACT_ALL('abc', r'z')", []], ["ARRAY_LENGTH(REGEXP_EXTRACT_ALL('a1b22c333', r'[0-9]+'))", 3], ["REGEXP_EXTRACT_ALL(NULL, 'a')", null],
]);
add(`${S}#regexp_replace`, [
  ["REGEXP_REPLACE('# Heading', r'^# ([a-zA-Z0-9\\s]+$)', '<h1>\\\\1</h1>')", '<h1>Heading</h1>'], ["REGEXP_REPLACE('abab', 'b', 'X')", 'aXaX'],
  ["REGEXP_REPLACE('abc', r'z', 'X')", 'abc'], ["REGEXP_REPLACE(NULL, 'a', 'b')", null], ["REGEXP_REPLACE('a', NULL, 'b')", null], ["REGEXP_REPLACE('a', 'a', NULL)", null],
]);
add(`${S}#format_string`, [
  ["FORMAT('%d', 10)", '10'], ["FORMAT('|%10d|', 11)", '|        11|'], ["FORMAT('+%010d+', 12)", '+0000000012+'], ["FORMAT('%s-%d', 'x', 5)", 'x-5'],
  ["FORMAT('%d-%s', 5, 'x')", '5-x'], ["FORMAT('%s', 'hello')", 'hello'], ["FORMAT('%%')", '%'], ["FORMAT('%i', 7)", '7'],
  ["FORMAT('%.3f', 1.5)", '1.500'], ["FORMAT('%f', 2.0)", '2.000000'], ["FORMAT('%x', 255)", 'ff'], ["FORMAT('%X', 255)", 'FF'], ["FORMAT('%o', 8)", '10'],
  ["FORMAT('%t', 'x')", 'x'],
]);
add(`${S}#to_hex`, [["TO_HEX(MD5('a'))", '0cc175b9c0f1b6a831c399e269772661'], ["TO_HEX(MD5(''))", 'd41d8cd98f00b204e9800998ecf8427e'], ['TO_HEX(MD5(NULL))', null]]);
add(`${H}#sha256`, [["TO_HEX(SHA256('a'))", 'ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb'], ['TO_HEX(SHA256(NULL))', null]]);
add(`${H}#sha1`, [["TO_HEX(SHA1('a'))", '86f7e437faa5a7fce15d1ddcb9eaeaea377667b8']]);
add(`${S}#to_base64`, [["TO_BASE64(b'abc')", 'YWJj'], ["TO_BASE64(CAST('abc' AS BYTES))", 'YWJj']]);

// ---------------------------------------------------------------- numbers
add(`${M}#abs`, [['ABS(25)', 25], ['ABS(-25)', 25], ['ABS(-1.5)', 1.5], ['ABS(0)', 0], ['ABS(NULL)', null]]);
add(`${M}#sign`, [['SIGN(25)', 1], ['SIGN(0)', 0], ['SIGN(-25)', -1], ['SIGN(-0.5)', -1], ['SIGN(NULL)', null]]);
add(`${M}#round`, [
  ['ROUND(2.0)', 2], ['ROUND(2.3)', 2], ['ROUND(2.8)', 3], ['ROUND(2.5)', 3], ['ROUND(-2.3)', -2], ['ROUND(-2.8)', -3], ['ROUND(-2.5)', -3],
  ['ROUND(0)', 0], ['ROUND(123.7, -1)', 120], ['ROUND(123.456, 2)', 123.46], ['ROUND(NULL)', null], ['ROUND(1.5, NULL)', null],
]);
add(`${M}#trunc`, [['TRUNC(2.0)', 2], ['TRUNC(2.3)', 2], ['TRUNC(2.8)', 2], ['TRUNC(2.5)', 2], ['TRUNC(-2.3)', -2], ['TRUNC(-2.8)', -2], ['TRUNC(123.456, 2)', 123.45], ['TRUNC(NULL)', null]]);
add(`${M}#ceil`, [['CEIL(2.0)', 2], ['CEIL(2.3)', 3], ['CEIL(-2.3)', -2], ['CEILING(2.8)', 3], ['CEIL(NULL)', null]]);
add(`${M}#floor`, [['FLOOR(2.0)', 2], ['FLOOR(2.3)', 2], ['FLOOR(-2.3)', -3], ['FLOOR(-2.8)', -3], ['FLOOR(NULL)', null]]);
add(`${M}#mod`, [['MOD(25, 12)', 1], ['MOD(-25, 12)', -1], ['MOD(25, -12)', 1], ['MOD(0, 5)', 0], ['MOD(25, 0)', ERROR], ['MOD(NULL, 2)', null], ['MOD(2, NULL)', null]]);
add(`${M}#div`, [['DIV(20, 4)', 5], ['DIV(12, -7)', -1], ['DIV(20, 3)', 6], ['DIV(-20, 3)', -6], ['DIV(0, 20)', 0], ['DIV(20, 0)', ERROR], ['DIV(NULL, 2)', null]]);
add(`${M}#safe_divide`, [['SAFE_DIVIDE(20, 4)', 5], ['SAFE_DIVIDE(0, 20)', 0], ['SAFE_DIVIDE(20, 0)', null], ['SAFE_DIVIDE(0, 0)', null], ['SAFE_DIVIDE(NULL, 2)', null], ['SAFE_DIVIDE(7, 2)', 3.5]]);
add(`${M}#ieee_divide`, [['IEEE_DIVIDE(20.0, 4.0)', 5], ['IEEE_DIVIDE(0.0, 25.0)', 0], ['IEEE_DIVIDE(7, 2)', 3.5], ['IEEE_DIVIDE(NULL, 2)', null]]);
add(`${M}#sqrt`, [['SQRT(25.0)', 5], ['SQRT(0)', 0], ['SQRT(2)', 1.4142135623730951], ['SQRT(-1)', ERROR], ['SQRT(NULL)', null]]);
add(`${M}#pow`, [['POW(2, 3)', 8], ['POWER(2, -1)', 0.5], ['POW(2.0, 0.5)', 1.4142135623730951], ['POW(0, 0)', 1], ['POW(0, -1)', ERROR], ['POW(-1, 0.5)', ERROR], ['POW(NULL, 2)', null]]);
add(`${M}#exp`, [['EXP(0.0)', 1], ['EXP(1)', 2.718281828459045], ['EXP(NULL)', null]]);
add(`${M}#ln`, [['LN(1.0)', 0], ['LN(EXP(2))', 2], ['LN(0)', ERROR], ['LN(-1)', ERROR], ['LN(NULL)', null]]);
add(`${M}#log`, [['LOG(100, 10)', 2], ['LOG(8, 2)', 3], ['LOG(1)', 0], ['LOG(EXP(1))', 1], ['LOG(0, 10)', ERROR], ['LOG(NULL, 10)', null]]);
add(`${M}#log10`, [['LOG10(100)', 2], ['LOG10(1)', 0], ['LOG10(0)', ERROR], ['LOG10(NULL)', null]]);
add(`${M}#greatest`, [['GREATEST(1, 2, 3)', 3], ['GREATEST(3)', 3], ["GREATEST('a', 'c', 'b')", 'c'], ['GREATEST(1, NULL, 3)', null], ['GREATEST(NULL, 1)', null], ['GREATEST(-1.5, -2)', -1.5]]);
add(`${M}#least`, [['LEAST(1, 2, 3)', 1], ["LEAST('b', 'a')", 'a'], ['LEAST(1, NULL, 3)', null], ['LEAST(NULL, 1)', null]]);
add(`${M}#cos`, [['COS(0)', 1], ['SIN(0)', 0], ['TAN(0)', 0], ['ACOS(1)', 0], ['ASIN(0)', 0], ['ATAN(0)', 0], ['ATAN2(0, 1)', 0], ['COS(NULL)', null]]);
add(`${M}#is_inf`, [['IS_INF(1.0)', false], ['IS_NAN(1.0)', false], ['IS_INF(NULL)', null]]);

// ---------------------------------------------------------------- operators
add(`${O}#arithmetic_operators`, [
  ['1 + 2', 3], ['5 - 7', -2], ['3 * 4', 12], ['7 / 2', 3.5], ['4 / 2', 2], ['-3 / 2', -1.5], ['1 / 0', ERROR], ['1 + NULL', null], ['NULL * 2', null],
  ['-(-3)', 3], ['2 + 3 * 4', 14], ['(2 + 3) * 4', 20], ['1.5 + 1', 2.5],
]);
add(`${O}#bitwise_operators`, [['5 & 3', 1], ['5 | 3', 7], ['5 ^ 3', 6], ['~5', -6], ['1 << 3', 8], ['16 >> 2', 4], ['5 & NULL', null]]);
add(`${O}#comparison_operators`, [
  ['1 < 2', true], ['2 <= 2', true], ['3 > 4', false], ['1 = 1', true], ['1 != 2', true], ['1 <> 1', false], ["'a' < 'b'", true], ['NULL = NULL', null],
  ['1 = NULL', null], ["'A' = 'a'", false],
]);
add(`${O}#is_operators`, [
  ['NULL IS NULL', true], ['1 IS NULL', false], ['1 IS NOT NULL', true], ['TRUE IS TRUE', true], ['NULL IS TRUE', false], ['FALSE IS NOT TRUE', true],
  ['NULL IS NOT FALSE', true], ['FALSE IS FALSE', true],
]);
add(`${O}#between_operator`, [['2 BETWEEN 1 AND 3', true], ['5 BETWEEN 1 AND 3', false], ['3 BETWEEN 1 AND 3', true], ['2 NOT BETWEEN 1 AND 3', false], ['NULL BETWEEN 1 AND 3', null]]);
add(`${O}#in_operators`, [['1 IN (1, 2)', true], ['3 IN (1, 2)', false], ['NULL IN (1)', null], ['1 IN (2, NULL)', null], ['1 IN (1, NULL)', true], ['3 NOT IN (1, 2)', true], ['3 NOT IN (1, NULL)', null]]);
add(`${O}#like_operator`, [
  ["'apple' LIKE 'a%'", true], ["'apple' LIKE 'A%'", false], ["'apple' LIKE '_pple'", true], ["'apple' NOT LIKE 'b%'", true], ["'a%c' LIKE 'a\\\\%c'", true],
  ["'abc' LIKE 'a\\\\%c'", false], ["NULL LIKE 'a'", null], ["'apple' LIKE '%pl%'", true],
]);
add(`${O}#logical_operators`, [
  ['TRUE AND NULL', null], ['FALSE AND NULL', false], ['TRUE OR NULL', true], ['FALSE OR NULL', null], ['NOT TRUE', false], ['NOT NULL', null],
  ['TRUE AND TRUE', true], ['FALSE OR FALSE', false],
]);

// ---------------------------------------------------------------- conditionals
add(`${C}#if`, [["IF(TRUE, 'a', 'b')", 'a'], ["IF(FALSE, 'a', 'b')", 'b'], ["IF(NULL, 'a', 'b')", 'b'], ['IF(1 < 2, 10, 20)', 10], ["IF(TRUE, NULL, 'b')", null]]);
add(`${C}#ifnull`, [['IFNULL(NULL, 0)', 0], ['IFNULL(10, 0)', 10], ['IFNULL(NULL, NULL)', null]]);
add(`${C}#nullif`, [['NULLIF(0, 0)', null], ['NULLIF(10, 0)', 10], ["NULLIF('a', 'b')", 'a'], ['NULLIF(NULL, 0)', null]]);
add(`${C}#coalesce`, [["COALESCE(NULL, 'B', 'C')", 'B'], ["COALESCE('A', 'B', 'C')", 'A'], ['COALESCE(NULL, NULL)', null], ['COALESCE(NULL, 2)', 2]]);
add(`${C}#case_expr`, [["CASE 2 WHEN 1 THEN 'a' WHEN 2 THEN 'b' ELSE 'c' END", 'b'], ["CASE 5 WHEN 1 THEN 'a' ELSE 'c' END", 'c'], ["CASE 5 WHEN 1 THEN 'a' END", null], ["CASE NULL WHEN NULL THEN 'a' ELSE 'b' END", 'b']]);
add(`${C}#case`, [["CASE WHEN 1 > 0 THEN 'pos' ELSE 'neg' END", 'pos'], ["CASE WHEN NULL THEN 'a' ELSE 'b' END", 'b'], ["CASE WHEN 1 < 0 THEN 'a' END", null]]);

// ---------------------------------------------------------------- conversion
add(`${V}#cast`, [
  ["CAST('12' AS INT64)", 12], ["CAST('-7' AS INT64)", -7], ['CAST(1.6 AS INT64)', 2], ['CAST(2.5 AS INT64)', 3], ['CAST(-2.5 AS INT64)', -3], ['CAST(-1.4 AS INT64)', -1],
  ["CAST('1.5' AS FLOAT64)", 1.5], ["CAST('1e3' AS FLOAT64)", 1000], ['CAST(3 AS FLOAT64)', 3], ['CAST(1 AS STRING)', '1'], ['CAST(-1.5 AS STRING)', '-1.5'],
  ['CAST(TRUE AS STRING)', 'true'], ["CAST('true' AS BOOL)", true], ["CAST('FALSE' AS BOOL)", false], ['CAST(1 AS BOOL)', true], ['CAST(0 AS BOOL)', false],
  ["CAST('abc' AS INT64)", ERROR], ["CAST('1.5' AS INT64)", ERROR], ["CAST('maybe' AS BOOL)", ERROR], ['CAST(NULL AS INT64)', null], ['CAST(NULL AS STRING)', null],
  ["CAST('2026-01-02' AS DATE)", '2026-01-02'], ["CAST(DATE '2026-01-02' AS STRING)", '2026-01-02'], ["CAST('2026-13-01' AS DATE)", ERROR],
  ["CAST(TIMESTAMP '2026-01-02 03:04:05+00' AS STRING)", '2026-01-02 03:04:05+00'], ["CAST('2026-01-02 03:04:05+00' AS TIMESTAMP)", 1767323045000000],
  ["CAST('0x1F' AS INT64)", 31],
]);
add(`${V}#safe_casting`, [
  ["SAFE_CAST('apple' AS INT64)", null], ["SAFE_CAST('12' AS INT64)", 12], ["SAFE_CAST('1e3' AS FLOAT64)", 1000], ["SAFE_CAST('x' AS BOOL)", null],
  ["SAFE_CAST('true' AS BOOL)", true], ['SAFE_CAST(5 AS STRING)', '5'], ["SAFE_CAST('99999999999999999999' AS INT64)", null], ['SAFE_CAST(NULL AS INT64)', null],
]);

// ---------------------------------------------------------------- dates
add(`${D}#date`, [
  ['DATE(2016, 12, 25)', '2016-12-25'], ["DATE(TIMESTAMP '2016-12-25 05:30:00+07')", '2016-12-24'], ["DATE(DATETIME '2016-12-25 23:59:59')", '2016-12-25'],
  ['DATE(NULL)', null], ["DATE '2026-11-26'", '2026-11-26'],
]);
add(`${D}#date_add`, [
  ["DATE_ADD(DATE '2008-12-25', INTERVAL 5 DAY)", '2008-12-30'], ["DATE_ADD(DATE '2026-01-31', INTERVAL 1 MONTH)", '2026-02-28'],
  ["DATE_ADD(DATE '2024-01-31', INTERVAL 1 MONTH)", '2024-02-29'], ["DATE_ADD(DATE '2026-01-01', INTERVAL 2 WEEK)", '2026-01-15'],
  ["DATE_ADD(DATE '2026-01-01', INTERVAL 1 QUARTER)", '2026-04-01'], ["DATE_ADD(DATE '2024-02-29', INTERVAL 1 YEAR)", '2025-02-28'],
  ["DATE_ADD(DATE '2026-01-01', INTERVAL -1 DAY)", '2025-12-31'], ["DATE_ADD(NULL, INTERVAL 1 DAY)", null],
]);
add(`${D}#date_sub`, [
  ["DATE_SUB(DATE '2008-12-25', INTERVAL 5 DAY)", '2008-12-20'], ["DATE_SUB(DATE '2026-03-31', INTERVAL 1 MONTH)", '2026-02-28'],
  ["DATE_SUB(DATE '2026-03-01', INTERVAL 1 DAY)", '2026-02-28'], ["DATE_SUB(DATE '2026-01-15', INTERVAL 2 WEEK)", '2026-01-01'],
]);
add(`${D}#date_diff`, [
  ["DATE_DIFF(DATE '2010-07-07', DATE '2008-12-25', DAY)", 559], ["DATE_DIFF(DATE '2017-10-15', DATE '2017-10-14', DAY)", 1],
  ["DATE_DIFF(DATE '2017-10-15', DATE '2017-10-14', WEEK)", 1], ["DATE_DIFF(DATE '2017-10-15', DATE '2017-10-14', ISOWEEK)", 0],
  ["DATE_DIFF(DATE '2017-12-30', DATE '2014-12-30', YEAR)", 3], ["DATE_DIFF(DATE '2017-12-30', DATE '2014-12-30', ISOYEAR)", 2],
  ["DATE_DIFF(DATE '2008-12-25', DATE '2010-07-07', DAY)", -559], ["DATE_DIFF(DATE '2026-02-01', DATE '2026-01-31', MONTH)", 1],
  ["DATE_DIFF(DATE '2026-04-01', DATE '2026-03-31', QUARTER)", 1], ["DATE_DIFF(DATE '2026-01-01', DATE '2025-12-31', YEAR)", 1],
  ["DATE_DIFF(NULL, DATE '2026-01-01', DAY)", null],
]);
add(`${D}#date_trunc`, [
  ["DATE_TRUNC(DATE '2008-12-25', MONTH)", '2008-12-01'], ["DATE_TRUNC(DATE '2026-11-26', MONTH)", '2026-11-01'], ["DATE_TRUNC(DATE '2026-11-26', YEAR)", '2026-01-01'],
  ["DATE_TRUNC(DATE '2026-11-26', QUARTER)", '2026-10-01'], ["DATE_TRUNC(DATE '2026-11-26', WEEK)", '2026-11-22'], ["DATE_TRUNC(DATE '2026-11-26', ISOWEEK)", '2026-11-23'],
  ["DATE_TRUNC(DATE '2026-11-26', DAY)", '2026-11-26'], ["DATE_TRUNC(DATE '2026-11-22', WEEK)", '2026-11-22'], ["DATE_TRUNC(DATE '2015-06-15', ISOYEAR)", '2014-12-29'],
  ['DATE_TRUNC(NULL, MONTH)', null],
]);
add(`${D}#last_day`, [
  ["LAST_DAY(DATE '2008-11-25', MONTH)", '2008-11-30'], ["LAST_DAY(DATE '2008-11-25')", '2008-11-30'], ["LAST_DAY(DATE '2024-02-10')", '2024-02-29'],
  ["LAST_DAY(DATE '2026-02-10')", '2026-02-28'], ["LAST_DAY(DATE '2008-11-25', YEAR)", '2008-12-31'], ["LAST_DAY(DATE '2008-11-10', WEEK)", '2008-11-15'],
  ["LAST_DAY(DATE '2008-11-10', QUARTER)", '2008-12-31'], ["LAST_DAY(DATE '2008-11-10', ISOWEEK)", '2008-11-16'], ['LAST_DAY(NULL)', null],
]);
add(`${D}#extract`, [
  ["EXTRACT(DAY FROM DATE '2013-12-25')", 25], ["EXTRACT(MONTH FROM DATE '2026-11-26')", 11], ["EXTRACT(YEAR FROM DATE '2026-11-26')", 2026],
  ["EXTRACT(DAYOFWEEK FROM DATE '2026-11-26')", 5], ["EXTRACT(DAYOFWEEK FROM DATE '2026-11-22')", 1], ["EXTRACT(DAYOFYEAR FROM DATE '2026-11-26')", 330],
  ["EXTRACT(WEEK FROM DATE '2026-11-26')", 47], ["EXTRACT(WEEK FROM DATE '2026-01-01')", 0], ["EXTRACT(WEEK FROM DATE '2026-01-04')", 1],
  ["EXTRACT(ISOWEEK FROM DATE '2026-11-26')", 48], ["EXTRACT(ISOYEAR FROM DATE '2025-12-31')", 2026], ["EXTRACT(QUARTER FROM DATE '2026-11-26')", 4],
]);
add(`${D}#format_date`, [
  ["FORMAT_DATE('%x', DATE '2008-12-25')", '12/25/08'], ["FORMAT_DATE('%b-%d-%Y', DATE '2008-12-25')", 'Dec-25-2008'], ["FORMAT_DATE('%b %Y', DATE '2008-12-25')", 'Dec 2008'],
  ["FORMAT_DATE('%Y/%m/%d', DATE '2026-11-26')", '2026/11/26'], ["FORMAT_DATE('%A', DATE '2026-11-26')", 'Thursday'], ["FORMAT_DATE('%j', DATE '2026-11-26')", '330'],
]);
add(`${D}#parse_date`, [["PARSE_DATE('%Y-%m-%d', '2026-11-26')", '2026-11-26'], ["PARSE_DATE('%Y%m%d', '20081225')", '2008-12-25'], ["PARSE_DATE('%Y-%m-%d', 'x')", ERROR], ["SAFE.PARSE_DATE('%Y-%m-%d', 'x')", null]]);
add(`${D}#unix_date`, [["UNIX_DATE(DATE '2008-12-25')", 14238], ["UNIX_DATE(DATE '1970-01-02')", 1]]);
add(`${D}#date_from_unix_date`, [['DATE_FROM_UNIX_DATE(14238)', '2008-12-25']]);

// ---------------------------------------------------------------- timestamps
const TS = "TIMESTAMP '2026-01-02 03:04:05+00'";
add(`${T}#timestamp`, [
  [TS, 1767323045000000], ["TIMESTAMP('2008-12-25 15:30:00+00')", 1230219000000000], ["TIMESTAMP('2008-12-25 15:30:00', 'America/Los_Angeles')", 1230247800000000],
  ["TIMESTAMP(DATE '2008-12-25')", 1230163200000000], ["TIMESTAMP '2026-01-02 03:04:05.123456+00'", 1767323045123456], ['TIMESTAMP(NULL)', null],
]);
add(`${T}#timestamp_add`, [
  [`TIMESTAMP_ADD(${TS}, INTERVAL 10 MINUTE)`, 1767323645000000], [`TIMESTAMP_ADD(${TS}, INTERVAL 1 DAY)`, 1767409445000000],
  [`TIMESTAMP_ADD(${TS}, INTERVAL 1 MILLISECOND)`, 1767323045001000], [`TIMESTAMP_ADD(${TS}, INTERVAL -1 SECOND)`, 1767323044000000], ['TIMESTAMP_ADD(NULL, INTERVAL 1 DAY)', null],
]);
add(`${T}#timestamp_sub`, [[`TIMESTAMP_SUB(${TS}, INTERVAL 10 MINUTE)`, 1767322445000000], [`TIMESTAMP_SUB(${TS}, INTERVAL 2 HOUR)`, 1767315845000000]]);
add(`${T}#timestamp_diff`, [
  ["TIMESTAMP_DIFF(TIMESTAMP '2010-07-07 10:20:00+00', TIMESTAMP '2008-12-25 15:30:00+00', HOUR)", 13410],
  ["TIMESTAMP_DIFF(TIMESTAMP '2018-08-14', TIMESTAMP '2018-10-14', DAY)", -61], ["TIMESTAMP_DIFF(TIMESTAMP '2018-10-14', TIMESTAMP '2018-08-14', DAY)", 61],
  ["TIMESTAMP_DIFF(TIMESTAMP '2001-02-01 01:00:00', TIMESTAMP '2001-02-01 00:00:01', HOUR)", 0],
  ["TIMESTAMP_DIFF(TIMESTAMP '2026-01-01 00:00:01', TIMESTAMP '2026-01-01 00:00:00', MILLISECOND)", 1000],
  ["TIMESTAMP_DIFF(TIMESTAMP '2026-01-01 00:00:00', TIMESTAMP '2026-01-01 00:00:01.5', SECOND)", -1], [`TIMESTAMP_DIFF(${TS}, NULL, SECOND)`, null],
]);
add(`${T}#timestamp_trunc`, [
  [`TIMESTAMP_TRUNC(${TS}, HOUR)`, 1767322800000000], [`TIMESTAMP_TRUNC(${TS}, DAY)`, 1767312000000000], [`TIMESTAMP_TRUNC(${TS}, MONTH)`, 1767225600000000],
  ["TIMESTAMP_TRUNC(TIMESTAMP '2026-11-26 10:00:00+00', WEEK)", 1795305600000000], ["TIMESTAMP_TRUNC(TIMESTAMP '2026-11-26 10:00:00+00', ISOWEEK)", 1795392000000000],
  [`TIMESTAMP_TRUNC(${TS}, MINUTE)`, 1767323040000000], [`TIMESTAMP_TRUNC(${TS}, YEAR)`, 1767225600000000], ['TIMESTAMP_TRUNC(NULL, DAY)', null],
]);
add(`${T}#unix_seconds`, [["UNIX_SECONDS(TIMESTAMP '2008-12-25 15:30:00+00')", 1230219000], ["UNIX_SECONDS(TIMESTAMP '1969-12-31 23:59:59.5+00')", -1], ['UNIX_SECONDS(NULL)', null]]);
add(`${T}#unix_millis`, [["UNIX_MILLIS(TIMESTAMP '2008-12-25 15:30:00+00')", 1230219000000], ["UNIX_MILLIS(TIMESTAMP '2026-01-02 03:04:05.1239+00')", 1767323045123]]);
add(`${T}#unix_micros`, [["UNIX_MICROS(TIMESTAMP '2008-12-25 15:30:00+00')", 1230219000000000], ["UNIX_MICROS(TIMESTAMP '2026-01-02 03:04:05.123456+00')", 1767323045123456]]);
add(`${T}#timestamp_seconds`, [['TIMESTAMP_SECONDS(1230219000)', 1230219000000000], ['TIMESTAMP_SECONDS(NULL)', null]]);
add(`${T}#timestamp_millis`, [['TIMESTAMP_MILLIS(1230219000000)', 1230219000000000]]);
add(`${T}#timestamp_micros`, [['TIMESTAMP_MICROS(1230219000000000)', 1230219000000000]]);
add(`${T}#extract`, [
  [`EXTRACT(HOUR FROM ${TS})`, 3], [`EXTRACT(MINUTE FROM ${TS})`, 4], [`EXTRACT(SECOND FROM ${TS})`, 5], [`EXTRACT(DAY FROM ${TS})`, 2],
  ["EXTRACT(MILLISECOND FROM TIMESTAMP '2026-01-02 03:04:05.123456+00')", 123], ["EXTRACT(MICROSECOND FROM TIMESTAMP '2026-01-02 03:04:05.123456+00')", 123456],
  [`EXTRACT(DATE FROM ${TS})`, '2026-01-02'], [`EXTRACT(DAYOFWEEK FROM ${TS})`, 6],
]);
add(`${T}#format_timestamp`, [
  ["FORMAT_TIMESTAMP('%c', TIMESTAMP '2050-12-25 15:30:55+00', 'UTC')", 'Sun Dec 25 15:30:55 2050'], ["FORMAT_TIMESTAMP('%b-%d-%Y', TIMESTAMP '2050-12-25 15:30:55+00')", 'Dec-25-2050'],
  ["FORMAT_TIMESTAMP('%Y-%m-%dT%H:%M:%SZ', TIMESTAMP '2050-12-25 15:30:55+00', 'UTC')", '2050-12-25T15:30:55Z'], [`FORMAT_TIMESTAMP('%H:%M', ${TS})`, '03:04'],
  [`FORMAT_TIMESTAMP('%F %T', ${TS})`, '2026-01-02 03:04:05'], ['FORMAT_TIMESTAMP(\'%Y\', NULL)', null],
]);
add(`${T}#parse_timestamp`, [
  ["PARSE_TIMESTAMP('%c', 'Thu Dec 25 07:30:00 2008')", 1230190200000000], ["PARSE_TIMESTAMP('%Y-%m-%d %H:%M:%S', '2026-01-02 03:04:05')", 1767323045000000],
  ["PARSE_TIMESTAMP('%Y-%m-%d', 'nope')", ERROR], ["SAFE.PARSE_TIMESTAMP('%Y-%m-%d', 'nope')", null],
]);
add(`${DT}#datetime`, [
  ["DATETIME(TIMESTAMP '2008-12-25 05:30:00+00')", '2008-12-25T05:30:00'], ["CAST(TIMESTAMP '2008-12-25 05:30:00.5+00' AS DATETIME)", '2008-12-25T05:30:00.500000'],
  ["DATETIME(2008, 12, 25, 5, 30, 0)", '2008-12-25T05:30:00'], ["DATETIME '2008-12-25 05:30:00'", '2008-12-25T05:30:00'],
]);
add(`${DT}#datetime_add`, [["DATETIME_ADD(DATETIME '2008-12-25 15:30:00', INTERVAL 10 MINUTE)", '2008-12-25T15:40:00'], ["DATETIME_SUB(DATETIME '2008-12-25 15:30:00', INTERVAL 1 DAY)", '2008-12-24T15:30:00']]);
add(`${DT}#datetime_diff`, [["DATETIME_DIFF(DATETIME '2010-07-07 10:20:00', DATETIME '2008-12-25 15:30:00', DAY)", 559], ["DATETIME_DIFF(DATETIME '2017-10-15 00:00:00', DATETIME '2017-10-14 00:00:00', WEEK)", 1]]);
add(`${DT}#datetime_trunc`, [["DATETIME_TRUNC(DATETIME '2008-12-25 15:30:00', DAY)", '2008-12-25T00:00:00'], ["DATETIME_TRUNC(DATETIME '2017-11-05 00:00:00', ISOYEAR)", '2017-01-02T00:00:00']]);

// ---------------------------------------------------------------- JSON over text
add(`${J}#json_value`, [
  ["JSON_VALUE('{\"name\": \"Jakob\", \"age\": \"6\"}', '$.age')", '6'], ["JSON_VALUE('{\"a\": 1}', '$.a')", '1'], ["JSON_VALUE('{\"a\": {\"b\": 1}}', '$.a')", null],
  ["JSON_VALUE('{\"a\": null}', '$.a')", null], ["JSON_VALUE('{\"a\": 1}', '$.b')", null], ["JSON_VALUE('{\"a\": true}', '$.a')", 'true'], ["JSON_VALUE('{\"a\": [1, 2]}', '$.a[1]')", '2'],
  ["JSON_VALUE('{\"a\": {\"b\": \"x\"}}', '$.a.b')", 'x'], ["JSON_VALUE(NULL, '$.a')", null],
]);
add(`${J}#json_extract_scalar`, [["JSON_EXTRACT_SCALAR('{\"name\": \"Jakob\", \"age\": \"6\"}', '$.name')", 'Jakob'], ["JSON_EXTRACT_SCALAR('{\"a\": [1]}', '$.a')", null]]);
add(`${J}#json_query`, [
  ["JSON_QUERY('{\"class\": {\"students\": [{\"name\": \"Jane\"}]}}', '$.class')", '{"students":[{"name":"Jane"}]}'], ["JSON_QUERY('{\"a\": [1, 2]}', '$.a')", '[1,2]'],
  ["JSON_QUERY('{\"a\": \"x\"}', '$.a')", '"x"'], ["JSON_QUERY('{\"a\": 1}', '$.b')", null], ["JSON_QUERY('{\"a\": {\"b\": 1}}', '$.a.b')", '1'],
]);
add(`${J}#json_extract`, [["JSON_EXTRACT('{\"a\": {\"b\": [1, 2]}}', '$.a')", '{"b":[1,2]}']]);
add(`${J}#to_json_string`, [
  ['TO_JSON_STRING(STRUCT(1 AS a))', '{"a":1}'], ['TO_JSON_STRING([1, 2])', '[1,2]'], ["TO_JSON_STRING('x')", '"x"'], ['TO_JSON_STRING(NULL)', 'null'],
  ['TO_JSON_STRING(1.5)', '1.5'], ['TO_JSON_STRING(TRUE)', 'true'], ["TO_JSON_STRING(STRUCT('a' AS x, 2 AS y))", '{"x":"a","y":2}'],
]);

// ---------------------------------------------------------------- arrays
add(`${A}#array_length`, [['ARRAY_LENGTH([1, 2, 3])', 3], ['ARRAY_LENGTH([])', 0], ["ARRAY_LENGTH(['a'])", 1], ['ARRAY_LENGTH(GENERATE_ARRAY(1, 10))', 10]]);
add(`${A}#array_literals`, [['[1, 2, 3]', [1, 2, 3]], ["['a', 'b']", ['a', 'b']], ['ARRAY<INT64>[1, 2]', [1, 2]], ['[1, 2, 3][OFFSET(0)]', 1], ['[1, 2, 3][ORDINAL(3)]', 3], ['[1, 2][SAFE_OFFSET(5)]', null], ['[1, 2][OFFSET(5)]', ERROR]]);
add(`${A}#array_to_string`, [["ARRAY_TO_STRING(['a', 'b', 'c'], ',')", 'a,b,c'], ["ARRAY_TO_STRING(['a', NULL, 'c'], ',')", 'a,c'], ["ARRAY_TO_STRING(['a', NULL, 'c'], ',', 'N')", 'a,N,c']]);
add(`${A}#array_reverse`, [['ARRAY_REVERSE([1, 2, 3])', [3, 2, 1]]]);
add(`${A}#generate_array`, [['GENERATE_ARRAY(1, 5)', [1, 2, 3, 4, 5]], ['GENERATE_ARRAY(0, 10, 3)', [0, 3, 6, 9]], ['GENERATE_ARRAY(10, 0, -3)', [10, 7, 4, 1]], ['GENERATE_ARRAY(4, 4)', [4]], ['GENERATE_ARRAY(4, 0)', []]]);
add(`${A}#array_concat`, [['ARRAY_CONCAT([1, 2], [3, 4])', [1, 2, 3, 4]]]);

// ---------------------------------------------------------------- aggregates (whole statements)
const agg = (expr: string, values: string): string => `select ${expr} as v from unnest([${values}]) as x`;
const queries: (readonly [string, Expected, string])[] = [
  [agg('COUNT(*)', '1, 2, NULL'), 3, `${G}#count`], [agg('COUNT(x)', '1, 2, NULL'), 2, `${G}#count`], [agg('COUNT(DISTINCT x)', '1, 1, 2'), 2, `${G}#count`],
  [agg('COUNTIF(x > 1)', '1, 2, 3'), 2, `${G}#countif`], [agg('COUNTIF(x > 5)', '1, 2, 3'), 0, `${G}#countif`],
  [agg('SUM(x)', '1, 2, 3'), 6, `${G}#sum`], [agg('SUM(x)', 'NULL, NULL'), null, `${G}#sum`], [agg('SUM(x)', '1.5, 2.5'), 4, `${G}#sum`],
  [agg('AVG(x)', '1, 2, 3, 4'), 2.5, `${G}#avg`], [agg('AVG(x)', '1, NULL, 3'), 2, `${G}#avg`],
  [agg('MIN(x)', '3, 1, 2'), 1, `${G}#min`], [agg('MAX(x)', '3, 1, 2'), 3, `${G}#max`], [agg('MAX(x)', "'a', 'c', 'b'"), 'c', `${G}#max`],
  [agg("STRING_AGG(x, ', ')", "'apple', 'pear', 'banana'"), 'apple, pear, banana', `${G}#string_agg`], [agg('STRING_AGG(x)', "'a', NULL, 'b'"), 'a,b', `${G}#string_agg`],
  [agg("STRING_AGG(x, ',' ORDER BY x DESC)", "'a', 'c', 'b'"), 'c,b,a', `${G}#string_agg`],
  [agg('ARRAY_AGG(x ORDER BY x)', '3, 1, 2'), [1, 2, 3], `${G}#array_agg`], [agg('ARRAY_AGG(x ORDER BY x LIMIT 2)', '3, 1, 2'), [1, 2], `${G}#array_agg`],
  [agg('ARRAY_AGG(x ORDER BY x DESC LIMIT 1)', '3, 1, 2'), [3], `${G}#array_agg`], [agg('ARRAY_LENGTH(ARRAY_AGG(x))', '1, 2, 3'), 3, `${G}#array_agg`],
  [agg('LOGICAL_AND(x)', 'TRUE, FALSE'), false, `${G}#logical_and`], [agg('LOGICAL_OR(x)', 'TRUE, FALSE'), true, `${G}#logical_or`], [agg('LOGICAL_AND(x)', 'TRUE, NULL'), true, `${G}#logical_and`],
  [agg('ANY_VALUE(x)', '7, 7'), 7, `${G}#any_value`], [agg('APPROX_COUNT_DISTINCT(x)', '1, 1, 2, 3'), 3, 'approximate_aggregate_functions#approx_count_distinct'],
  [agg('BIT_AND(x)', '12, 10'), 8, `${G}#bit_and`], [agg('BIT_OR(x)', '12, 10'), 14, `${G}#bit_or`], [agg('BIT_XOR(x)', '12, 10'), 6, `${G}#bit_xor`],
  [agg('STDDEV_POP(x)', '2, 4'), 1, 'statistical_aggregate_functions#stddev_pop'], [agg('VAR_POP(x)', '2, 4'), 1, 'statistical_aggregate_functions#var_pop'],
  [agg('VAR_SAMP(x)', '2, 4'), 2, 'statistical_aggregate_functions#var_samp'],
];

export const CONFORMANCE: readonly ConformanceCase[] = Object.freeze([
  ...rows.map(([sql, expected, source]) => ({ sql, expected, source })),
  ...queries.map(([sql, expected, source]) => ({ sql, expected, source, query: true as const })),
]);
