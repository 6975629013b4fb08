// Token grants: ACCESS_TOKENS, the ACCESS_TOKENS_FILE format with scopes and sha256: entries, and the authenticator.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { parseGrant, parseTokenFile, parseTokenList, TokenFormatError } from '../../src/auth/access-tokens.ts';
import { createAuthenticator } from '../../src/auth/authenticator.ts';
import { ConfigError } from '../../src/shared/errors.ts';
import { readConfig } from '../../src/process/config.ts';
import { HttpError } from '../../src/shared/errors.ts';
import { loadRegistry } from '../../src/query/registry.ts';
import { loadSqlParser, type SqlParser } from '../../src/sql/sandbox/sql-parser.ts';
import { QUERIES_DIR } from '../../src/process/config.ts';
import { tempDir } from '../support/temp-dir.ts';

// The registry analyses sandboxed statements as it loads: the parser must be ready.
let parser: SqlParser;
before(async () => {
  parser = await loadSqlParser();
});

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const FULL = 'full-token-0123456789';
const SCOPED = 'scoped-token-0123456789';
const HASHED = 'hashed-token-0123456789';
const LOGS_ALL_ID = 'dbfa1333-137e-484c-a48a-ab8e074edc7c';

test('token file: plain and sha256: entries, optional scope list, comments and blank lines', () => {
  const grants = parseTokenFile(
    ['# operators', FULL, '', `  ${SCOPED}   logs.all  `, `sha256:${sha256(HASHED).toUpperCase()} usage.api-counts, ${LOGS_ALL_ID}`, '\t# end'].join('\r\n'),
  );
  assert.deepEqual(
    grants.map((g) => [g.digest.toString('hex'), g.scope, g.source]),
    [
      [sha256(FULL), null, 'ACCESS_TOKENS_FILE line 2'],
      [sha256(SCOPED), ['logs.all'], 'ACCESS_TOKENS_FILE line 4'],
      [sha256(HASHED), ['usage.api-counts', LOGS_ALL_ID], 'ACCESS_TOKENS_FILE line 5'],
    ],
  );
});

const BAD_LINES: [string, string, RegExp][] = [
  ['too short', 'short-token', /line 1: every token must be at least 16 characters/],
  ['hash with too few digits', `sha256:${sha256('x').slice(1)}`, /line 1: a sha256: entry needs exactly 64 hex digits/],
  ['hash with a non-hex digit', `sha256:${'g'.repeat(64)}`, /line 1: a sha256: entry/],
  ['empty scope entry', `${FULL} logs.all,,usage.api-counts`, /line 1: the scope must be/],
  ['scope separated by spaces', `${FULL} logs.all usage.api-counts`, /line 1: the scope must be/],
];
for (const [name, line, message] of BAD_LINES) {
  test(`token file: ${name} is refused naming the line`, () => {
    assert.throws(() => parseTokenFile(line), (err: unknown) => err instanceof TokenFormatError && message.test(err.message));
  });
}

test('ACCESS_TOKENS accepts sha256: entries too, never scoped', () => {
  const grants = parseTokenList(`${FULL}, sha256:${sha256(HASHED)}`);
  assert.deepEqual(grants.map((g) => [g.digest.toString('hex'), g.scope]), [[sha256(FULL), null], [sha256(HASHED), null]]);
});

function tokenFile(text: string): string {
  const file = join(tempDir('tokens-'), 'tokens');
  writeFileSync(file, text);
  return file;
}

test('readConfig combines ACCESS_TOKENS and ACCESS_TOKENS_FILE; a token listed twice is refused naming both places', () => {
  const c = readConfig({ ACCESS_TOKENS: FULL, ACCESS_TOKENS_FILE: tokenFile(`${SCOPED} logs.all\n`) });
  assert.deepEqual(c.accessTokens.map((g) => g.scope), [null, ['logs.all']]);
  assert.throws(
    () => readConfig({ ACCESS_TOKENS: FULL, ACCESS_TOKENS_FILE: tokenFile(`# x\nsha256:${sha256(FULL)} logs.all\n`) }),
    (err: unknown) => err instanceof ConfigError && /^ACCESS_TOKENS_FILE line 2: the same token is already listed \(ACCESS_TOKENS\)$/.test(err.message),
  );
  assert.throws(() => readConfig({ ACCESS_TOKENS_FILE: tokenFile('tiny\n') }), (err: unknown) => err instanceof ConfigError && /^ACCESS_TOKENS_FILE line 1:/.test(err.message));
});

