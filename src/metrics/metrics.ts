/**
 * Prometheus metrics, written by hand in the text exposition format (version 0.0.4): a few counters
 * and histograms recorded on the request path, plus gauges read from their owners at scrape time.
 * Every label value comes from a bounded set (routes, stored query names, status codes), so the
 * number of series cannot grow with what callers send.
 */
import type { CacheStats } from '../query/cache/result-cache.ts';
import type { PoolStats } from '../store/engine.ts';
import type { QueryOutcome } from '../store/metered-engine.ts';
import { QUEUE_CLASSES, type QueueClass, type QueueObserver, type QueueRejection, type QueueStats } from '../queue/fair-queue.ts';

export const INGEST_OUTCOMES = ['received', 'stored', 'duplicate', 'rejected', 'dropped'] as const;
export type IngestOutcome = (typeof INGEST_OUTCOMES)[number];

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Seconds; request and statement latencies of a log-query service span milliseconds to the statement timeout. */
const BUCKETS = Object.freeze([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]);

type Labels = Readonly<Record<string, string>>;

/** Values read when scraped rather than counted as they happen. */
export interface MetricsSources {
  cache(): CacheStats;
  pool(): PoolStats;
  inFlight(): number;
  queue(): QueueStats;
}

/** One finished HTTP request. `query` is the stored query's name ('' when none was resolved). */
export interface RequestObservation {
  route: string;
  query: string;
  status: number;
  durationMs: number;
}

/** The service's metrics; one instance per service, passed down explicitly. */
export class Metrics {
  /** Route → stored query → its series: a request finds its own with three lookups on strings it already has. */
  private readonly requestSeries = new Map<string, Map<string, RequestSeries>>();
  private readonly requests = new Counter();
  private readonly requestSeconds = new Histogram();
  private readonly rejected = new Counter();
  private readonly dbQueries = new Counter();
  private readonly dbSeconds = new Histogram();
  private readonly ingestEvents = new Counter();
  private readonly ingestBytes = new Counter();
  private readonly queueWait = new Histogram();
  private readonly queueRejections = new Counter();
  private readonly queueAbandoned = new Counter();
  /** What the fair queues report as it happens (queue/fair-queue.ts); labelled by class, never by token. */
  readonly queueObserver: QueueObserver = Object.freeze({
    waited: (cls: QueueClass, ms: number) => this.queueWait.observe({ class: cls }, ms / 1000),
    rejected: (cls: QueueClass, reason: QueueRejection) => this.queueRejections.inc({ class: cls, reason }),
    abandoned: (cls: QueueClass) => this.queueAbandoned.inc({ class: cls }),
  });
  private readonly startedAtSeconds: number;

  constructor(now: () => number = Date.now) {
    this.startedAtSeconds = now() / 1000;
  }

  /** Count a finished request and its latency. */
  observeRequest(r: RequestObservation): void {
    let byQuery = this.requestSeries.get(r.route);
    if (byQuery === undefined) this.requestSeries.set(r.route, (byQuery = new Map()));
    let series = byQuery.get(r.query);
    if (series === undefined) byQuery.set(r.query, (series = { seconds: this.requestSeconds.at({ route: r.route, query: r.query }), byStatus: new Map() }));
    let count = series.byStatus.get(r.status);
    if (count === undefined) series.byStatus.set(r.status, (count = this.requests.at({ route: r.route, query: r.query, status: String(r.status) })));
    count.value++;
    observeInto(series.seconds, r.durationMs / 1000);
  }

  /** Count a connection node:http cut before a request reached the handler (timeouts, oversized or malformed headers). */
  observeRejected(reason: string): void {
    this.rejected.inc({ reason });
  }

  /** Count a database statement and its duration. */
  observeDbQuery(outcome: QueryOutcome, durationMs: number): void {
    this.dbQueries.inc({ outcome });
    this.dbSeconds.observe({}, durationMs / 1000);
  }

  /**
   * Count one ingest request's events by what became of them (labels: the table, a fixed set of
   * nine, and the outcome), and its decompressed body bytes.
   */
  observeIngest(table: string, counts: Readonly<Record<IngestOutcome, number>>, bytes: number): void {
    for (const outcome of INGEST_OUTCOMES) if (counts[outcome] > 0) this.ingestEvents.inc({ source: table, outcome }, counts[outcome]);
    this.ingestBytes.inc({ source: table }, bytes);
  }

