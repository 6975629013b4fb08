/**
 * Studio's other analytics names on every engine (docs/logflare-compat.md): rows of every source
 * go in through the ingest API, and each name is called with Studio's own request
 * (test/fixtures/studio-analytics.json). Every answer is held to what Studio's code parses (the
 * zod schema of project.metrics, the service-health row type) and to counts made from the fixture
 * by the reference in test/support/studio-health.ts, never from the service's own output.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { EngineFactory, TestStore } from '../support/engines.ts';
import { startOpsService, type OpsService } from '../support/ops.ts';
import { call } from '../support/service.ts';
import {
  expectedCombinedStats, expectedProjectMetrics, expectedServiceHealth, metricsRowProblem, SERVICE_HEALTH_SOURCES,
  type FixtureRow, type Json, type Unit,
} from '../support/studio-health.ts';
import { INGEST_TOKEN, post } from './ingest.ts';

interface StudioRequest { name: string; params: Record<string, string>[] }
const REQUESTS: StudioRequest[] = JSON.parse(readFileSync(new URL('../fixtures/studio-analytics.json', import.meta.url), 'utf8')).requests;
const paramsOf = (name: string) => REQUESTS.find((r) => r.name === name)!.params;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const F1 = 'f1000000-0000-4000-8000-000000000001';
const F2 = 'f2000000-0000-4000-8000-000000000002';

/**
 * Rows of every source in project `default` (and a few in `other`, which no answer may count),
 * minutes before `now`: every classification rule and its edge (a status as text, no status, an
 * error level beside a 4xx status), and none within a minute of a window's edge except the two
 * placed exactly on service-health's bounds.
 */
function fixture(now: number): FixtureRow[] {
  const rows: FixtureRow[] = [];
  const add = (source: string, minutesAgo: number[], project: string, metadata: Json) => {
    for (const m of minutesAgo) rows.push({ source, at: now - m * MINUTE, project, metadata });
  };
  const spread = [2, 7, 20, 40, 95, 130, 200, 600, 2000, 5000];
  for (const [i, status] of [200, 201, 302, 404, 429, 500, 503, '500', 'n/a', null].entries()) {
    add('edge_logs', [spread[i]!, spread[(i + 3) % 10]!], 'default', status === null ? { request: { path: '/rest/v1/x' } } : { request: { path: '/rest/v1/x' }, response: { status_code: status } });
  }
  add('edge_logs', [7, 95], 'other', { response: { status_code: 500 } });
  for (const [i, severity] of ['LOG', 'WARNING', 'ERROR', 'FATAL', 'PANIC', 'NOTICE', undefined].entries()) {
    add('postgres_logs', [spread[i]!, spread[i + 2]!], 'default', severity === undefined ? { host: 'db' } : { parsed: { error_severity: severity } });
  }
  for (const [i, m] of [
    { level: 'info', status: 200 }, { level: 'error', status: 200 }, { level: 'info', status: 404 }, { level: 'warning', status: 500 },
    { level: 'warning' }, { level: 'fatal' }, { level: 'info', status: 'n/a' }, { level: 'info', status: '503' },
  ].entries()) add('auth_logs', [spread[i]!, spread[i + 1]!], 'default', m);
  add('auth_logs', [20], 'other', { level: 'error' });
  for (const [i, status] of [200, 404, 500, '401', undefined].entries()) {
    add('postgrest_logs', [spread[i]!, spread[i + 4]!], 'default', status === undefined ? {} : { status_code: status });
  }
  for (const [i, m] of [{ level: 'info', res: { statusCode: 200 } }, { level: 'error', res: { statusCode: 500 } }, { level: 'info', res: { statusCode: 404 } }, { level: 'warn' }, { level: 'info' }].entries()) {
    add('storage_logs', [spread[i]!, spread[i + 5]!], 'default', { project: 'default', ...m });
  }
  add('storage_logs', [40], 'other', { project: 'other', level: 'error' });
  for (const [i, level] of ['info', 'warning', 'error', 'debug'].entries()) add('realtime_logs', [spread[i]!, spread[i + 4]!], 'default', { project: 'default', level });
  for (const [i, [fn, status, ms]] of ([[F1, 200, 10], [F1, 201, 30], [F1, 301, 5], [F1, 404, 8], [F1, 500, 120], [F2, 200, 7], [F1, 200, 'slow']] as const).entries()) {
    add('function_edge_logs', [spread[i]!, spread[(i + 1) % 10]!], 'default', { project_ref: 'default', function_id: fn, execution_time_ms: ms, response: { status_code: status } });
  }
  add('function_edge_logs', [2], 'other', { project_ref: 'other', function_id: F1, response: { status_code: 500 } });
  for (const [i, m] of [
    { level: 'log' }, { level: 'info' }, { level: 'warning' }, { level: 'error' }, { level: 'fatal' },
    { level: 'info', event_type: 'Shutdown', cpu_time_used: 12.5, memory_used: { total: 3_145_728, heap: 2_097_152, external: 1_048_576 } },
    { level: 'info', event_type: 'Shutdown', cpu_time_used: 7.5, memory_used: { total: 1_048_576, heap: 524_288, external: 524_288 } },
  ].entries()) add('function_logs', [spread[i]!, spread[i + 1]!], 'default', { project_ref: 'default', function_id: F1, ...m });
  add('function_logs', [7], 'default', { project_ref: 'default', function_id: F2, level: 'error' });
  // Ten days ago: the previous window of 7day.
  add('postgres_logs', [14_400], 'default', { parsed: { error_severity: 'ERROR' } });
  add('realtime_logs', [14_401], 'default', { project: 'default', level: 'info' });
  return rows;
}

