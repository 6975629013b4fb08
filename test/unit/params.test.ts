import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError } from '../../src/shared/errors.ts';
import { canonicalTimestamp, parseParamDeclarations, sampleValue, validateParams, type ParamSpec } from '../../src/query/params.ts';

const TIMESTAMPS: [string, string | null][] = [
  ['2026-11-22T10:15:30.123456Z', '2026-11-22T10:15:30.123456+00:00'],
  ['2026-11-22T10:15:30Z', '2026-11-22T10:15:30+00:00'],
  ['2026-11-22T10:15:30', '2026-11-22T10:15:30+00:00'], // no offset: UTC
  ['2026-11-22 10:15:30', '2026-11-22T10:15:30+00:00'],
  ['2026-11-22t10:15:30z', '2026-11-22T10:15:30+00:00'],
  ['2026-11-22T10:15', '2026-11-22T10:15:00+00:00'],
  ['2026-11-22', '2026-11-22T00:00:00+00:00'],
  ['2026-11-22T10:15:30+05:30', '2026-11-22T10:15:30+05:30'],
  ['2026-11-22T10:15:30-0800', '2026-11-22T10:15:30-08:00'],
  ['2026-11-22T10:15:30+01', '2026-11-22T10:15:30+01:00'],
  ['2026-11-22T10:15:30,5Z', '2026-11-22T10:15:30.5+00:00'],
  ['2026-11-22T10:15:30.123456789Z', '2026-11-22T10:15:30.123456789+00:00'],
  ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00+00:00'],
  ['2026-02-29T00:00:00Z', null], // not a leap year
  ['2026-13-01', null],
  ['2026-00-10', null],
  ['2026-04-31', null],
  ['2026-11-22T24:00:00Z', null],
  ['2026-11-22T10:60:00Z', null],
  ['2026-11-22T10:15:61Z', null],
  ['2026-11-22T10:15:30+16:00', null],
  ['0000-01-01', null],
  ['yesterday', null],
  ['now', null],
  ['1700000000', null],
  ['2026-11-22T10:15:30.Z', null],
  ['2026-11-22T10:15:30.1234567890Z', null],
  [' 2026-11-22', null],
  ["2026-11-22'; drop table x; --", null],
  ['2026-1-2', null],
];

for (const [input, expected] of TIMESTAMPS) {
  test(`canonicalTimestamp(${JSON.stringify(input)})`, () => assert.equal(canonicalTimestamp(input), expected));
}

const SPECS: Record<string, ParamSpec> = {
  project: { type: 'string', required: true },
  start: { type: 'timestamp', required: false },
  interval: { type: 'enum', required: false, values: ['hourly', 'daily'] },
  limit: { type: 'integer', required: false, min: 1, max: 500 },
  ratio: { type: 'number', required: false, min: 0, max: 1 },
  verbose: { type: 'boolean', required: false },
};
const NONE = { limit: null, ratio: null, verbose: null };
const raw = (o: Record<string, string[]>) => new Map(Object.entries(o));

test('validateParams: declared values canonicalised, absent and empty are null; unknown ignored only when the policy says so', () => {
  assert.deepEqual(validateParams(SPECS, raw({ project: ['p'], start: ['2026-01-01'], other: ['x'] }), 'ignore'), {
    project: 'p',
    start: '2026-01-01T00:00:00+00:00',
    interval: null,
    ...NONE,
  });
  assert.deepEqual(validateParams(SPECS, raw({ project: ['p'], start: [''] })), { project: 'p', start: null, interval: null, ...NONE });
  assert.deepEqual(validateParams(SPECS, raw({ project: ['p'], limit: ['+042'], ratio: ['.5e0'], verbose: ['TRUE'] })), {
    project: 'p',
    start: null,
    interval: null,
    limit: '42',
    ratio: '0.5',
    verbose: 'true',
  });
});

test('an unknown parameter is 400 unknown_parameter naming it, the accepted names and the closest one', () => {
  assert.throws(
    () => validateParams(SPECS, raw({ project: ['p'], strat: ['2026-01-01'] }), 'reject', ['sql']),
    (err: unknown) =>
      err instanceof HttpError &&
      err.code === 'unknown_parameter' &&
      err.status === 400 &&
      err.param === 'strat' &&
      err.message === 'Unknown parameter "strat" (did you mean start?); this stored query accepts: project, start, interval, limit, ratio, verbose, sql.',
  );
  assert.throws(
    () => validateParams(SPECS, raw({ project: ['p'], zzzzzz: ['1'] })),
    (err: unknown) => err instanceof HttpError && err.code === 'unknown_parameter' && !err.message.includes('did you mean'),
  );
});

test('an offset whose "+" arrived as a space: the message shows the value and says to encode it as %2B', () => {
  assert.throws(
    () => validateParams(SPECS, raw({ project: ['p'], start: ['2026-11-21T10:00:00 01:00'] })),
    (err: unknown) =>
      err instanceof HttpError && err.param === 'start' && err.message.includes('received "2026-11-21T10:00:00 01:00"') && err.message.includes('%2B'),
  );
  assert.throws(
    () => validateParams(SPECS, raw({ project: ['p'], start: ['soon'] })),
    (err: unknown) => err instanceof HttpError && err.message.includes('received "soon".') && !err.message.includes('%2B'),
  );
});