  /** The exposition text. */
  render(sources: MetricsSources): string {
    const cache = sources.cache();
    const pool = sources.pool();
    const out: string[] = [];
    const family = (name: string, type: 'counter' | 'gauge' | 'histogram', help: string, lines: string[]) => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...lines);
    };
    const single = (name: string, value: number) => [`${name} ${formatNumber(value)}`];

    family('endpoints_http_requests_total', 'counter', 'HTTP requests by route, stored query and status (499: client went away first).', this.requests.lines('endpoints_http_requests_total'));
    family('endpoints_http_request_duration_seconds', 'histogram', 'HTTP request latency by route and stored query.', this.requestSeconds.lines('endpoints_http_request_duration_seconds'));
    family('endpoints_http_requests_in_flight', 'gauge', 'HTTP requests being handled.', single('endpoints_http_requests_in_flight', sources.inFlight()));
    family('endpoints_http_rejected_total', 'counter', 'Connections answered by the HTTP layer before reaching the handler, by reason.', this.rejected.lines('endpoints_http_rejected_total'));

    family('endpoints_cache_hits_total', 'counter', 'Stored-query calls answered from the result cache.', single('endpoints_cache_hits_total', cache.hits));
    family('endpoints_cache_misses_total', 'counter', 'Calls of cached stored queries that ran the query (stored queries with caching disabled bypass the cache).', single('endpoints_cache_misses_total', cache.misses));
    family('endpoints_cache_coalesced_total', 'counter', 'Calls that waited for another caller\'s identical query instead of running their own.', single('endpoints_cache_coalesced_total', cache.coalesced));
    family('endpoints_cache_refreshes_total', 'counter', 'Background cache-warming refreshes that succeeded.', single('endpoints_cache_refreshes_total', cache.refreshes));
    family('endpoints_cache_refresh_failures_total', 'counter', 'Background cache-warming refreshes that failed (the old entry is kept).', single('endpoints_cache_refresh_failures_total', cache.refreshFailures));
    family('endpoints_cache_evictions_total', 'counter', 'Entries dropped to respect CACHE_MAX_ENTRIES / CACHE_MAX_BYTES.', single('endpoints_cache_evictions_total', cache.evictions));
    family('endpoints_cache_entries', 'gauge', 'Entries in the result cache.', single('endpoints_cache_entries', cache.entries));
    family('endpoints_cache_bytes', 'gauge', 'Bytes held by the result cache (bodies and keys).', single('endpoints_cache_bytes', cache.bytes));

    family('endpoints_db_queries_total', 'counter', 'Database statements by outcome (cancelled: the caller went away).', this.dbQueries.lines('endpoints_db_queries_total'));
    family('endpoints_db_query_duration_seconds', 'histogram', 'Database statement duration, including the wait for a connection.', this.dbSeconds.lines('endpoints_db_query_duration_seconds'));
    family('endpoints_db_pool_connections', 'gauge', 'Database connections by state.', [
      `endpoints_db_pool_connections{state="in_use"} ${formatNumber(pool.total - pool.idle)}`,
      `endpoints_db_pool_connections{state="idle"} ${formatNumber(pool.idle)}`,
    ]);
    family('endpoints_db_pool_waiting', 'gauge', 'Statements waiting for a database connection.', single('endpoints_db_pool_waiting', pool.waiting));
    family('endpoints_db_pool_max', 'gauge', 'Most database connections the service opens (POOL_MAX).', single('endpoints_db_pool_max', pool.max));

    const queue = sources.queue();
    const byClass = (name: string, pick: (s: QueueStats[QueueClass]) => number) => QUEUE_CLASSES.map((c) => `${name}{class="${c}"} ${formatNumber(pick(queue[c]))}`);
    family('endpoints_queue_waiting', 'gauge', 'Calls waiting for a database connection, by class (query, ingest, warming, retention).', byClass('endpoints_queue_waiting', (s) => s.waiting));
    family('endpoints_queue_running', 'gauge', 'Statements running on a connection the queue gave, by class.', byClass('endpoints_queue_running', (s) => s.running));
    family('endpoints_queue_wait_seconds', 'histogram', 'How long a turn waited for a connection (0 when one was free), by class.', this.queueWait.lines('endpoints_queue_wait_seconds'));
    family('endpoints_queue_rejections_total', 'counter', 'Calls refused by the queue, by class and reason (token_queue_full: 429; queue_full: 503; queue_timeout: 429 or 503).', this.queueRejections.lines('endpoints_queue_rejections_total'));
    family('endpoints_queue_abandoned_total', 'counter', 'Calls whose caller went away while they waited, by class.', this.queueAbandoned.lines('endpoints_queue_abandoned_total'));

    family('endpoints_ingest_events_total', 'counter', 'Ingested events by table and outcome: received, stored, duplicate (id already stored), rejected, dropped (over an hour in the future).', this.ingestEvents.lines('endpoints_ingest_events_total'));
    family('endpoints_ingest_bytes_total', 'counter', 'Ingest request body bytes (decompressed) by table.', this.ingestBytes.lines('endpoints_ingest_bytes_total'));

    family('process_start_time_seconds', 'gauge', 'Start time of the process since the Unix epoch in seconds.', single('process_start_time_seconds', this.startedAtSeconds));
    family('process_resident_memory_bytes', 'gauge', 'Resident memory size in bytes.', single('process_resident_memory_bytes', process.memoryUsage.rss()));
    return out.join('\n') + '\n';
  }
}

