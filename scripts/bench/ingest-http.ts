/**
 * Ingest through the service, as Vector posts it, against the physical floor: the same rows into
 * the same table (edge_logs, rollup triggers on) through one `COPY` run by psql, a C client.
 * Service and floor alternate batch by batch in one run. Also: one ~10 MB Vector batch of Kong
 * events (stock Supabase shape), and uncached `logs.all` p50 (wrk, c=1) idle and while the service
 * ingests 5,000 events/s, alternating.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runWrk, type WrkTarget } from '../lib/wrk.ts';

export interface HttpIngestFigures {
  /** ms to store one ~10 MB batch (p50 of 3), its size and events. */
  bigBatchMs: number;
  bigBatchBytes: number;
  bigBatchEvents: number;
  /** Events/s stored through the service, and rows/s through COPY, over the same rows: stock Kong events, and events with URLs. */
  sustained: { withUrl: boolean; serviceEventsPerSecond: number; copyRowsPerSecond: number }[];
  sustainedEvents: number;
  /** logs.all p50 (ms) idle and while ingesting at `loadedRate` events/s. */
  idleP50: number;
  loadedP50: number;
  loadedRate: number;
  errors: number;
}

let serial = 0;

/**
 * A Kong access event as Supabase's vector.yml builds it (no URL: stock Kong lines carry none), or
 * with `metadata.request.url` as Logflare's own ingest sample has it, which the rollup counts.
 */
function kongEvent(i: number, at: number, withUrl: boolean): Record<string, unknown> {
  const n = serial++;
  const path = ['/rest/v1/todos?select=*&id=eq.', '/auth/v1/token?grant_type=password&x=', '/storage/v1/object/public/avatars/', '/realtime/v1/websocket?vsn=1.0.0&n='][n % 4] + String(n);
  return {
    project: 'default',
    appname: 'supabase-kong',
    event_message: `172.19.0.${n % 250} - - [26/Nov/2026:06:10:11 +0000] "GET ${path} HTTP/1.1" 200 ${n % 5000} "-" "Dart/3.5 (dart:io)"`,
    timestamp: new Date(at + i).toISOString(),
    metadata: {
      request: { headers: { user_agent: 'Dart/3.5 (dart:io)', cf_connecting_ip: `172.19.0.${n % 250}`, referer: null }, method: 'GET', path, protocol: 'HTTP/1.1', ...(withUrl ? { url: `https://default.supabase.co${path}` } : {}) },
      response: { status_code: 200 },
    },
  };
}

function batch(n: number, withUrl = false): Record<string, unknown>[] {
  const at = Date.now() - 60_000;
  return Array.from({ length: n }, (_, i) => kongEvent(i, at, withUrl));
}

/** The rows the service would store for these events, as CSV for COPY. */
function csvOf(events: Record<string, unknown>[]): string {
  const q = (s: string) => `"${s.replaceAll('"', '""')}"`;
  return events
    .map((e) => {
      const metadata = JSON.parse(JSON.stringify(e.metadata, (_k, v: unknown) => (v === null ? undefined : v))) as unknown;
      return [q(`copy-${serial++}`), q(String(e.timestamp)), q(String(e.event_message)), q(String(e.project)), q(JSON.stringify(metadata))].join(',');
    })
    .join('\n');
}

async function post(url: string, token: string, body: string): Promise<number> {
  const res = await fetch(`${url}/api/logs?source_name=cloudflare.logs.prod`, { method: 'POST', headers: { 'x-api-key': token, 'content-type': 'application/json' }, body });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
  return res.status;
}

export async function measureHttpIngest(opts: { serviceUrl: string; ingestToken: string; databaseUrl: string; schema: string; wrk: string; logsTarget: WrkTarget; tmp: string }): Promise<HttpIngestFigures> {
  const { serviceUrl, ingestToken } = opts;
  // 1. One Vector batch of ~10 MB.
  const big = JSON.stringify(batch(21_000));
  const bigMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await post(serviceUrl, ingestToken, big);
    bigMs.push(performance.now() - t0);
  }
  bigMs.sort((a, b) => a - b);

  // 2. Sustained: 2,000-event batches (what Vector sends in a second at that rate), two senders,
  // against COPY of the same rows; alternating rounds. Stock Kong events (no URL, nothing for the
  // rollup to count), then events with URLs (each counted into the rollup's hour and day rows).
  const ROUNDS = 6;
  const PER_ROUND = 10_000;
  const file = join(opts.tmp, 'ingest-copy.csv');
  const sustained: HttpIngestFigures['sustained'] = [];
  for (const withUrl of [false, true]) {
    let serviceMs = 0;
    let copyMs = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const events = batch(PER_ROUND, withUrl);
      const bodies = Array.from({ length: PER_ROUND / 2000 }, (_, i) => JSON.stringify(events.slice(i * 2000, (i + 1) * 2000)));
      writeFileSync(file, csvOf(events));
      const viaService = async () => {
        const t0 = performance.now();
        const queue = [...bodies];
        await Promise.all([0, 1].map(async () => {
          for (let b = queue.shift(); b !== undefined; b = queue.shift()) await post(serviceUrl, ingestToken, b);
        }));
        serviceMs += performance.now() - t0;
      };
      const viaCopy = () => {
        const t0 = performance.now();
        execFileSync('psql', [opts.databaseUrl, '-v', 'ON_ERROR_STOP=1', '-q', '-c', `\\copy ${opts.schema}.edge_logs (id, timestamp, event_message, project, metadata) from '${file}' with (format csv)`], { stdio: ['ignore', 'ignore', 'inherit'] });
        copyMs += performance.now() - t0;
      };
      if (r % 2 === 0) {
        await viaService();
        viaCopy();
      } else {
        viaCopy();
        await viaService();
      }
    }
    sustained.push({ withUrl, serviceEventsPerSecond: (ROUNDS * PER_ROUND) / (serviceMs / 1000), copyRowsPerSecond: (ROUNDS * PER_ROUND) / (copyMs / 1000) });
  }
  const sustainedEvents = ROUNDS * PER_ROUND;

  // 3. logs.all idle vs while ingesting 5,000 events/s (1,000-event batches every 200 ms).
  const RATE = 5_000;
  let errors = 0;
  const idle: number[] = [];
  const loaded: number[] = [];
  for (let round = 0; round < 2; round++) {
    idle.push((await runWrk(opts.wrk, opts.logsTarget, 1, 4)).p50);
    let running = true;
    const sender = (async () => {
      while (running) {
        const t0 = performance.now();
        await post(serviceUrl, ingestToken, JSON.stringify(batch(RATE / 5))).catch(() => errors++);
        await new Promise((r) => setTimeout(r, Math.max(0, 200 - (performance.now() - t0))));
      }
    })();
    await new Promise((r) => setTimeout(r, 500));
    loaded.push((await runWrk(opts.wrk, opts.logsTarget, 1, 4)).p50);
    running = false;
    await sender;
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return {
    bigBatchMs: bigMs[1]!,
    bigBatchBytes: Buffer.byteLength(big),
    bigBatchEvents: 21_000,
    sustained,
    sustainedEvents,
    idleP50: median(idle),
    loadedP50: median(loaded),
    loadedRate: RATE,
    errors,
  };
}
