// Database errors → error codes (src/shared/errors.ts): everything that means "the database is not there" is a 503 with Retry-After.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapDbError } from '../../src/store/db-errors.ts';

const plain = { callerSql: false, regexParam: undefined };
const withError = (message: string, fields: Record<string, unknown> = {}) => Object.assign(new Error(message), fields);

const UNAVAILABLE: [string, Error][] = [
  ['connection refused', withError('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED' })],
  ['socket reset', withError('read ECONNRESET', { code: 'ECONNRESET' })],
  ['pool wait timed out', withError('timeout exceeded when trying to connect')],
  ['connection lost mid-statement', withError('Connection terminated unexpectedly')],
  ['connect timed out', withError('Connection terminated due to connection timeout')],
  ['client broken', withError('Client has encountered a connection error and is not queryable')],
  ['client closed', withError('Client was closed and is not queryable')],
  ['no answer within the read timeout', withError('Query read timeout')],
  ['backend terminated', withError('terminating connection due to administrator command', { code: '57P01', severity: 'FATAL' })],
  ['crash recovery', withError('the database system is in recovery mode', { code: '57P03', severity: 'FATAL' })],
  ['too many connections', withError('sorry, too many clients already', { code: '53300', severity: 'FATAL' })],
  ['connection exception', withError('connection failure', { code: '08006' })],
];
for (const [what, err] of UNAVAILABLE) {
  test(`database_unavailable with Retry-After: ${what}`, () => {
    const mapped = mapDbError(err, plain);
    assert.equal(mapped.code, 'database_unavailable');
    assert.equal(mapped.status, 503);
    assert.match(mapped.headers['Retry-After'] ?? '', /^\d+$/);
  });
}

test('statement timeout or cancel: query_timeout', () => {
  assert.equal(mapDbError(withError('canceling statement due to statement timeout', { code: '57014' }), plain).code, 'query_timeout');
});

test("runtime errors of the caller's SQL are the caller's; a data error in a stored statement is a parameter's; otherwise internal", () => {
  const div = withError('division by zero', { code: '22012' });
  assert.equal(mapDbError(div, { callerSql: true, regexParam: undefined }).code, 'query_error');
  const stored = mapDbError(div, plain);
  assert.deepEqual([stored.code, stored.status, stored.param], ['invalid_parameter', 400, undefined]);
  assert.equal(stored.message, 'A parameter has a value the stored query cannot use: division by zero');
  assert.equal(mapDbError(withError('something odd'), plain).code, 'internal');
  assert.equal(mapDbError(withError('relation "x" does not exist', { code: '42P01' }), plain).code, 'internal');
});

test('a data error names the parameter whose value the database quotes, and only when exactly one is quoted', () => {
  const cast = withError('invalid input syntax for type integer: "abc"', { code: '22P02' });
  const named = mapDbError(cast, { ...plain, params: { project: 'p', limit: 'abc', from: null } });
  assert.deepEqual([named.code, named.param, named.message], ['invalid_parameter', 'limit', 'Parameter "limit" has a value the stored query cannot use: invalid input syntax for type integer: "abc"']);
  assert.equal(mapDbError(cast, { ...plain, params: { a: 'abc', b: 'abc' } }).param, undefined);
  assert.equal(mapDbError(cast, { ...plain, params: { a: 'ab' } }).param, undefined);
});

test('an invalid regular expression names its parameter', () => {
  const mapped = mapDbError(withError('invalid regular expression: parentheses () not balanced', { code: '2201B' }), { callerSql: false, regexParam: 'project' });
  assert.equal(mapped.code, 'invalid_parameter');
  assert.equal(mapped.param, 'project');
});

const CALLER_RESOURCES: [string, Error][] = [
  ['a string doubled past 1 GB', withError('invalid memory alloc request size 1073741824', { code: 'XX000' })],
  ['out of memory', withError('out of memory', { code: '53200' })],
  ['temp_file_limit', withError('temporary file size exceeds temp_file_limit (1024kB)', { code: '53400' })],
  ['string too long', withError('requested length too large', { code: '54000' })],
  ['statement too complex', withError('stack depth limit exceeded', { code: '54001' })],
];
for (const [what, err] of CALLER_RESOURCES) {
  test(`caller SQL exhausting a resource is a 400 resource_limit: ${what}`, () => {
    const mapped = mapDbError(err, { callerSql: true, regexParam: undefined });
    assert.deepEqual([mapped.code, mapped.status], ['resource_limit', 400]);
    // Without caller SQL the stored statement did it: ours, not the caller's.
    assert.notEqual(mapDbError(err, plain).status, 400);
  });
}

// Regression guard: a store made before try_jsonb existed answered BigQuery JSON functions with a
// bare "function does not exist" 400; it is the store's to fix, and the message says how.
test('the missing try_jsonb helper is 503 store_not_ready naming the schema command; another missing function stays the caller\'s 400', () => {
  const missing = mapDbError(withError('function try_jsonb(text) does not exist', { code: '42883' }), { callerSql: true, regexParam: undefined });
  assert.deepEqual([missing.code, missing.status, missing.headers['Retry-After']], ['store_not_ready', 503, '5']);
  assert.match(missing.message, /node dist\/main\.js schema/);
  assert.equal(mapDbError(withError('function nope(text) does not exist', { code: '42883' }), { callerSql: true, regexParam: undefined }).code, 'query_error');
});
