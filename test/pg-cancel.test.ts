/**
 * The engine's cancel request (src/store/postgres/pg-engine.ts, cancelStatement) on real PostgreSQL: it
 * cancels a running statement, and it is not sent when the statement ended while the cancel's own
 * connection was still opening (sent then, it could cancel the next caller's statement on that
 * backend once the connection is back in the pool).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { cancelStatement } from '../src/store/postgres/pg-engine.ts';
import { pgFactory, type TestStore } from './support/engines.ts';

describe('cancelStatement on PostgreSQL', () => {
  let store: TestStore;
  let client: pg.Client;

  before(async () => {
    store = await pgFactory.open();
    client = new pg.Client({ connectionString: store.url! });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await store?.teardown();
  });

  /** pg_sleep(seconds) on the client; settles with how it ended and when. */
  function sleepOnServer(seconds: number): Promise<{ code: string | undefined; ms: number }> {
    const started = performance.now();
    return client.query('select pg_sleep($1)', [seconds]).then(
      () => ({ code: undefined, ms: performance.now() - started }),
      (err: { code?: string }) => ({ code: err.code, ms: performance.now() - started }),
    );
  }

  test('a running statement is cancelled (57014)', async () => {
    const ended = sleepOnServer(5);
    await sleep(100);
    cancelStatement({ connectionString: store.url! }, client, { running: true });
    const { code, ms } = await ended;
    assert.equal(code, '57014');
    assert.ok(ms < 3_000, `took ${ms} ms`);
  });

  test('a statement that ended before the cancel connected is not cancelled, nor is the next one', async () => {
    const first = sleepOnServer(0.1);
    const statement = { running: true };
    cancelStatement({ connectionString: store.url! }, client, statement);
    // The statement "ends" before the cancel's connection can have opened (that takes a turn at least).
    statement.running = false;
    assert.equal((await first).code, undefined);
    const next = await sleepOnServer(0.5);
    assert.equal(next.code, undefined, 'the next statement on the backend was cancelled');
    assert.ok(next.ms >= 450, `took ${next.ms} ms`);
  });

  test('nothing is sent for a statement already ended', async () => {
    const running = sleepOnServer(0.5);
    cancelStatement({ connectionString: store.url! }, client, { running: false });
    assert.equal((await running).code, undefined);
  });
});