export function studioAnalyticsBehaviour(factory: EngineFactory): void {
  describe(`Studio's analytics names on ${factory.name}`, () => {
    let store: TestStore;
    let svc: OpsService;
    let base: string;
    const now = Date.now();
    const rows = fixture(now);
    // service-health's explicit window, with a row exactly on each bound: the start is excluded, the end included.
    const start = now - 180 * MINUTE;
    const end = now - MINUTE;
    rows.push({ source: 'edge_logs', at: start, project: 'default', metadata: { response: { status_code: 500 } } });
    rows.push({ source: 'edge_logs', at: end, project: 'default', metadata: { response: { status_code: 404 } } });
    const iso = (ms: number) => new Date(ms).toISOString();
    const fill = (params: Record<string, string>) =>
      Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v
        .replace('{{now}}', iso(now)).replace('{{now-1h}}', iso(now - HOUR)).replace('{{now-1d}}', iso(now - DAY)).replace('{{now-7d}}', iso(now - 7 * DAY))
        .replace('{{function id}}', F1)]));

    before(async () => {
      store = await factory.open({ responseShape: 'logflare' });
      svc = await startOpsService(store, { INGEST_TOKENS: INGEST_TOKEN, COMPAT: 'logflare' });
      base = svc.url;
      const bySource = new Map<string, Json[]>();
      for (const r of rows) {
        const event: Json = { timestamp: iso(r.at), event_message: `${r.source} row`, metadata: r.metadata };
        if (!['function_edge_logs', 'function_logs', 'realtime_logs', 'storage_logs'].includes(r.source)) event.project = r.project;
        bySource.set(r.source, [...(bySource.get(r.source) ?? []), event]);
      }
      for (const [source, events] of bySource) {
        const res = await post(base, source, JSON.stringify(events));
        assert.equal(res.status, 200, `${source}: ${await res.text()}`);
      }
    });
    after(async () => {
      await svc?.close();
      await store?.teardown();
    });

    const get = async (name: string, params: Record<string, string>) => {
      const res = await call(base, `/api/endpoints/query/${name}?${new URLSearchParams(params)}`);
      return { status: res.status, body: (await res.json()) as Json };
    };

    test("service-health: Studio's three requests answer its row type, each source's counts those of the fixture's rows in the window", async () => {
      const units: Record<string, Unit> = { minute: 'minute', hour: 'hour', day: 'day' };
      for (const p of paramsOf('service-health')) {
        const params = fill(p);
        const { status, body } = await get('service-health', params);
        assert.equal(status, 200, JSON.stringify(body));
        const result = body.result as Json[];
        for (const row of result) {
          assert.deepEqual(Object.keys(row), ['timestamp', ...SERVICE_HEALTH_SOURCES]);
          assert.equal(typeof row.timestamp, 'string');
          for (const source of SERVICE_HEALTH_SOURCES) {
            const c = row[source];
            // Studio's extractServiceRows reads row[source]?.ok: a plain object, not Logflare's [{…}].
            assert.deepEqual(Object.keys(c).sort(), ['error', 'ok', 'total', 'warning'], `${source}: ${JSON.stringify(c)}`);
            assert.equal(c.total, c.ok + c.warning + c.error);
          }
          assert.deepEqual([row.supavisor_logs, row.etl_replication_logs], [{ ok: 0, error: 0, total: 0, warning: 0 }, { ok: 0, error: 0, total: 0, warning: 0 }]);
        }
        const expected = expectedServiceHealth(rows, 'default', Date.parse(params.iso_timestamp_start!), Date.parse(params.iso_timestamp_end!), units[params.granularity!]!);
        assert.deepEqual(result, expected, params.granularity);
        assert.ok(expected.length > 0);
      }
      // The explicit window: the row on its start is left out, the one on its end counted.
      const { body } = await get('service-health', { project: 'default', iso_timestamp_start: iso(start), iso_timestamp_end: iso(end), granularity: 'hour' });
      assert.deepEqual(body.result, expectedServiceHealth(rows, 'default', start, end, 'hour'));
      const edge = (body.result as Json[]).reduce((sum, r) => sum + r.edge_logs.total, 0);
      assert.equal(edge, rows.filter((r) => r.source === 'edge_logs' && r.project === 'default' && r.at > start && r.at <= end).length);
    });

    test("project.metrics: every row passes Studio's zod schema, and the current and previous windows count the fixture's rows", async () => {
      const spans: Record<string, [number, Unit]> = { '1hr': [HOUR, 'minute'], '1day': [DAY, 'hour'], '7day': [7 * DAY, 'day'] };
      for (const p of paramsOf('project.metrics')) {
        const params = fill(p);
        const { status, body } = await get('project.metrics', params);
        assert.equal(status, 200, JSON.stringify(body));
        const result = body.result as Json[];
        for (const row of result) assert.equal(metricsRowProblem(row), undefined, JSON.stringify(row));
        const [span, unit] = spans[params.interval!]!;
        const stop = params.iso_timestamp_end ? Date.parse(params.iso_timestamp_end) : now;
        const from = params.iso_timestamp_start ? Date.parse(params.iso_timestamp_start) : stop - span;
        const expected = expectedProjectMetrics(rows, 'default', from, stop, unit);
        assert.deepEqual(result, expected, params.interval);
        assert.ok(expected.some((r) => r.time_window === 'previous') && expected.some((r) => r.time_window === 'current'), params.interval);
      }
      // A window given by its bounds: the previous one is as long, and ends where it starts.
      const from = now - 150 * MINUTE, stop = now - 30 * MINUTE;
      const { body } = await get('project.metrics', { project: 'default', interval: '1day', iso_timestamp_start: iso(from), iso_timestamp_end: iso(stop) });
      assert.deepEqual(body.result, expectedProjectMetrics(rows, 'default', from, stop, 'hour'));
    });

    test("functions.combined-stats: Studio's requests answer one function's invocations, worker logs, CPU and memory per bucket", async () => {
      const spans: Record<string, [number, Unit]> = { '15min': [15 * MINUTE, 'minute'], '1day': [DAY, 'hour'] };
      for (const p of paramsOf('functions.combined-stats')) {
        const params = fill(p);
        const { status, body } = await get('functions.combined-stats', params);
        assert.equal(status, 200, JSON.stringify(body));
        const [span, unit] = spans[params.interval!]!;
        const expected = expectedCombinedStats(rows, 'default', F1, now - span, unit);
        assert.deepEqual(body.result, expected, params.interval);
        assert.ok(expected.length > 0);
      }
      const day = (await get('functions.combined-stats', { project: 'default', function_id: F1, interval: '1day' })).body.result as Json[];
      assert.deepEqual([Math.max(...day.map((r) => r.max_cpu_time_used)), Math.max(...day.map((r) => r.avg_heap_memory_used))], [12.5, 2]);
    });

    test('usage.api-requests-count: the project\'s requests of the last 24 hours', async () => {
      const { status, body } = await get('usage.api-requests-count', fill(paramsOf('usage.api-requests-count')[0]!));
      assert.equal(status, 200, JSON.stringify(body));
      const expected = rows.filter((r) => r.source === 'edge_logs' && r.project === 'default' && r.at > now - DAY).length;
      assert.deepEqual(body.result, [{ count: expected }]);
      assert.deepEqual((await get('usage.api-requests-count', { project: 'nobody' })).body.result, [{ count: 0 }]);
    });

    test('bad parameters are a 400 naming the parameter, never a 500', async () => {
      const cases: { name: string; endpoint: string; params: Record<string, string>; param: string }[] = [
        { name: 'granularity not Studio\'s', endpoint: 'service-health', params: { project: 'default', iso_timestamp_start: iso(start), iso_timestamp_end: iso(end), granularity: 'week' }, param: 'granularity' },
        { name: 'no window', endpoint: 'service-health', params: { project: 'default', granularity: 'hour' }, param: 'iso_timestamp_start' },
        { name: 'a window bound that is not a time', endpoint: 'service-health', params: { project: 'default', iso_timestamp_start: 'yesterday', iso_timestamp_end: iso(end), granularity: 'hour' }, param: 'iso_timestamp_start' },
        { name: 'Studio\'s undefined start', endpoint: 'project.metrics', params: { project: 'default', interval: '1hr', iso_timestamp_start: 'undefined' }, param: 'iso_timestamp_start' },
        { name: 'interval not Studio\'s', endpoint: 'project.metrics', params: { project: 'default', interval: '2hr' }, param: 'interval' },
        { name: 'no function', endpoint: 'functions.combined-stats', params: { project: 'default', interval: '1hr' }, param: 'function_id' },
        { name: 'no project', endpoint: 'usage.api-requests-count', params: {}, param: 'project' },
      ];
      for (const c of cases) {
        const { status, body } = await get(c.endpoint, c.params);
        assert.equal(status, 400, `${c.name}: ${JSON.stringify(body)}`);
        assert.equal(body.error.param, c.param, c.name);
      }
    });
  });
}
