/**
 * A sharded ClickHouse cluster, as an operator without ZooKeeper runs one: two clickhouse-local
 * servers (scripts/lib/clickhouse-server.ts), separate processes, one shard each, remote_servers over
 * TCP; `schema --cluster NAME --no-replication` on each node (MergeTree `<table>_local` and
 * Distributed tables sharded by id); the service as its SELECT-only and INSERT-only users. The
 * behavioural suite runs on it, the stored queries and caller sql answer byte for byte as PostgreSQL
 * over the same rows, ingest spreads over both shards and keeps a resent batch once, and a stopped
 * node is a 503 with Retry-After until it is back. Replication is not here: clickhouse-local keeps
 * replicated tables read-only (docs/clickhouse.md, "A cluster").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ClickHouseClient } from '@clickhouse/client';
import { clickhouseClient } from '../src/store/clickhouse/open-clickhouse.ts';
import { schemaCommand } from '../src/commands/schema.ts';
import { DEMO_PROJECTS, generateDemoLogs, insertDemoLogs } from '../src/store/demo/demo-data.ts';
import { insertRows } from '../src/store/clickhouse/clickhouse-admin.ts';
import { LOG_TABLES } from '../src/store/schema.ts';
import type { Service } from '../src/service.ts';
import { everySuite, runBehaviour } from './behaviour/run-behaviour.ts';
import { CLICKHOUSE_SKIPS } from './support/clickhouse-skips.ts';
import { clickhouseServerFactory, pgliteFactory, SCHEMA, type ClickHouseTarget, type EngineFactory, type TestStore } from './support/engines.ts';
import { call, startTestService } from './support/service.ts';
import { agreement, REFUSED_ON_CLICKHOUSE } from './support/clickhouse-caller-cases.ts';
import { containerLines, vectorBatches } from './fixtures/vector-replay.ts';
import { INGEST_TOKEN, post } from './behaviour/ingest.ts';
import { studioKit } from '../scripts/bench/studio.ts';
import { clickhouseUnavailable, startClickHouse, type ClickHouseServer } from '../scripts/lib/clickhouse-server.ts';


let started: Promise<ClickHouseServer> | undefined;
const cluster = () => (started ??= startClickHouse({ shards: 2 }));

async function target(): Promise<ClickHouseTarget> {
  const { nodes, cluster: name } = await cluster();
  return { adminUrl: nodes[0]!.url(), queryUrl: nodes[0]!.url('endpoints'), ingestUrl: nodes[0]!.url('ingest'), cluster: { name: name!, nodeUrls: nodes.map((n) => n.url()) } };
}
/**
 * The suite's view of the cluster: ClickHouse's, plus one refusal of ClickHouse's own (26.7) that a
 * single server does not give: a correlated subquery over Distributed tables ("not supported with
 * remote tables"), a clean 400 query_error naming it (docs/clickhouse.md, "A cluster").
 */
const factory: EngineFactory = {
  ...clickhouseServerFactory(target),
  refusesSql: { ...REFUSED_ON_CLICKHOUSE, 'exists and in over CTEs': /query_error.*Correlated subqueries are not supported with remote tables/ },
};

after(async () => {
  await (await started)?.destroy();
});

/** Declared skip: no cluster without chdb's library (installed on demand, as .ci/run does). */
const missing = clickhouseUnavailable();
runBehaviour(factory, { skip: missing === null ? CLICKHOUSE_SKIPS : everySuite(missing) });

/** Rows per shard of a table, read on each node's local table. */
async function perShard(admins: readonly ClickHouseClient[], db: string, table: string): Promise<number[]> {
  return Promise.all(admins.map(async (a) => Number((await (await a.query({ query: `SELECT count() AS n FROM ${db}.${table}_local`, format: 'JSON' })).json<{ n: string }>()).data[0]!.n)));
}

describe('the schema command on a cluster', { skip: missing ?? false }, () => {
  test('--cluster NAME --no-replication on each node: MergeTree shards, Distributed tables over both, idempotent; without --no-replication the refusal names it', async () => {
    const { nodes, cluster: name } = await cluster();
    const db = `endpoints_test_cmd_${process.pid}`;
    const out: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => (out.push(String(chunk)), true)) as typeof process.stdout.write;
    try {
      for (let round = 0; round < 2; round++) {
        for (const node of nodes) await schemaCommand(['--cluster', name!, '--no-replication'], { CLICKHOUSE_URL: node.url(), LOG_SCHEMA: db });
      }
      await assert.rejects(schemaCommand(['--cluster', name!], { CLICKHOUSE_URL: nodes[0]!.url(), LOG_SCHEMA: db }), /cannot run ON CLUSTER statements .*--no-replication against each node/s);
      await assert.rejects(schemaCommand(['--cluster', 'nope', '--no-replication'], { CLICKHOUSE_URL: nodes[0]!.url(), LOG_SCHEMA: db }), /no cluster "nope" in its remote_servers \(it has: .*sqe_shards/);
    } finally {
      process.stdout.write = write;
    }
    assert.match(out.find((line) => line.startsWith('Applied')) ?? '', new RegExp(`on this node of cluster ${name} \\(2 shards: run it against each node\\)`));
    const admins = nodes.map((n) => clickhouseClient({ url: n.url() }));
    try {
      for (const admin of admins) {
        const tables = (await (await admin.query({ query: `SELECT name, engine FROM system.tables WHERE database = '${db}' ORDER BY name`, format: 'JSON' })).json<{ name: string; engine: string }>()).data;
        assert.equal(tables.length, LOG_TABLES.length * 2);
        assert.deepEqual(new Set(tables.map((t) => t.engine)), new Set(['MergeTree', 'Distributed']));
      }
    } finally {
      for (const admin of admins) {
        await admin.command({ query: `DROP DATABASE IF EXISTS ${db} SYNC` });
        await admin.close();
      }
    }
  });
});

