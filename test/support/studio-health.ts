/**
 * The reference for Studio's analytics names (docs/logflare-compat.md), written from Studio's own
 * rules and not from the stored SQL: how a log row counts (ok, warning, error) per source, and the
 * counts service-health, project.metrics and functions.combined-stats answer for rows whose
 * timestamps and metadata the test chose.
 *
 * Classification (apps/studio/components/interfaces/Settings/Logs/Logs.utils.ts getErrorCondition /
 * getWarningCondition, and getAuthLogSeverity for the precedence of an error over a warning):
 * request logs by HTTP status (5xx error, 4xx warning), postgres_logs by parsed.error_severity,
 * auth_logs by level or status, function_logs by level; storage and realtime by their level (and
 * storage's res.statusCode), which Studio's log chart counts as ok but the platform's service health
 * reads ("based on log levels").
 */
export type Health = 'ok' | 'warning' | 'error';
export type Json = Record<string, any>;

/** A fixture row as the test ingests it. */
export interface FixtureRow {
  source: string;
  /** Unix milliseconds. */
  at: number;
  project: string;
  metadata: Json;
}

/** An integer status as BigQuery's SAFE_CAST(x AS INT64) reads it; anything else is no status. */
function status(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d{1,18}$/.test(v)) return Number(v);
  return null;
}

const byStatus = (s: number | null): Health => (s !== null && s >= 500 ? 'error' : s !== null && s >= 400 ? 'warning' : 'ok');

export function classify(source: string, m: Json): Health {
  switch (source) {
    case 'edge_logs':
    case 'function_edge_logs':
      return byStatus(status(m.response?.status_code));
    case 'postgrest_logs':
      return byStatus(status(m.status_code));
    case 'postgres_logs': {
      const sev = m.parsed?.error_severity;
      return ['ERROR', 'FATAL', 'PANIC'].includes(sev) ? 'error' : sev === 'WARNING' ? 'warning' : 'ok';
    }
    case 'auth_logs': {
      const s = status(m.status);
      if (['error', 'fatal'].includes(m.level) || (s !== null && s >= 500)) return 'error';
      return m.level === 'warning' || (s !== null && s >= 400) ? 'warning' : 'ok';
    }
    case 'storage_logs': {
      const s = status(m.res?.statusCode);
      if (['error', 'fatal'].includes(m.level) || (s !== null && s >= 500)) return 'error';
      return ['warning', 'warn'].includes(m.level) || (s !== null && s >= 400) ? 'warning' : 'ok';
    }
    case 'realtime_logs':
      return ['error', 'fatal'].includes(m.level) ? 'error' : ['warning', 'warn'].includes(m.level) ? 'warning' : 'ok';
    case 'function_logs':
      return ['error', 'fatal'].includes(m.level) ? 'error' : m.level === 'warning' ? 'warning' : 'ok';
    default:
      throw new Error(`no rule for ${source}`);
  }
}

/** The project a row belongs to, per source (SPEC 2.5.2, as logs.all reads it). */
export function projectOf(r: FixtureRow): string | undefined {
  if (r.source === 'function_edge_logs' || r.source === 'function_logs') return r.metadata.project_ref;
  if (r.source === 'realtime_logs' || r.source === 'storage_logs') return r.metadata.project;
  return r.project;
}