test('METRICS_TOKEN: plain or sha256:, validated like access tokens', () => {
  assert.equal(readConfig({}).metricsToken, null);
  assert.equal(readConfig({ METRICS_TOKEN: FULL }).metricsToken?.digest.toString('hex'), sha256(FULL));
  assert.equal(readConfig({ METRICS_TOKEN: `sha256:${sha256(HASHED)}` }).metricsToken?.digest.toString('hex'), sha256(HASHED));
  assert.throws(() => readConfig({ METRICS_TOKEN: 'short' }), (err: unknown) => err instanceof ConfigError && /^METRICS_TOKEN/.test(err.message));
});

test('the authenticator: scopes by name or id, hashed entries, 401 for anything else', () => {
  const registry = loadRegistry(QUERIES_DIR, parser);
  const logs = registry.lookup('logs.all')!;
  const usage = registry.lookup('usage.api-counts')!;
  const grants = parseTokenFile(`${FULL}\n${SCOPED} logs.all\nsha256:${sha256(HASHED)} ${usage.id.toUpperCase()}\n`);
  const auth = createAuthenticator([...grants, parseGrant('plain-string-token-0123', 'test')], null, registry);
  const may = (headers: Record<string, string>) => {
    const p = auth.check(headers);
    return [p.mayCall(logs), p.mayCall(usage)];
  };
  assert.deepEqual(may({ 'x-api-key': FULL }), [true, true]);
  assert.deepEqual(may({ 'x-api-key': SCOPED }), [true, false]);
  assert.deepEqual(may({ authorization: `Bearer ${HASHED}` }), [false, true]);
  assert.deepEqual(may({ 'x-api-key': 'plain-string-token-0123' }), [true, true]);
  for (const headers of [{}, { 'x-api-key': sha256(HASHED) }, { 'x-api-key': `sha256:${sha256(HASHED)}` }, { authorization: `Basic ${FULL}` }, { 'x-api-key': FULL + 'x' }]) {
    assert.throws(() => auth.check(headers), (err: unknown) => err instanceof HttpError && err.status === 401, JSON.stringify(headers));
  }
});

test('remembered tokens keep their own grant: the memo of matched tokens changes no answer', () => {
  const registry = loadRegistry(QUERIES_DIR, parser);
  const logs = registry.lookup('logs.all')!;
  const usage = registry.lookup('usage.api-counts')!;
  const auth = createAuthenticator(parseTokenFile(`${FULL}\n${SCOPED} logs.all\n`), null, registry);
  for (let round = 0; round < 3; round++) {
    const full = auth.check({ 'x-api-key': FULL });
    const scoped = auth.check({ authorization: `Bearer ${SCOPED}` });
    // The same object each time: it is the token's identity for the per-token statement limit.
    assert.equal(auth.check({ 'x-api-key': FULL }), full);
    assert.deepEqual([full.mayCall(usage), scoped.mayCall(logs), scoped.mayCall(usage)], [true, true, false]);
    for (const near of [FULL.slice(0, -1), FULL + 'x', SCOPED.toUpperCase()]) {
      assert.throws(() => auth.check({ 'x-api-key': near }), (err: unknown) => err instanceof HttpError && err.status === 401);
    }
  }
  assert.throws(() => auth.checkMetrics({ 'x-api-key': SCOPED }), (err: unknown) => err instanceof HttpError && err.status === 401);
  auth.checkMetrics({ 'x-api-key': FULL });
});

test('a scope naming no stored query stops start-up naming the line', () => {
  const registry = loadRegistry(QUERIES_DIR, parser);
  assert.throws(
    () => createAuthenticator(parseTokenFile(`${FULL}\n${SCOPED} logs.all,logs.typo\n`), null, registry),
    (err: unknown) => err instanceof ConfigError && err.message === 'ACCESS_TOKENS_FILE line 2: no stored query named or with id "logs.typo"',
  );
});
