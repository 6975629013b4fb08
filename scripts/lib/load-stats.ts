/**
 * Counters and a latency histogram for load runs, in constant memory (a soak run makes millions of
 * calls; keeping every latency would grow the very heap it measures).
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

export class LoadStats {
  private readonly histogram = new Uint32Array(BUCKETS);
  private count = 0;
  private max = 0;
  private readonly status = new Map<string, number>();
  private readonly codes = new Map<string, number>();
  private readonly labels = new Map<string, Map<string, number>>();
  private readonly transport = new Map<string, number>();

  add(r: CallResult): void {
    this.count++;
    this.max = Math.max(this.max, r.ms);
    const bucket = r.ms <= FLOOR_MS ? 0 : Math.min(BUCKETS - 1, Math.ceil(Math.log(r.ms / FLOOR_MS) / Math.log(GROWTH)));
    this.histogram[bucket]!++;
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
      requests: this.count,
      seconds,
      perSecond: seconds > 0 ? this.count / seconds : 0,
      p50Ms: this.percentile(50),
      p99Ms: this.percentile(99),
      maxMs: this.max,
      byStatus: Object.fromEntries(this.status),
      byCode: Object.fromEntries(this.codes),
      byLabel: Object.fromEntries([...this.labels].map(([label, m]) => [label, Object.fromEntries(m)])),
      transportErrors: Object.fromEntries(this.transport),
    };
  }

  /** Upper edge of the bucket holding the p-th percentile. */
  private percentile(p: number): number {
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
