import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, readConfig } from '../src/config.ts';

test('defaults', () => {
  const c = readConfig({});
  assert.equal(c.port, 4000);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.logSchema, 'logs');
  assert.equal(c.statementTimeoutMs, 15000);
  assert.equal(c.corsOrigin, '*');
  assert.deepEqual(c.accessTokens, []);
  assert.equal(c.databaseUrl, null);
  assert.equal(c.poolMax, 10);
  assert.equal(c.poolMaxWaiting, 100);
});

test('tokens from ACCESS_TOKENS, comma-separated and trimmed', () => {
  assert.deepEqual(readConfig({ ACCESS_TOKENS: ' aaaaaaaaaaaaaaaa , bbbbbbbbbbbbbbbb' }).accessTokens, ['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb']);
});

const BAD: [Record<string, string>, RegExp][] = [
  [{ PORT: 'http' }, /^PORT/],
  [{ PORT: '70000' }, /^PORT/],
  [{ STATEMENT_TIMEOUT_MS: '-5' }, /^STATEMENT_TIMEOUT_MS/],
  [{ STATEMENT_TIMEOUT_MS: '1.5' }, /^STATEMENT_TIMEOUT_MS/],
  [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL/],
  [{ LOG_SCHEMA: 'logs; drop' }, /^LOG_SCHEMA/],
  [{ LOG_SCHEMA: 'Logs' }, /^LOG_SCHEMA/],
  [{ DATABASE_URL: 'mysql://x' }, /^DATABASE_URL/],
  [{ DATABASE_URL: 'postgres://x/db' }, /ACCESS_TOKENS/], // production refuses to start without tokens
  [{ ACCESS_TOKENS: 'short' }, /ACCESS_TOKENS/],
  [{ ACCESS_TOKENS_FILE: '/nonexistent/tokens' }, /^ACCESS_TOKENS_FILE/],
  [{ CACHE_MAX_ENTRIES: '0' }, /^CACHE_MAX_ENTRIES/],
  [{ POOL_MAX_WAITING: 'lots' }, /^POOL_MAX_WAITING/],
  [{ POOL_MAX_WAITING: '100001' }, /^POOL_MAX_WAITING/],
];
for (const [env, message] of BAD) {
  test(`bad environment stops start-up naming the variable: ${JSON.stringify(env)}`, () => {
    assert.throws(() => readConfig(env), (err: unknown) => err instanceof ConfigError && message.test(err.message));
  });
}
