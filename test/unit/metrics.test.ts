// The hand-written Prometheus exposition: format, histogram arithmetic, label escaping, gauges read at scrape time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatLabels, Metrics, type MetricsSources } from '../../src/metrics/metrics.ts';
import { parseMetrics } from '../support/ops.ts';

const SOURCES: MetricsSources = {
  cache: () => ({ hits: 7, misses: 3, coalesced: 2, refreshes: 4, refreshFailures: 1, evictions: 5, dbQueries: 8, entries: 6, bytes: 1234 }),
  pool: () => ({ total: 4, idle: 1, waiting: 2, max: 10 }),
  inFlight: () => 3,
  queue: () => ({ query: { waiting: 4, running: 2 }, ingest: { waiting: 1, running: 1 }, warming: { waiting: 0, running: 0 }, retention: { waiting: 0, running: 0 } }),
};

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*")*\})? (-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|[+-]Inf|NaN)$/;

/** Check the text exposition format 0.0.4: HELP and TYPE once per family and before its samples; every sample well formed. */
function checkFormat(text: string): void {
  assert.ok(text.endsWith('\n'));
  const typed = new Map<string, string>();
  for (const line of text.trimEnd().split('\n')) {
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') {
        assert.ok(!typed.has(meta[2]!), `TYPE twice for ${meta[2]}`);
        assert.match(meta[3]!, /^(counter|gauge|histogram|summary|untyped)$/);
        typed.set(meta[2]!, meta[3]!);
      }
      continue;
    }
    const m = SAMPLE.exec(line);
    assert.ok(m, `malformed sample line: ${line}`);
    const name = m[1]!;
    const family = typed.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    assert.ok(typed.has(family), `sample before its TYPE: ${line}`);
    if (family !== name) assert.equal(typed.get(family), 'histogram', line);
    if (typed.get(family) === 'counter') assert.match(name, /_total$/, 'counters end in _total');
  }
}

test('counters, histograms and scrape-time gauges in the text format', () => {
  const m = new Metrics(() => 1_700_000_000_000);
  m.observeRequest({ route: 'query', query: 'logs.all', status: 200, durationMs: 3 });
  m.observeRequest({ route: 'query', query: 'logs.all', status: 200, durationMs: 70 });
  m.observeRequest({ route: 'query', query: 'logs.all', status: 400, durationMs: 40_000 });
  m.observeRequest({ route: 'health', query: '', status: 200, durationMs: 1 });
  m.observeDbQuery('ok', 20);
  m.observeDbQuery('cancelled', 1500);
  m.observeRejected('timeout');
  m.queueObserver.waited('query', 0);
  m.queueObserver.waited('query', 300);
  m.queueObserver.rejected('query', 'token_queue_full');
  m.queueObserver.abandoned('ingest');
  const text = m.render(SOURCES);
  checkFormat(text);
  const s = parseMetrics(text);
  assert.equal(s.get('endpoints_http_requests_total{route="query",query="logs.all",status="200"}'), 2);
  assert.equal(s.get('endpoints_http_requests_total{route="query",query="logs.all",status="400"}'), 1);
  assert.equal(s.get('endpoints_http_requests_total{route="health",query="",status="200"}'), 1);
  // Cumulative buckets: 3 ms ≤ 0.005 s; 70 ms ≤ 0.1 s; 40 s only in +Inf.
  const bucket = (le: string) => s.get(`endpoints_http_request_duration_seconds_bucket{route="query",query="logs.all",le="${le}"}`);
  assert.deepEqual(['0.005', '0.05', '0.1', '30', '+Inf'].map(bucket), [1, 1, 2, 2, 3]);
  assert.equal(s.get('endpoints_http_request_duration_seconds_count{route="query",query="logs.all"}'), 3);
  assert.ok(Math.abs(s.get('endpoints_http_request_duration_seconds_sum{route="query",query="logs.all"}')! - 40.073) < 1e-9);
  assert.equal(s.get('endpoints_db_queries_total{outcome="ok"}'), 1);
  assert.equal(s.get('endpoints_db_queries_total{outcome="cancelled"}'), 1);
  assert.equal(s.get('endpoints_db_query_duration_seconds_bucket{le="2.5"}'), 2);
  assert.equal(s.get('endpoints_db_query_duration_seconds_bucket{le="1"}'), 1);
  assert.equal(s.get('endpoints_http_rejected_total{reason="timeout"}'), 1);
  assert.equal(s.get('endpoints_http_requests_in_flight'), 3);
  const cache: [string, number][] = [['hits_total', 7], ['misses_total', 3], ['coalesced_total', 2], ['refreshes_total', 4], ['refresh_failures_total', 1], ['evictions_total', 5], ['entries', 6], ['bytes', 1234]];
  for (const [name, value] of cache) assert.equal(s.get(`endpoints_cache_${name}`), value, name);
  assert.equal(s.get('endpoints_db_pool_connections{state="in_use"}'), 3);
  assert.equal(s.get('endpoints_db_pool_connections{state="idle"}'), 1);
  assert.equal(s.get('endpoints_db_pool_waiting'), 2);
  assert.equal(s.get('endpoints_db_pool_max'), 10);
  // Queues by class, never by token: scrape-time gauges and what the queues reported.
  assert.equal(s.get('endpoints_queue_waiting{class="query"}'), 4);
  assert.equal(s.get('endpoints_queue_running{class="ingest"}'), 1);
  assert.equal(s.get('endpoints_queue_waiting{class="warming"}'), 0);
  assert.equal(s.get('endpoints_queue_wait_seconds_bucket{class="query",le="0.005"}'), 1);
  assert.equal(s.get('endpoints_queue_wait_seconds_bucket{class="query",le="0.5"}'), 2);
  assert.equal(s.get('endpoints_queue_rejections_total{class="query",reason="token_queue_full"}'), 1);
  assert.equal(s.get('endpoints_queue_abandoned_total{class="ingest"}'), 1);
  assert.equal(s.get('process_start_time_seconds'), 1_700_000_000);
  assert.ok(s.get('process_resident_memory_bytes')! > 0);
});

test('label values are escaped', () => {
  assert.equal(formatLabels({ a: 'x"y\\z\nw' }), '{a="x\\"y\\\\z\\nw"}');
  assert.equal(formatLabels({}), '');
});
