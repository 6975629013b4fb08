/**
 * Cost of PII redaction on logs.all-shaped responses: `npx tsx scripts/bench-redact.ts`.
 * Prints input size, throughput and the median per-response cost for 100 rows (a full logs.all
 * response) and 1,000 rows. Deterministic input, so runs compare across machines and commits.
 */
import { redactRows } from '../src/query/redact.ts';
import { Prng } from '../src/store/demo/prng.ts';

interface LogRow {
  id: string;
  timestamp: string;
  event_message: string;
  metadata: {
    request: { url: string; path: string; method: string; headers: Record<string, string> };
    response: { status_code: number };
  };
}

// Seeded: Math.random would make every run measure different input.
const prng = new Prng(42);
const rand = (n: number): number => prng.int(n);
const pick = <T>(xs: readonly T[]): T => prng.pick(xs);
function hex(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += '0123456789abcdef'.charAt(rand(16));
  return s;
}
function uuid(): string {
  return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
}
function ipv4(): string {
  return `${pick([203, 198, 10, 172, 192])}.${rand(256)}.${rand(256)}.${rand(256)}`;
}
function ipv6(): string {
  return `2001:db8:${hex(4)}::${hex(rand(4) + 1)}`;
}

const AGENTS = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0',
  'supabase-js/2.39.0 node/20.11.0',
  'okhttp/4.12.0',
  'curl/8.4.0',
];
const PATHS = ['/rest/v1/todos', '/rest/v1/profiles', '/auth/v1/token', '/storage/v1/object/public/avatars/a.png', '/rest/v1/rpc/search'];
const EMAILS = ['joe@example.com', 'ann.lee+logs@mail.example.org', 'ops@corp.example.io'];

function row(i: number): LogRow {
  const path = pick(PATHS);
  const method = pick(['GET', 'GET', 'GET', 'POST', 'PATCH']);
  const status = pick([200, 200, 200, 201, 204, 400, 401, 404, 500]);
  const client = rand(4) === 0 ? ipv6() : ipv4();
  const query = rand(5) === 0 ? `?email=eq.${pick(EMAILS)}` : `?select=*&limit=${rand(100)}`;
  const messages = [
    `${method} ${path} ${status} ${rand(900) + 10}ms`,
    `connection received: host=${ipv4()} port=${rand(60000)}`,
    `password authentication failed for user "${pick(EMAILS)}"`,
    `duration: ${rand(1000)}.${rand(1000)} ms  statement: select * from todos where id = ${rand(10000)}`,
    `upstream ${ipv4()}:5432 timed out after 10:00:30.250`,
  ];
  return {
    id: uuid(),
    timestamp: new Date(Date.UTC(2026, 10, 22, 10, 15, 30) + i * 1234).toISOString(),
    event_message: pick(messages),
    metadata: {
      request: {
        url: `https://abcdefghijklmnop.supabase.co${path}${query}`,
        path,
        method,
        headers: {
          'x-forwarded-for': rand(3) === 0 ? `${client}, ${ipv4()}` : client,
          'cf-connecting-ip': client,
          'user-agent': pick(AGENTS),
          host: 'abcdefghijklmnop.supabase.co',
          accept: 'application/json',
          'content-type': 'application/json; charset=utf-8',
          'x-client-info': 'supabase-js-web/2.39.0',
          'cf-ray': `${hex(16)}-FRA`,
        },
      },
      response: { status_code: status },
    },
  };
}

/** Median and fastest milliseconds per call of `fn`, from `runs` timed batches of `batch` calls. */
function timeMs(fn: () => unknown, runs: number, batch: number): { median: number; min: number } {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    for (let i = 0; i < batch; i++) fn();
    times.push((performance.now() - start) / batch);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)] as number, min: times[0] as number };
}

const rows1000 = Array.from({ length: 1000 }, (_, i) => row(i));
const rows100 = rows1000.slice(0, 100);
const mb = (rows: LogRow[]): number => Buffer.byteLength(JSON.stringify(rows)) / 1e6;

// Warm-up: let V8 optimise the regexes and the walk before anything is timed.
for (let i = 0; i < 200; i++) redactRows(rows1000);

const t100 = timeMs(() => redactRows(rows100), 15, 200);
const t1000 = timeMs(() => redactRows(rows1000), 15, 20);
// Yardstick on the same machine and moment: every response is serialised anyway.
const json100 = timeMs(() => JSON.stringify(rows100), 15, 200);
const changed = redactRows(rows1000).filter((r, i) => r !== rows1000[i]).length;

// The fastest run is printed too: on a shared machine the median mostly measures the neighbours.
console.log(`input: 1,000 rows = ${mb(rows1000).toFixed(3)} MB JSON, 100 rows = ${mb(rows100).toFixed(3)} MB JSON`);
console.log(`rows with something redacted: ${changed} of 1,000`);
console.log(`throughput (1,000-row response, median): ${(mb(rows1000) / (t1000.median / 1000)).toFixed(1)} MB/s`);
console.log(`100-row response:   ${t100.median.toFixed(3)} ms median, ${t100.min.toFixed(3)} ms fastest (15 runs x 200 calls)`);
console.log(`1,000-row response: ${t1000.median.toFixed(3)} ms median, ${t1000.min.toFixed(3)} ms fastest (15 runs x 20 calls)`);
console.log(`for scale, JSON.stringify of the 100 rows: ${json100.median.toFixed(3)} ms median, ${json100.min.toFixed(3)} ms fastest`);
console.log(`sample: ${JSON.stringify(redactRows(rows1000.slice(0, 1))[0])}`);