export type Unit = 'minute' | 'hour' | 'day';
const UNIT_MS: Record<Unit, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
export const bucketOf = (at: number, unit: Unit): number => at - (at % UNIT_MS[unit]);
export const isoBucket = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}.000000Z`;

type Counts = { ok: number; warning: number; error: number; total: number };
const zero = (): Counts => ({ ok: 0, warning: 0, error: 0, total: 0 });

export const SERVICE_HEALTH_SOURCES = ['postgres_logs', 'auth_logs', 'function_edge_logs', 'storage_logs', 'realtime_logs', 'postgrest_logs', 'edge_logs', 'supavisor_logs', 'function_logs', 'etl_replication_logs'] as const;

/** service-health's rows for (start, end] (ms) by `unit`: buckets holding a row of the project. */
export function expectedServiceHealth(rows: readonly FixtureRow[], project: string, start: number, end: number, unit: Unit): Json[] {
  const buckets = new Map<number, Record<string, Counts>>();
  for (const r of rows) {
    if (projectOf(r) !== project || r.at <= start || r.at > end) continue;
    const b = bucketOf(r.at, unit);
    if (!buckets.has(b)) buckets.set(b, Object.fromEntries(SERVICE_HEALTH_SOURCES.map((s) => [s, zero()])));
    const c = buckets.get(b)![r.source]!;
    c[classify(r.source, r.metadata)]++;
    c.total++;
  }
  return [...buckets].sort(([a], [b]) => a - b).map(([b, counts]) => ({ timestamp: isoBucket(b), ...counts }));
}

const SERVICES: Readonly<Record<string, string>> = { postgres_logs: 'db', auth_logs: 'auth', function_edge_logs: 'functions', storage_logs: 'storage', realtime_logs: 'realtime' };

/** project.metrics's rows: current (start, end], previous (start - (end - start), start]. */
export function expectedProjectMetrics(rows: readonly FixtureRow[], project: string, start: number, end: number, unit: Unit): Json[] {
  const out = new Map<string, Json>();
  for (const r of rows) {
    const service = SERVICES[r.source];
    if (service === undefined || projectOf(r) !== project || r.at <= start - (end - start) || r.at > end) continue;
    const window = r.at > start ? 'current' : 'previous';
    const ts = bucketOf(r.at, unit) * 1000;
    const key = `${service}/${window}/${ts}`;
    if (!out.has(key)) out.set(key, { timestamp: ts, service, time_window: window, ok_count: 0, warning_count: 0, error_count: 0 });
    out.get(key)![`${classify(r.source, r.metadata)}_count`]++;
  }
  return [...out.values()].sort((a, b) => a.service.localeCompare(b.service) || a.time_window.localeCompare(b.time_window) || a.timestamp - b.timestamp);
}

const mean = (xs: number[]) => (xs.length === 0 ? 0 : Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000);
const max = (xs: number[]) => (xs.length === 0 ? 0 : Math.max(...xs));
const num = (v: unknown): number[] => (typeof v === 'number' ? [v] : []);
const MB = 1_048_576;

/** functions.combined-stats's rows for one function over (start, ∞) by `unit`. */
export function expectedCombinedStats(rows: readonly FixtureRow[], project: string, functionId: string, start: number, unit: Unit): Json[] {
  const buckets = new Map<number, FixtureRow[]>();
  for (const r of rows) {
    if (!['function_edge_logs', 'function_logs'].includes(r.source) || projectOf(r) !== project || r.metadata.function_id !== functionId || r.at <= start) continue;
    const b = bucketOf(r.at, unit);
    buckets.set(b, [...(buckets.get(b) ?? []), r]);
  }
  return [...buckets].sort(([a], [b]) => a - b).map(([b, rs]) => {
    const requests = rs.filter((r) => r.source === 'function_edge_logs');
    const logs = rs.filter((r) => r.source === 'function_logs');
    const statuses = requests.map((r) => status(r.metadata.response?.status_code));
    const inRange = (lo: number, hi: number) => statuses.filter((s) => s !== null && s >= lo && s <= hi).length;
    const levels = logs.map((r) => r.metadata.level ?? '');
    const exec = requests.flatMap((r) => num(r.metadata.execution_time_ms));
    const cpu = logs.flatMap((r) => num(r.metadata.cpu_time_used));
    const memory = (k: string) => logs.flatMap((r) => num(r.metadata.memory_used?.[k]).map((v) => v / MB));
    return {
      timestamp: isoBucket(b),
      requests_count: requests.length,
      success_count: inRange(200, 299),
      redirect_count: inRange(300, 399),
      client_err_count: inRange(400, 499),
      server_err_count: inRange(500, Infinity),
      avg_execution_time: mean(exec),
      max_execution_time: max(exec),
      log_count: logs.length,
      log_info_count: levels.filter((l) => !['error', 'fatal', 'warning', 'warn'].includes(l)).length,
      log_warn_count: levels.filter((l) => ['warning', 'warn'].includes(l)).length,
      log_error_count: levels.filter((l) => ['error', 'fatal'].includes(l)).length,
      avg_cpu_time_used: mean(cpu),
      max_cpu_time_used: max(cpu),
      avg_memory_used: mean(memory('total')),
      avg_heap_memory_used: mean(memory('heap')),
      avg_external_memory_used: mean(memory('external')),
    };
  });
}

/**
 * Studio's zod schema of a project.metrics row (apps/studio/data/analytics/project-metrics-query.ts
 * MetricsRow), written as a check: the first problem, as zod would report it, or undefined.
 */
export function metricsRowProblem(row: unknown): string | undefined {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return 'Metrics response must be an array of metric rows';
  const r = row as Json;
  const keys = Object.keys(r).sort().join(',');
  if (keys !== 'error_count,ok_count,service,time_window,timestamp,warning_count') return `unexpected keys ${keys}`;
  if (typeof r.timestamp !== 'number') return 'Timestamp must be a number (microseconds since epoch)';
  if (!Number.isInteger(r.timestamp)) return 'Timestamp must be an integer';
  if (r.timestamp <= 0) return 'Timestamp must be positive';
  if (!['auth', 'db', 'functions', 'realtime', 'storage'].includes(r.service)) return 'Service must be one of: auth, db, functions, realtime, storage';
  if (!['current', 'previous'].includes(r.time_window)) return 'Time window must be either "current" or "previous"';
  for (const k of ['ok_count', 'warning_count', 'error_count']) {
    if (typeof r[k] !== 'number') return `${k} must be a number`;
    if (!Number.isInteger(r[k])) return `${k} must be an integer`;
    if (r[k] < 0) return `${k} cannot be negative`;
  }
  return undefined;
}
