/**
 * Ingest on real PostgreSQL as the README sets it up: the writer as a role that may only insert
 * (and, for retention, delete), the query side unchanged; the database stopped mid-batch (503,
 * nothing half-stored, the resend stores everything once); the process stopped mid-batch (an
 * acknowledged batch is stored, an unacknowledged one is not); retention in batches through the
 * writer, the edge rollup exact afterwards.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { Service } from '../src/service.ts';
import { LOG_TABLES } from '../src/store/schema.ts';
import { createPgWriter } from '../src/store/postgres/pg-writer.ts';
import type { LogWriter } from '../src/store/engine.ts';
import { WRITER_STATEMENT_TIMEOUT_MS } from '../src/store/session-settings.ts';
import { pgFactory, queryOnce, type TestStore } from './support/engines.ts';
import { call, serviceChildEnv, startTestService, TOKEN } from './support/service.ts';
import { expectedUsage, type UsageInput } from './support/usage-reference.ts';
import { waitFor } from './support/ops.ts';
import { INGEST_TOKEN, post } from './behaviour/ingest.ts';
import { npmStartCommand } from '../scripts/lib/npm-start.ts';

const ROLE = 'endpoints_writer';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The README's writer role: INSERT on the log tables; for retention DELETE and SELECT on the two columns it filters by. */
async function createWriterRole(url: string): Promise<string> {
  const tables = LOG_TABLES.map((t) => `logs.${t}`).join(', ');
  await queryOnce(url, `drop owned by ${ROLE}`).catch(() => {});
  await queryOnce(url, `drop role if exists ${ROLE}`).catch(() => {});
  await queryOnce(url, `create role ${ROLE} login password 'writer-password'`);
  await queryOnce(url, `grant usage on schema logs to ${ROLE}`);
  await queryOnce(url, `grant insert, delete on ${tables} to ${ROLE}`);
  for (const t of LOG_TABLES) await queryOnce(url, `grant select (id, timestamp) on logs.${t} to ${ROLE}`);
  const u = new URL(url);
  u.username = ROLE;
  u.password = 'writer-password';
  return u.href;
}

function events(n: number, prefix: string, extra: Record<string, unknown> = {}) {
  return Array.from({ length: n }, (_, i) => ({ id: `${prefix}-${i}`, project: prefix, event_message: `${'e'.repeat(600)} ${i}`, metadata: { request: { path: '/rest/v1/x', method: 'GET', headers: { user_agent: 'u'.repeat(200) } }, response: { status_code: 200 } }, ...extra }));
}

const countOf = async (store: TestStore, project: string) =>
  ((await store.admin(`select count(*)::int as n from logs.edge_logs where project = $1`, [project])) as { rows: { n: number }[] }).rows[0]!.n;