const FAILURES: [string, Record<string, string[]>, string, string][] = [
  ['required absent', {}, 'missing_parameter', 'project'],
  ['required empty', { project: [''] }, 'missing_parameter', 'project'],
  ['repeated', { project: ['a', 'b'] }, 'invalid_parameter', 'project'],
  ['enum outside', { project: ['p'], interval: ['weekly'] }, 'invalid_parameter', 'interval'],
  ['enum wrong case', { project: ['p'], interval: ['Hourly'] }, 'invalid_parameter', 'interval'],
  ['bad timestamp', { project: ['p'], start: ['soon'] }, 'invalid_parameter', 'start'],
  ['NUL', { project: ['a\0b'] }, 'invalid_parameter', 'project'],
  ['too long', { project: ['x'.repeat(5000)] }, 'invalid_parameter', 'project'],
  ['integer not a number', { project: ['p'], limit: ['abc'] }, 'invalid_parameter', 'limit'],
  ['integer with a fraction', { project: ['p'], limit: ['1.5'] }, 'invalid_parameter', 'limit'],
  ['integer in hex', { project: ['p'], limit: ['0x10'] }, 'invalid_parameter', 'limit'],
  ['integer below min', { project: ['p'], limit: ['0'] }, 'invalid_parameter', 'limit'],
  ['integer above max', { project: ['p'], limit: ['501'] }, 'invalid_parameter', 'limit'],
  ['integer past 2^53', { project: ['p'], limit: ['9007199254740993'] }, 'invalid_parameter', 'limit'],
  ['number NaN', { project: ['p'], ratio: ['NaN'] }, 'invalid_parameter', 'ratio'],
  ['number Infinity', { project: ['p'], ratio: ['Infinity'] }, 'invalid_parameter', 'ratio'],
  ['number above max', { project: ['p'], ratio: ['1.01'] }, 'invalid_parameter', 'ratio'],
  ['number with SQL', { project: ['p'], ratio: ['1; drop table x'] }, 'invalid_parameter', 'ratio'],
  ['boolean yes', { project: ['p'], verbose: ['yes'] }, 'invalid_parameter', 'verbose'],
  ['boolean 1', { project: ['p'], verbose: ['1'] }, 'invalid_parameter', 'verbose'],
];
for (const [name, input, code, param] of FAILURES) {
  test(`validateParams rejects: ${name}`, () => {
    assert.throws(() => validateParams(SPECS, raw(input)), (err: unknown) => err instanceof HttpError && err.code === code && err.param === param);
  });
}

test('integer and number messages state the bounds and the value received', () => {
  assert.throws(
    () => validateParams(SPECS, raw({ project: ['p'], limit: ['abc'] })),
    (err: unknown) => err instanceof HttpError && err.message === 'Parameter "limit" must be an integer from 1 to 500, got "abc".',
  );
  assert.throws(
    () => validateParams(SPECS, raw({ project: ['p'], limit: ['900'] })),
    (err: unknown) => err instanceof HttpError && err.message === 'Parameter "limit" must be an integer from 1 to 500, got 900.',
  );
});

test('sampleValue: each type gives a value its own validation accepts (the store probes bind them)', () => {
  for (const [name, spec] of Object.entries(SPECS)) {
    const input = raw({ project: ['p'], [name]: [sampleValue(spec)] });
    assert.doesNotThrow(() => validateParams(SPECS, input), name);
  }
});

const fail = (problem: string): never => {
  throw new Error(problem);
};
const DECLARATION_ERRORS: [string, unknown, RegExp][] = [
  ['unknown type', { n: { type: 'int', required: true } }, /parameter "n": "type" must be one of string, regex, timestamp, enum, integer, number, boolean, got "int"/],
  ['misspelt field', { n: { type: 'integer', requried: true } }, /parameter "n": unknown field "requried" \(did you mean "required"\?\); an integer parameter has type, required, description, example, min, max/],
  ['min on a string', { n: { type: 'string', required: true, min: 1 } }, /unknown field "min"/],
  ['min not a number', { n: { type: 'integer', required: true, min: '1' } }, /parameter "n": "min" must be an integer/],
  ['min above max', { n: { type: 'number', required: true, min: 5, max: 1 } }, /"min" \(5\) is greater than "max" \(1\)/],
  ['reserved name', { sql: { type: 'string', required: true } }, /parameter name "sql" is reserved/],
  ['not an object', { n: 'integer' }, /parameter "n" must be an object such as/],
];
for (const [name, declared, message] of DECLARATION_ERRORS) {
  test(`parseParamDeclarations refuses: ${name}`, () => assert.throws(() => parseParamDeclarations(declared, fail), message));
}
