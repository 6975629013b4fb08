import { test } from 'node:test';
import { chdbFactory } from './support/engines.ts';
import { insertRows } from './support/fixtures.ts';
import { call, startTestService } from './support/service.ts';
test('debug', async () => {
  const store = await chdbFactory.open();
  await insertRows(store, 'auth_logs', [
    { id: 'a', timestamp: '2026-11-26T10:00:00Z', project: 'alpha', event_message: ' 12 ', metadata: { status: 200 } },
    { id: 'c', timestamp: '2026-11-26T10:00:02Z', project: 'alpha', event_message: '-1.5e3', metadata: { status: 503 } },
  ]);
  const svc = await startTestService(store);
  for (const sql of ["select (metadata ->> 'status')::int8 as s, event_message::numeric as n from auth_logs order by timestamp", "select event_message::int as i from auth_logs"]) {
    const r = await call(svc.url, `/api/endpoints/query/logs.all?project=alpha&sql=${encodeURIComponent(sql)}`);
    console.log(sql, r.status, (await r.text()).slice(0, 300));
  }
  await svc.close(); await store.teardown();
});