describe('ingest on PostgreSQL through an INSERT-only role', () => {
  let store: TestStore;
  let writerUrl: string;
  let writer: LogWriter;
  let svc: Service;

  before(async () => {
    store = await pgFactory.open();
    writerUrl = await createWriterRole(store.url!);
    writer = createPgWriter({ connectionString: writerUrl, schema: 'logs', poolMax: 2, connectTimeoutMs: 1_000, statementTimeoutMs: WRITER_STATEMENT_TIMEOUT_MS });
    svc = await startTestService({ ...store, writer }, { INGEST_TOKENS: INGEST_TOKEN, RETENTION_DAYS: '3' });
  });
  after(async () => {
    await svc?.close();
    await writer?.close();
    await store?.teardown();
  });

  test('the role stores batches (on conflict without a target needs no SELECT) and can read nothing', async () => {
    const body = JSON.stringify(events(50, 'role'));
    assert.equal((await post(svc.url, 'cloudflare.logs.prod', body)).status, 200);
    assert.equal((await post(svc.url, 'cloudflare.logs.prod', body)).status, 200);
    assert.equal(await countOf(store, 'role'), 50);
    await assert.rejects(queryOnce(writerUrl, 'select event_message from logs.edge_logs limit 1'), /permission denied/);
    await assert.rejects(queryOnce(writerUrl, 'select count(*) from logs.edge_request_counts'), /permission denied/);
    await assert.rejects(queryOnce(writerUrl, 'update logs.edge_logs set event_message = $1', ['x']), /permission denied/);
    // The query side keeps answering as before.
    assert.equal((await call(svc.url, '/api/endpoints/query/logs.all?project=role')).status, 200);
  });

  test('the database stopped mid-batch: 503 with Retry-After, nothing half-stored; once back, the resend stores every event once', async (t) => {
    const body = JSON.stringify(events(12_000, 'outage'));
    const sent = post(svc.url, 'cloudflare.logs.prod', body);
    await new Promise((r) => setTimeout(r, 150));
    await store.server!.stop();
    const res = await sent;
    const answer = (await res.json()) as { error?: { code: string } };
    await store.server!.start();
    const stored = await countOf(store, 'outage');
    t.diagnostic(`answered ${res.status} with ${stored} stored`);
    if (res.status === 200) {
      // The write committed before the stop: acknowledged and whole.
      assert.equal(stored, 12_000);
    } else {
      assert.equal(res.status, 503, JSON.stringify(answer));
      assert.ok(res.headers.get('retry-after'));
      assert.equal(answer.error?.code, 'database_unavailable');
      assert.equal(stored, 0, 'nothing half-stored');
    }
    // Vector resends until it gets a 2xx (the stored events carry ids, so a resend stores nothing twice).
    await waitFor('the resend to be stored', async () => (await post(svc.url, 'cloudflare.logs.prod', body)).status === 200, 15_000, 250);
    assert.equal(await countOf(store, 'outage'), 12_000);
  });

  test('retention deletes rows older than RETENTION_DAYS in batches through the writer; the rollup stays exact', async () => {
    const now = Date.now();
    const inputs: UsageInput[] = [];
    const rows = Array.from({ length: 12_000 }, (_, i) => {
      const ts = now - (i % 2 === 0 ? 1 : 5) * 86_400_000 - i * 1000;
      const url = `https://keep.example.co/rest/v1/r?i=${i % 11}`;
      inputs.push({ ts, url, path: '/rest/v1/r' });
      return { id: `ret-${i}`, project: 'ret', timestamp: new Date(ts).toISOString(), metadata: { request: { url, path: '/rest/v1/r' } } };
    });
    for (let i = 0; i < rows.length; i += 3000) assert.equal((await post(svc.url, 'cloudflare.logs.prod', JSON.stringify(rows.slice(i, i + 3000)))).status, 200);
    const deleted = await svc.retention!.runOnce();
    assert.ok(deleted >= 6_000, `${deleted}`);
    assert.equal(await countOf(store, 'ret'), 6_000);
    const kept = inputs.filter((r) => r.ts >= now - 3 * 86_400_000);
    const res = await call(svc.url, `/api/endpoints/query/usage.api-counts?interval=daily&project=${encodeURIComponent('keep\\.example')}`);
    assert.deepEqual(((await res.json()) as { result: unknown[] }).result, expectedUsage(kept, now, 'daily', /keep\.example/));
  });
});

describe('the process stopped mid-batch', () => {
  let store: TestStore;
  before(async () => {
    store = await pgFactory.open();
  });
  after(async () => {
    await store?.teardown();
  });

  test('SIGTERM while a batch is written: the batch is answered 200 and stored whole, or refused and not stored', async (t) => {
    const start = npmStartCommand();
    const child = spawn(process.execPath, [...start.nodeArgs, start.script], {
      cwd: ROOT,
      env: serviceChildEnv({ ...start.env, PORT: '0', DATABASE_URL: store.url!, INGEST_DATABASE_URL: store.url!, ACCESS_TOKENS: TOKEN, INGEST_TOKENS: INGEST_TOKEN, LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await waitFor('the start-up line', () => /listening on http/.test(out), 30_000, 50);
    const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
    const sent = post(url, 'cloudflare.logs.prod', JSON.stringify(events(12_000, 'sigterm'))).then(
      (r) => r.status,
      () => 0,
    );
    await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGTERM');
    const status = await sent;
    assert.equal(await exited, 0);
    const stored = await countOf(store, 'sigterm');
    t.diagnostic(`answered ${status} with ${stored} stored`);
    if (status === 200) assert.equal(stored, 12_000);
    else assert.equal(stored, 0, `answered ${status}, yet ${stored} stored`);
  });
});
