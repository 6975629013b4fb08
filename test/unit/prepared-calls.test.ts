import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { HttpError } from '../../src/shared/errors.ts';
import { QUERIES_DIR } from '../../src/process/config.ts';
import { POSTGRESQL } from '../../src/sql/dialect.ts';
import { PreparedCalls, PREPARED_SEARCH_MAX_CHARS } from '../../src/query/prepared-calls.ts';
import { loadRegistry, type StoredQuery } from '../../src/query/registry.ts';
import { loadSqlParser } from '../../src/sql/sandbox/sql-parser.ts';
import { readSearch } from '../../src/http/request-input.ts';
import type { Engine } from '../../src/store/engine.ts';
import { StoreCheck } from '../../src/store/store-check.ts';
import { FairQueue } from '../../src/queue/fair-queue.ts';

let usage: StoredQuery;
let logs: StoredQuery;
// Preparing never runs a statement: an engine that fails the test if it is asked to.
const engine = new Proxy({}, { get: () => assert.fail('preparing a call must not touch the engine') }) as Engine;
const queue = new FairQueue({ capacity: 1, maxQueuedPerOwner: 1, maxQueued: 1, queueTimeoutMs: 1000 });
const deps = { engine, dialect: POSTGRESQL, callerStatementTimeoutMs: 5000, store: new StoreCheck(engine, [], 'logs'), queue };

before(async () => {
  const registry = loadRegistry(QUERIES_DIR, await loadSqlParser());
  usage = registry.lookup('usage.api-counts')!;
  logs = registry.lookup('logs.all')!;
});

/** readSearch, counting how often a query string is actually read. */
function countingParse() {
  const parse = (search: string) => (parse.calls++, readSearch(search));
  parse.calls = 0;
  return parse;
}

test('the same GET is prepared once: the same statement, key and load, read once', () => {
  const parse = countingParse();
  const calls = new PreparedCalls(deps, parse);
  const a = calls.fromSearch(usage, 'interval=daily&project=alpha', false);
  const b = calls.fromSearch(usage, 'interval=daily&project=alpha', false);
  assert.equal(parse.calls, 1);
  assert.equal(b.load, a.load);
  assert.equal(b.cached, a.cached);
  assert.equal(b.statement, a.statement);
  assert.deepEqual(a.statement.params, ['daily', 'alpha']);
});

test('what changes the answer changes the preparation: parameters, redaction, the stored query', () => {
  const calls = new PreparedCalls(deps, readSearch);
  const base = calls.fromSearch(usage, 'interval=daily&project=alpha', false);
  assert.equal(base.cached?.policy, usage.cachePolicy);
  assert.notEqual(calls.fromSearch(usage, 'interval=hourly&project=alpha', false).cached?.key, base.cached?.key);
  const redacted = calls.fromSearch(usage, 'interval=daily&project=alpha', true);
  assert.notEqual(redacted.cached?.key, base.cached?.key);
  assert.equal(redacted.statement.redact, true);
  // logs.all is uncached: prepared all the same, without a key.
  assert.equal(calls.fromSearch(logs, 'project=alpha', false).cached, null);
  // Two spellings of one call share a cache entry (the key is canonical) though prepared apart.
  assert.equal(calls.fromSearch(usage, 'project=alpha&interval=daily', false).cached?.key, base.cached?.key);
});

test('a refused call is not remembered: its error comes each time', () => {
  const parse = countingParse();
  const calls = new PreparedCalls(deps, parse);
  for (let i = 0; i < 2; i++) {
    assert.throws(() => calls.fromSearch(usage, 'interval=weekly&project=alpha', false), (e: unknown) => e instanceof HttpError && e.code === 'invalid_parameter');
  }
  assert.equal(parse.calls, 2);
});

test('bounded: past its size the least recently used call is prepared again; long query strings are never held', () => {
  const parse = countingParse();
  const calls = new PreparedCalls(deps, parse, 2);
  const get = (p: string) => calls.fromSearch(usage, `interval=daily&project=${p}`, false);
  get('a');
  get('b');
  get('a'); // a is now the most recent
  get('c'); // evicts b
  assert.equal(parse.calls, 3);
  get('a');
  assert.equal(parse.calls, 3);
  get('b');
  assert.equal(parse.calls, 4);
  const long = `interval=daily&project=${'x'.repeat(PREPARED_SEARCH_MAX_CHARS)}`;
  calls.fromSearch(usage, long, false);
  calls.fromSearch(usage, long, false);
  assert.equal(parse.calls, 6);
});
