/**
 * The statistics of every load run (bench, load, soak, tests): a latency histogram in constant
 * memory (a soak run makes millions of calls; keeping every latency would grow the very heap it
 * measures), per-status counters, and the median and formatting the bench reports with.
 */

/** One finished call as the load driver saw it. */
export interface CallResult {
  label: string;
  /** 0 when no HTTP answer arrived (see transportError). */
  status: number;
  /** `error.code` of an error body. */
  code: string | null;
  ms: number;
  /** When the call started, in ms since the run started. */
  startedAt: number;
  transportError: string | null;
  retryAfter: string | null;
}

export interface LoadSummary {
  requests: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  byStatus: Record<string, number>;
  byCode: Record<string, number>;
  /** label → status → count */
  byLabel: Record<string, Record<string, number>>;
  transportErrors: Record<string, number>;
}

// Buckets 1% wide from 10 µs up: percentiles are exact to about 1%.
const GROWTH = 1.01;
const FLOOR_MS = 0.01;
const BUCKETS = Math.ceil(Math.log(600_000 / FLOOR_MS) / Math.log(GROWTH)) + 1;

/** Latencies in ms, bucketed 1% wide: percentiles exact to about 1%, memory constant. */
export class LatencyHistogram {
  private readonly histogram = new Uint32Array(BUCKETS);
  count = 0;
  max = 0;

  add(ms: number): void {
    this.count++;
    this.max = Math.max(this.max, ms);
    const bucket = ms <= FLOOR_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / FLOOR_MS) / Math.log(GROWTH)));
    this.histogram[bucket]!++;
  }

  /** Upper edge of the bucket holding the p-th percentile (0 when empty). */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.ceil((p / 100) * this.count);
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.histogram[i]!;
      if (seen >= rank) return Math.min(this.max, FLOOR_MS * GROWTH ** i);
    }
    return this.max;
  }
}

/** Median of a few numbers (mean of the middle two when even); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Fixed-width decimal formatting; "–" for NaN. */
export function fmt(n: number, digits = 2): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '–';
}

export class LoadStats {
  private readonly latencies = new LatencyHistogram();
  private readonly status = new Map<string, number>();
  private readonly codes = new Map<string, number>();
  private readonly labels = new Map<string, Map<string, number>>();
  private readonly transport = new Map<string, number>();

  add(r: CallResult): void {
    this.latencies.add(r.ms);
    const status = r.status === 0 ? 'transport' : String(r.status);
    bump(this.status, status);
    if (r.code !== null) bump(this.codes, r.code);
    if (r.transportError !== null) bump(this.transport, r.transportError);
    let perLabel = this.labels.get(r.label);
    if (!perLabel) this.labels.set(r.label, (perLabel = new Map()));
    bump(perLabel, status);
  }

  summary(seconds: number): LoadSummary {
    return {
      requests: this.latencies.count,
      seconds,
      perSecond: seconds > 0 ? this.latencies.count / seconds : 0,
      p50Ms: this.latencies.percentile(50),
      p99Ms: this.latencies.percentile(99),
      maxMs: this.latencies.max,
      byStatus: Object.fromEntries(this.status),
      byCode: Object.fromEntries(this.codes),
      byLabel: Object.fromEntries([...this.labels].map(([label, m]) => [label, Object.fromEntries(m)])),
      transportErrors: Object.fromEntries(this.transport),
    };
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** The summary as a few human-readable lines. */
export function formatSummary(s: LoadSummary): string {
  const list = (o: Record<string, number>) =>
    Object.entries(o)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || '–';
  const lines = [
    `requests: ${s.requests} in ${s.seconds.toFixed(2)} s = ${s.perSecond.toFixed(0)}/s`,
    `latency ms: p50 ${s.p50Ms.toFixed(2)}, p99 ${s.p99Ms.toFixed(2)}, max ${s.maxMs.toFixed(2)}`,
    `status: ${list(s.byStatus)}`,
    `error codes: ${list(s.byCode)}`,
    `transport errors: ${list(s.transportErrors)}`,
    ...Object.entries(s.byLabel)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([label, counts]) => `  ${label.padEnd(16)} ${list(counts)}`),
  ];
  return lines.join('\n');
}