describe('a two-shard cluster answers as PostgreSQL over the same rows', { skip: missing ?? false }, () => {
  let pg: TestStore;
  let ch: TestStore;
  let admins: ClickHouseClient[];
  let db: string;
  const services: Service[] = [];
  let pgSvc: Service;
  let chSvc: Service;

  before(async () => {
    const logs = generateDemoLogs({ rows: 3000, seed: 31, now: new Date(Date.now() - 30 * 60_000) });
    pg = await pgliteFactory.open({ responseShape: 'logflare' });
    await insertDemoLogs(pg.admin, SCHEMA, logs);
    ch = await factory.open({ responseShape: 'logflare' });
    db = ch.serviceEnv!.LOG_SCHEMA!;
    admins = (await cluster()).nodes.map((n) => clickhouseClient({ url: n.url() }));
    for (const table of LOG_TABLES) await insertRows(admins[0]!, db, table, logs[table]);
    const env = { COMPAT: 'logflare', INGEST_TOKENS: INGEST_TOKEN };
    pgSvc = await startTestService(pg, env);
    chSvc = await startTestService(ch, env);
    services.push(pgSvc, chSvc);
  });
  after(async () => {
    for (const s of services) await s.close();
    for (const a of admins ?? []) await a.close();
    await ch?.teardown();
    await pg?.teardown();
  });

  const both = async (path: string) => {
    const [a, b] = await Promise.all([call(pgSvc.url, path), call(chSvc.url, path)]);
    return { pg: { status: a.status, text: await a.text() }, ch: { status: b.status, text: await b.text() } };
  };
  /** Ingest makes up the ids of Vector's events, differently on each engine. */
  const withoutIds = (text: string) => text.replace(/"id":"[0-9a-f-]{36}"/g, '"id":"…"');
  const range = (hoursAgo: number) => encodeURIComponent(new Date(Date.now() - hoursAgo * 3_600_000).toISOString());

  test('the rows are spread over both shards', async () => {
    const [a, b] = await perShard(admins, db, 'edge_logs');
    assert.ok(a! > 300 && b! > 300, `edge_logs per shard: ${a}, ${b}`);
  });

  test('logs.all and usage.api-counts, every parameter combination: the same bytes', async () => {
    const paths: string[] = [];
    for (const project of [...DEMO_PROJECTS, 'nobody']) {
      for (const window of ['', `&iso_timestamp_start=${range(30)}`, `&iso_timestamp_start=${range(100)}&iso_timestamp_end=${range(2)}`]) paths.push(`/api/endpoints/query/logs.all?project=${project}${window}`);
    }
    for (const interval of ['hourly', 'daily', 'minutely', '1hr', '1day', '7day']) {
      for (const pattern of ['default', '.', 'acme']) paths.push(`/api/endpoints/query/usage.api-counts?interval=${interval}&project=${encodeURIComponent(pattern)}`);
    }
    let rows = 0;
    for (const path of paths) {
      const { pg: p, ch: c } = await both(path);
      assert.equal(c.status, 200, `${path}: ${c.text.slice(0, 300)}`);
      assert.equal(c.text, p.text, path);
      rows += (JSON.parse(p.text) as { result: unknown[] }).result.length;
    }
    assert.ok(rows > 500, `the calls returned rows (${rows})`);
  });

  test('Studio\'s sql calls (BigQuery, translated and printed for ClickHouse): the same answers over the Distributed tables', async () => {
    const iso = (ms: number) => new Date(Date.now() - ms).toISOString();
    const outcomes = new Map<string, number>();
    for (const c of studioKit().filter((q) => typeof q.sql === 'string')) {
      const params: Record<string, string> = {};
      for (const [k, v] of Object.entries(c.params)) params[k] = v.replace('{{now-1h}}', iso(3_600_000));
      params.sql = c.sql!.replace('{{now-7h}}', iso(7 * 3_600_000)).replace(/\{\{(\w+) row id\}\}/, 'x');
      const { pg: p, ch: h } = await both(`/api/endpoints/query/${c.endpoint}?${new URLSearchParams(params)}`);
      assert.ok(h.status < 500, `${c.name}: ${h.status} ${h.text.slice(0, 300)}`);
      const outcome = REFUSED_ON_CLICKHOUSE[c.name] !== undefined ? 'refused (declared)' : agreement(p, h, 1000);
      assert.ok(['same', 'same rows', 'same count', 'same error', 'both refuse', 'same measure', 'refused (declared)'].includes(outcome), `${c.name}: ${outcome}`);
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    assert.ok((outcomes.get('same') ?? 0) >= 20, JSON.stringify(Object.fromEntries(outcomes)));
  });

  test('Vector\'s batches through ingest land on both shards and answer as on PostgreSQL (ids aside); a resent batch is kept once', async () => {
    const at = new Date(Date.now() - 5 * 60_000);
    const batches = vectorBatches(containerLines(at));
    for (const { route, events } of batches) {
      for (const base of [pgSvc.url, chSvc.url]) {
        const res = await post(base, route.sourceName, JSON.stringify(events));
        assert.equal(res.status, 200, `${route.sourceName}: ${await res.clone().text()}`);
      }
    }
    const edge = batches.reduce((a, b) => (b.events.length > a.events.length ? b : a));
    const before = await perShard(admins, db, edge.route.table);
    assert.equal((await post(chSvc.url, edge.route.sourceName, JSON.stringify(edge.events))).status, 200);
    assert.deepEqual(await perShard(admins, db, edge.route.table), before, 'the resent batch was not stored again on either shard');
    const path = `/api/endpoints/query/logs.all?project=default&iso_timestamp_start=${encodeURIComponent(new Date(at.getTime() - 1000).toISOString())}`;
    const { pg: p, ch: c } = await both(path);
    assert.ok((JSON.parse(p.text) as { result: unknown[] }).result.length >= 1, p.text.slice(0, 200));
    assert.equal(withoutIds(c.text), withoutIds(p.text));
  });

  test('a stopped node: /ready and calls answer 503 with Retry-After, never a 500, promptly; once it is back, the same answers as before', async () => {
    const node = (await cluster()).nodes[1]!;
    const path = '/api/endpoints/query/logs.all?project=default';
    const healthy = (await both(path)).ch.text;
    const at = Date.now() - 60_000;
    const outage = Array.from({ length: 40 }, (_, i) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, event_message: `outage-${i}`, timestamp: new Date(at - i).toISOString(), project: 'default', metadata: { request: { url: `https://default.example.co/rest/v1/outage?i=${i}`, path: '/rest/v1/outage' } } }));
    await node.stop();
    try {
      const startedAt = Date.now();
      // Values no call has used yet: not answered from the cache.
      const fresh = encodeURIComponent(new Date(Date.now() - 987_654_321).toISOString());
      for (const p of [`${path}&iso_timestamp_start=${fresh}`, `${path}&sql=${encodeURIComponent('select count(*) as stopped from edge_logs')}`, '/api/endpoints/query/usage.api-counts?interval=hourly&project=stopped']) {
        const res = await call(chSvc.url, p);
        const text = await res.text();
        assert.equal(res.status, 503, `${p}: ${text.slice(0, 300)}`);
        assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, 'database_unavailable', text);
        assert.ok(res.headers.get('retry-after'), p);
      }
      assert.equal((await fetch(`${chSvc.url}/ready`)).status, 503);
      // Ingest: refused as unavailable (the live shard may keep its part of the batch), so Vector
      // sends the batch again; below, that resend completes it exactly once.
      const res = await post(chSvc.url, 'cloudflare.logs.prod', JSON.stringify(outage));
      assert.equal(res.status, 503, await res.text());
      assert.ok(res.headers.get('retry-after'));
      assert.ok(Date.now() - startedAt < 15_000, `answered in ${Date.now() - startedAt} ms`);
    } finally {
      await node.start();
    }
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await fetch(`${chSvc.url}/ready`)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(status, 200, '/ready after the node is back');
    const count = async () => (await perShard(admins, db, 'edge_logs')).reduce((a, b) => a + b, 0);
    const before = await count();
    assert.equal((await post(chSvc.url, 'cloudflare.logs.prod', JSON.stringify(outage))).status, 200);
    const stored = await count();
    assert.ok(stored - before <= outage.length, `the resend stored ${stored - before} rows of ${outage.length}`);
    const marks = Number((await (await admins[0]!.query({ query: `SELECT count() AS n FROM ${db}.edge_logs WHERE event_message LIKE 'outage-%'`, format: 'JSON' })).json<{ n: string }>()).data[0]!.n);
    assert.equal(marks, outage.length, 'every event of the batch stored once, on whichever shard');
    // PostgreSQL gets the batch too: the cluster's answers after the outage are PostgreSQL's.
    assert.equal((await post(pgSvc.url, 'cloudflare.logs.prod', JSON.stringify(outage))).status, 200);
    const after = await both(`${path}&iso_timestamp_end=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
    assert.equal(after.ch.status, 200);
    assert.equal(withoutIds(after.ch.text), withoutIds(after.pg.text));
    assert.ok(after.ch.text.includes('"outage-0"') && after.ch.text !== healthy);
  });
});
