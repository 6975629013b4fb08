/**
 * Stored queries' own SQL is kept prepared on each connection (src/store/postgres/pg-engine.ts): parsed
 * once, not on every uncached call; caller SQL never is, so a connection's prepared statements
 * stay as few as the stored queries. PREPARED_STATEMENTS=off (a pooler without prepared
 * statements) sends every statement unnamed. PostgreSQL only: PGlite runs each statement through
 * its own cursor in a worker. One connection per engine, so what the service ran is what
 * pg_prepared_statements on that connection shows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Service } from '../src/service.ts';
import { createPgEngine } from '../src/store/postgres/pg-engine.ts';
import type { Engine } from '../src/store/engine.ts';
import { pgFactory, SCHEMA, type TestStore } from './support/engines.ts';
import { call, startTestService } from './support/service.ts';

let store: TestStore;
before(async () => {
  store = await pgFactory.open();
});
after(async () => {
  await store?.teardown();
});

/** The statements prepared on the engine's one connection (asked unnamed, so not counted itself). */
async function prepared(engine: Engine): Promise<string[]> {
  const rows = await engine.query('select statement from pg_prepared_statements order by prepare_time', []);
  return rows.map((r) => String(r.statement));
}

for (const setting of ['on', 'off'] as const) {
  describe(`PREPARED_STATEMENTS=${setting}`, () => {
    let engine: Engine;
    let service: Service;
    before(async () => {
      engine = createPgEngine({ connectionString: store.url!, schema: SCHEMA, statementTimeoutMs: 5_000, poolMax: 1, connectTimeoutMs: 2_000, preparedStatements: setting === 'on' });
      // The engine is handed to the service ready-made, so the setting is the engine's option here.
      service = await startTestService({ ...store, engine });
    });
    after(async () => {
      await service?.close();
      await engine?.close();
    });

    test(setting === 'on' ? 'a stored query is prepared once however often it runs; caller sql is never prepared' : 'nothing is prepared', async () => {
      for (let i = 0; i < 3; i++) {
        // Uncached: logs.all, with a distinct query string each time so nothing is answered from the cache.
        const res = await call(service.url, `/api/endpoints/query/logs.all?project=p${i}`);
        assert.equal(res.status, 200, await res.text());
      }
      const sandboxed = await call(service.url, `/api/endpoints/query/logs.all?project=alpha&sql=${encodeURIComponent('select count(*) as n from edge_logs')}`);
      assert.equal(sandboxed.status, 200, await sandboxed.text());
      const statements = await prepared(engine);
      if (setting === 'off') return assert.deepEqual(statements, []);
      assert.equal(statements.length, 1, statements.join('\n---\n'));
      assert.match(statements[0]!, /edge_logs/);
      assert.doesNotMatch(statements[0]!, /count\(\*\) as n/);
    });
  });
}