interface CounterSeries {
  readonly labels: Labels;
  value: number;
}

interface HistogramSeries {
  readonly labels: Labels;
  readonly counts: number[];
  sum: number;
  count: number;
}

interface RequestSeries {
  readonly seconds: HistogramSeries;
  readonly byStatus: Map<number, CounterSeries>;
}

/** Series of one counter, keyed by their label set. */
class Counter {
  private readonly series = new Map<string, CounterSeries>();

  /** The series of this label set, created at zero on first use. */
  at(labels: Labels): CounterSeries {
    const key = labelKey(labels);
    let s = this.series.get(key);
    if (s === undefined) this.series.set(key, (s = { labels, value: 0 }));
    return s;
  }

  inc(labels: Labels, by = 1): void {
    this.at(labels).value += by;
  }

  lines(name: string): string[] {
    return [...this.series.values()].map((s) => `${name}${formatLabels(s.labels)} ${formatNumber(s.value)}`);
  }
}

/** Series of one histogram with the fixed BUCKETS; buckets are cumulative when written. */
class Histogram {
  private readonly series = new Map<string, HistogramSeries>();

  /** The series of this label set, created empty on first use. */
  at(labels: Labels): HistogramSeries {
    const key = labelKey(labels);
    let s = this.series.get(key);
    if (s === undefined) this.series.set(key, (s = { labels, counts: BUCKETS.map(() => 0), sum: 0, count: 0 }));
    return s;
  }

  observe(labels: Labels, value: number): void {
    observeInto(this.at(labels), value);
  }

  lines(name: string): string[] {
    const out: string[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      BUCKETS.forEach((le, i) => {
        cumulative += s.counts[i]!;
        out.push(`${name}_bucket${formatLabels({ ...s.labels, le: String(le) })} ${cumulative}`);
      });
      out.push(`${name}_bucket${formatLabels({ ...s.labels, le: '+Inf' })} ${s.count}`);
      out.push(`${name}_sum${formatLabels(s.labels)} ${formatNumber(s.sum)}`);
      out.push(`${name}_count${formatLabels(s.labels)} ${s.count}`);
    }
    return out;
  }
}

function observeInto(s: HistogramSeries, value: number): void {
  for (let i = 0; i < BUCKETS.length; i++) {
    if (value <= BUCKETS[i]!) {
      s.counts[i]!++;
      break;
    }
  }
  s.sum += value;
  s.count++;
}

/**
 * A series' map key. Each metric builds its label objects with the same names in the same order,
 * so the values alone identify the series; NUL never occurs in a label value (route kinds, stored
 * query names, status codes, reasons, outcomes). Called when a series is first used: no JSON, no entries array.
 */
function labelKey(labels: Labels): string {
  let key = '';
  for (const name in labels) key += `${labels[name]}\u0000`;
  return key;
}

/** `{a="x",b="y"}` with the format's escapes (backslash, double quote, newline); empty set → ''. */
export function formatLabels(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  return String(n);
}
