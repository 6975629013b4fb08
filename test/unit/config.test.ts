import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../../src/shared/errors.ts';
import { QUERIES_DIR, readConfig, settingsTable } from '../../src/process/config.ts';
import { DEFAULT_EMBEDDED_MEMORY_MB } from '../../src/store/pglite/pglite-engine.ts';
import { DEFAULT_MAX_RESULT_BYTES } from '../../src/store/result-limit.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

test('defaults', () => {
  const c = readConfig({});
  assert.equal(c.port, 4000);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.logSchema, 'logs');
  assert.equal(c.statementTimeoutMs, 15000);
  assert.equal(c.corsOrigin, '*');
  assert.deepEqual(c.accessTokens, []);
  assert.equal(c.databaseUrl, null);
  assert.deepEqual([c.headersTimeoutMs, c.requestTimeoutMs, c.keepAliveTimeoutMs, c.drainTimeoutMs], [10_000, 30_000, 5_000, 8_000]);
  assert.equal(c.metricsToken, null);
  assert.equal(c.queriesDir, QUERIES_DIR);
  assert.equal(c.poolMax, 10);
  assert.equal(c.poolMaxWaiting, 1000);
  assert.equal(c.maxQueuedPerToken, 100);
  assert.equal(c.queueTimeoutMs, 10_000);
  assert.equal(c.compat, null);
  assert.equal(c.preparedStatements, true);
  assert.equal(readConfig({ PREPARED_STATEMENTS: 'off' }).preparedStatements, false);
  // The engines' own defaults (used when a caller passes none, as tests do) are the configuration's.
  assert.equal(c.maxResultBytes, DEFAULT_MAX_RESULT_BYTES);
  assert.equal(c.embeddedMemoryMb, DEFAULT_EMBEDDED_MEMORY_MB);
});

test('COMPAT: logflare or unset', () => {
  const c = readConfig({ COMPAT: 'logflare', POOL_MAX: '8' });
  assert.equal(c.compat, 'logflare');
  assert.throws(() => readConfig({ COMPAT: 'bigquery' }), (err: unknown) => err instanceof ConfigError && /COMPAT must be logflare/.test(err.message));
});

