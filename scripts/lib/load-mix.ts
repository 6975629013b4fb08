/**
 * The mixed traffic of load runs: both stored queries, cached (a few hot keys) and uncached (a
 * distinct key per call), with and without redaction, GET and POST, some with sandboxed `sql`.
 * Labels name the kind of call so results can be judged per kind.
 */
import type { LoadCall } from './load-driver.ts';
import type { Prng } from '../../src/store/demo/prng.ts';

const REDACT = { 'LF-ENDPOINT-REDACT-PII': 'true' };
const INTERVALS = ['daily', 'hourly', 'minutely'] as const;

/** `projects`: project refs present in the data (the first gets most rows). */
export function mixedCalls(rng: Prng, projects: readonly string[]): (i: number) => LoadCall {
  const logs = (project: string, extra = '') => `/api/endpoints/query/logs.all?project=${encodeURIComponent(project)}${extra}`;
  const usage = (interval: string, pattern: string) =>
    `/api/endpoints/query/usage.api-counts?interval=${interval}&project=${encodeURIComponent(pattern)}`;
  return (i) => {
    const project = rng.pick(projects);
    const kind = rng.int(100);
    if (kind < 20) return { label: 'logs.all', method: 'GET', path: logs(project) };
    if (kind < 28) {
      const start = new Date(Date.now() - rng.between(1, 7 * 24) * 3600e3).toISOString();
      return { label: 'logs.all+range', method: 'GET', path: logs(project, `&iso_timestamp_start=${encodeURIComponent(start)}`) };
    }
    if (kind < 35) return { label: 'logs.all+redact', method: 'GET', path: logs(project), headers: REDACT };
    if (kind < 40) return { label: 'logs.all POST', method: 'POST', path: '/api/endpoints/query/logs.all', body: JSON.stringify({ project }) };
    if (kind < 45) {
      const sql = 'select id, timestamp, event_message from edge_logs order by timestamp desc limit 10';
      return { label: 'logs.all+sql', method: 'GET', path: logs(project, `&sql=${encodeURIComponent(sql)}`) };
    }
    // A handful of keys called over and over: after their first miss, cache hits.
    if (kind < 75) return { label: 'usage hot', method: 'GET', path: usage(rng.pick(INTERVALS), `^https://${project}\\.`) };
    if (kind < 82) return { label: 'usage hot+redact', method: 'GET', path: usage('daily', `^https://${project}\\.`), headers: REDACT };
    // A pattern never asked before: a miss that runs the query (and, stored, pushes others out).
    if (kind < 95) return { label: 'usage cold', method: 'GET', path: usage(rng.pick(INTERVALS), `^https://${project}\\.|cold-${i}-${rng.int(1e9)}`) };
    return { label: 'usage+sql', method: 'GET', path: `${usage('hourly', project)}&sql=${encodeURIComponent('select count(*)::int as n from requests')}` };
  };
}
