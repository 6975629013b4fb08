/** usage.api-counts computed independently in JS from rows, for comparing with what the service answers. */

export type UsageRow = { timestamp: string; total_rest_requests: number; total_storage_requests: number; total_auth_requests: number; total_realtime_requests: number };
export type UsageInterval = 'hourly' | 'daily' | 'minutely';

/** An edge request as the reference needs it: epoch ms, and the URL and path (absent: null). */
export interface UsageInput {
  ts: number;
  url: string | null;
  path: string | null;
}

const SPAN_MS: Record<UsageInterval, number> = { hourly: 3600e3, daily: 7 * 86400e3, minutely: 3600e3 };
const BUCKET_MS: Record<UsageInterval, number> = { hourly: 3600e3, daily: 86400e3, minutely: 60e3 };

/** What usage.api-counts must return for `rows` at `now` (docs/stored-queries.md). */
export function expectedUsage(rows: readonly UsageInput[], now: number, interval: UsageInterval, project: RegExp): UsageRow[] {
  const buckets = new Map<number, UsageRow>();
  for (const r of rows) {
    if (r.ts < now - SPAN_MS[interval] || r.url === null || !project.test(r.url)) continue;
    const b = Math.floor(r.ts / BUCKET_MS[interval]) * BUCKET_MS[interval];
    const row = buckets.get(b) ?? { timestamp: new Date(b).toISOString().replace('.000Z', '.000000Z'), total_rest_requests: 0, total_storage_requests: 0, total_auth_requests: 0, total_realtime_requests: 0 };
    const path = r.path ?? '';
    if (path.includes('/rest')) row.total_rest_requests++;
    if (path.includes('/storage')) row.total_storage_requests++;
    if (path.includes('/auth')) row.total_auth_requests++;
    if (path.includes('/realtime')) row.total_realtime_requests++;
    buckets.set(b, row);
  }
  return [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
}