test('tokens from ACCESS_TOKENS, comma-separated and trimmed; kept only as SHA-256 digests', () => {
  const grants = readConfig({ ACCESS_TOKENS: ' aaaaaaaaaaaaaaaa , bbbbbbbbbbbbbbbb' }).accessTokens;
  assert.deepEqual(grants.map((g) => [g.digest.toString('hex'), g.scope]), [
    [sha256('aaaaaaaaaaaaaaaa'), null],
    [sha256('bbbbbbbbbbbbbbbb'), null],
  ]);
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
  [{ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' }, /^HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS/],
  [{ REQUEST_TIMEOUT_MS: 'soon' }, /^REQUEST_TIMEOUT_MS/],
  [{ KEEP_ALIVE_TIMEOUT_MS: '0' }, /^KEEP_ALIVE_TIMEOUT_MS/],
  [{ DRAIN_TIMEOUT_MS: '-1' }, /^DRAIN_TIMEOUT_MS/],
  [{ QUERIES_DIR: '/nonexistent/queries' }, /^QUERIES_DIR must be a directory/],
  [{ METRICS_TOKEN: 'sha256:abc' }, /^METRICS_TOKEN/],
  [{ POOL_MAX_WAITING: 'lots' }, /^POOL_MAX_WAITING/],
  [{ POOL_MAX_WAITING: '100001' }, /^POOL_MAX_WAITING/],
  [{ EMBEDDED_MEMORY_MB: '128' }, /^EMBEDDED_MEMORY_MB must be an integer between 160 and 2048/],
  [{ PREPARED_STATEMENTS: 'yes' }, /^PREPARED_STATEMENTS must be on or off/],
  [{ CLICKHOUSE_URL: 'clickhouse://x' }, /^CLICKHOUSE_URL must be an http:\/\/ or https:\/\/ URL or "embedded"/],
  [{ CLICKHOUSE_URL: 'embedded', DATABASE_URL: 'postgres://x/db', ACCESS_TOKENS: 'aaaaaaaaaaaaaaaa' }, /^DATABASE_URL and CLICKHOUSE_URL are both set/],
  [{ CLICKHOUSE_URL: 'http://ch:8123' }, /ACCESS_TOKENS or ACCESS_TOKENS_FILE must be set when CLICKHOUSE_URL names a server/],
  [{ CLICKHOUSE_URL: 'http://ch:8123', ACCESS_TOKENS: 'aaaaaaaaaaaaaaaa', INGEST_TOKENS: 'iiiiiiiiiiiiiiii' }, /^INGEST_DATABASE_URL must be set with a CLICKHOUSE_URL server when INGEST_TOKENS is set/],
  [{ CLICKHOUSE_URL: 'http://ch:8123', ACCESS_TOKENS: 'aaaaaaaaaaaaaaaa', INGEST_DATABASE_URL: 'postgres://x/db' }, /^INGEST_DATABASE_URL must be an http:\/\/ or https:\/\/ URL with CLICKHOUSE_URL/],
  [{ CLICKHOUSE_URL: 'embedded', INGEST_DATABASE_URL: 'http://ch:8123' }, /^INGEST_DATABASE_URL must be a postgres:\/\//],
];
for (const [env, message] of BAD) {
  test(`bad environment stops start-up naming the variable: ${JSON.stringify(env)}`, () => {
    assert.throws(() => readConfig(env), (err: unknown) => err instanceof ConfigError && message.test(err.message));
  });
}

// Regression: DATABSE_URL=… quietly started the demo store.
test('a variable within two edits of a setting (one for short names) is warned about, naming the setting', () => {
  const c = readConfig({ DATABSE_URL: 'postgres://x/y', LOG_LEVLE: 'debug', HOME: '/root', PATH: '/bin', HOSTNAME: 'h', PORT: '1', TEST_DATABASE_URL: 'postgres://t', POTR: '1' });
  assert.deepEqual(c.warnings, [
    'environment variable DATABSE_URL is not a setting and is ignored; did you mean DATABASE_URL?',
    'environment variable LOG_LEVLE is not a setting and is ignored; did you mean LOG_LEVEL?',
    'environment variable POTR is not a setting and is ignored; did you mean PORT?',
  ]);
  assert.equal(c.databaseUrl, null);
  assert.deepEqual(readConfig({}).warnings, []);
});

test('the configuration table of docs/configuration.md is the settings table of config.ts', () => {
  const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
  assert.ok(page.includes(settingsTable()), 'docs/configuration.md must contain settingsTable() verbatim (npx tsx scripts/settings-table.ts prints it)');
});

test('MAX_QUEUED_PER_TOKEN defaults to the larger of 100 and 4 × POOL_MAX, and may be set', () => {
  assert.equal(readConfig({ POOL_MAX: '50' }).maxQueuedPerToken, 200);
  assert.equal(readConfig({ POOL_MAX: '50', MAX_QUEUED_PER_TOKEN: '7' }).maxQueuedPerToken, 7);
  assert.equal(readConfig({ QUEUE_TIMEOUT_MS: '250' }).queueTimeoutMs, 250);
});

// Regression: a setting of an earlier version, still in an operator's environment, was silently ignored.
test('MAX_STATEMENTS_PER_TOKEN, a removed setting, is warned about with what replaced it', () => {
  const { warnings } = readConfig({ MAX_STATEMENTS_PER_TOKEN: '5' });
  assert.deepEqual(warnings, ['environment variable MAX_STATEMENTS_PER_TOKEN is no longer a setting and is ignored: calls beyond a token\'s share now wait in its queue (MAX_QUEUED_PER_TOKEN, QUEUE_TIMEOUT_MS) instead of being refused']);
});
