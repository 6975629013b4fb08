/**
 * usage.api-counts reads a rollup of edge_logs that triggers keep (sql/schema.sql): hours and days
 * per distinct URL, raw rows only before the window's first whole hour. Its answers must be what
 * counting the rows themselves gives, after any sequence of writes: multi-row inserts, updates
 * that move a row in time or change its URL or path, deletes, TRUNCATE, and a store whose rows
 * were there before the rollup was built.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Service } from '../../src/service.ts';
import { QUERIES_DIR } from '../../src/process/config.ts';
import { POSTGRESQL } from '../../src/sql/dialect.ts';
import { loadRegistry } from '../../src/query/registry.ts';
import { bindStatement } from '../../src/query/run-query.ts';
import { loadSqlParser } from '../../src/sql/sandbox/sql-parser.ts';
import { applySchema, EDGE_ROLLUP_TRIGGERS, USAGE_URL_INDEXES } from '../../src/store/schema.ts';
import { Prng } from '../../src/store/demo/prng.ts';
import { queryOnce, type EngineFactory, type TestStore } from '../support/engines.ts';
import { isoMicros } from '../support/fixtures.ts';
import { call, startTestService } from '../support/service.ts';
import { expectedUsage, type UsageInput, type UsageInterval, type UsageRow } from '../support/usage-reference.ts';

const HOUR_MS = 3600e3;
const DAY_MS = 24 * HOUR_MS;
/** Window starts of the three intervals, as offsets from now. */
const WINDOW_STARTS_MS = [HOUR_MS, 7 * DAY_MS];
/** Row times stay this far from every window start, so the JS reference and the database agree on
 * which rows are in a window however long the test runs. */
const CLEARANCE_MS = 10 * 60e3;
const HOSTS = ['alpha', 'beta', 'gamma'];
// Areas alone and together ('/rest/v1/auth_events' counts as rest and auth), none ('/graphql/v1'), no path.
const PATHS = ['/rest/v1/todos', '/storage/v1/object/a.png', '/auth/v1/token', '/realtime/v1/websocket', '/rest/v1/auth_events', '/graphql/v1', null];
const INTERVALS: UsageInterval[] = ['hourly', 'daily', 'minutely'];
// Plain words (usage.api-counts counts the hosts they match whole), one of each list per check: a
// host's name or part of it (some query strings name a host too), a word of the paths, a letter
// found everywhere.
const HOST_WORDS = ['alpha', 'beta', 'gamma', 'lph', 'eta', 'amm', 'xampl', 'gam'];
const TAIL_WORDS = ['todos', 'storage', 'token', 'websocket', 'auth_events', 'graphql', 'realtime', 'object'];
const MIXED_WORDS = ['a', 'e', 't', 'o', 'l', 'm', 'p', 'co'];

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

interface Row extends UsageInput {
  id: string;
}

export function usageRollupBehaviour(factory: EngineFactory): void {
  describe(`usage.api-counts rollup on ${factory.name}`, () => {
    let store: TestStore;
    let service: Service;
    const now = Date.now();
    const rng = new Prng(42);
    let rows: Row[] = [];
    let serial = 0;
    let checks = 0;

    const randomTime = (): number => {
      // A third each from the last two hours, the last two days and the last eight: every tier has rows.
      const back = [2 * HOUR_MS, 2 * DAY_MS, 8 * DAY_MS][rng.int(3)]!;
      for (;;) {
        const ts = now - back + rng.int(back + CLEARANCE_MS);
        if (WINDOW_STARTS_MS.every((w) => Math.abs(ts - (now - w)) > CLEARANCE_MS)) return ts;
      }
    };
    const randomRow = (): Row => {
      const path = PATHS[rng.int(PATHS.length)]!;
      // One row in ten has no URL: never counted. URLs repeat, so the rollup merges them. One in
      // four names another host in its query string, one in twenty has no scheme (so no host: the
      // whole URL is what follows it), as a plain-word pattern must find them too.
      const host = `${HOSTS[rng.int(HOSTS.length)]}.example.co`;
      const query = `?n=${rng.int(4)}${rng.int(4) === 0 ? `&q=${HOSTS[rng.int(HOSTS.length)]}` : ''}`;
      const url = rng.int(10) === 0 ? null : `${rng.int(20) === 0 ? '' : 'https://'}${host}${path ?? ''}${query}`;
      return { id: `r${serial++}`, ts: randomTime(), url, path };
    };
    const metadata = (r: Row) => JSON.stringify({ request: { ...(r.url === null ? {} : { url: r.url }), ...(r.path === null ? {} : { path: r.path }), method: 'GET' } });

    /** One multi-row INSERT: the statement-level trigger sees all of them at once. */
    const insert = async (batch: Row[]): Promise<void> => {
      await store.admin('insert into logs.edge_logs (id, timestamp, metadata) select * from unnest($1::text[], $2::timestamptz[], $3::jsonb[])', [
        batch.map((r) => r.id),
        batch.map((r) => isoMicros(r.ts)),
        batch.map(metadata),
      ]);
      rows.push(...batch);
    };

    /**
     * Every interval, with two regular expressions and three plain words (read per host: one found
     * in hosts, one after them, one in both), equals the reference. A pattern new to each check
     * keeps the cache out of it.
     */
    const assertMatchesRows = async (): Promise<void> => {
      const words = [HOST_WORDS, TAIL_WORDS, MIXED_WORDS].map((list) => list[checks % list.length]!);
      checks++;
      for (const interval of INTERVALS) {
        for (const [pattern, re] of [
          [`^https://(alpha|beta)\\.|^none${checks}$`, /^https:\/\/(alpha|beta)\./],
          [`n=[02]|^none${checks}$`, /n=[02]/],
          ...words.map((w) => [w, new RegExp(w)] as const),
        ] as const) {
          const res = await call(service.url, `/api/endpoints/query/usage.api-counts?interval=${interval}&project=${encodeURIComponent(pattern)}`);
          assert.equal(res.status, 200);
          const body = (await res.json()) as { result: UsageRow[] };
          assert.deepEqual(body.result, expectedUsage(rows, now, interval, re), `${interval}, ${pattern}, check ${checks}`);
        }
      }
    };

    before(async () => {
      store = await factory.open();
      service = await startTestService(store);
    });
    after(async () => {
      await service?.close();
      await store?.teardown();
    });

    test('after multi-row inserts: every interval equals counting the rows', async () => {
      for (let i = 0; i < 4; i++) await insert(Array.from({ length: 150 }, randomRow));
      // The reference is not vacuous: every interval has buckets and both tiers of a daily window are used.
      assert.ok(INTERVALS.every((i) => expectedUsage(rows, now, i, /./).length > 0));
      await assertMatchesRows();
    });

    test('after updates that move rows in time and change URL or path', async () => {
      const moved = rows.filter((_, i) => i % 7 === 0);
      for (const r of moved) {
        r.ts = randomTime();
        await store.admin('update logs.edge_logs set timestamp = $2 where id = $1', [r.id, isoMicros(r.ts)]);
      }
      const changed = rows.filter((_, i) => i % 5 === 1);
      for (const r of changed) {
        r.url = r.url === null ? 'https://alpha.example.co/rest/v1/new' : null;
        r.path = r.path === null ? '/storage/v1/new' : null;
      }
      // One statement for all of them: old and new transition tables of many rows.
      await store.admin('update logs.edge_logs e set metadata = c.metadata from unnest($1::text[], $2::jsonb[]) c (id, metadata) where e.id = c.id', [
        changed.map((r) => r.id),
        changed.map(metadata),
      ]);
      await assertMatchesRows();
    });

    test('after deletes, one by one and many at once', async () => {
      const gone = new Set(rows.filter((_, i) => i % 3 === 0).map((r) => r.id));
      const [first, ...rest] = [...gone];
      await store.admin('delete from logs.edge_logs where id = $1', [first]);
      await store.admin('delete from logs.edge_logs where id = any($1::text[])', [rest]);
      rows = rows.filter((r) => !gone.has(r.id));
      await assertMatchesRows();
      // Nothing left over: every rollup row counts at least one request.
      for (const table of ['edge_request_counts', 'edge_request_host_counts']) {
        const result = (await store.admin(`select count(*)::int as n from logs.${table} where requests <= 0`)) as { rows: { n: number }[] };
        assert.equal(result.rows[0]!.n, 0, table);
      }
    });

    test('after TRUNCATE and new rows', async () => {
      await store.admin('truncate logs.edge_logs');
      rows = [];
      await assertMatchesRows();
      await insert(Array.from({ length: 100 }, randomRow));
      await assertMatchesRows();
    });

    // Regression: with ids in query strings nearly every request has its own URL, and the daily
    // count ran the pattern over every URL ever counted and summed a week of rollup rows (189 ms at
    // 1M rows and 273k URLs). A regular expression naming a project must be found through the
    // trigram index and its counts by url_id; `.` must not turn into a lookup of every URL's counts
    // one by one (what the planner chose when it read the matching ids through a CTE, whose size it
    // can only guess). And Studio's home chart (a plain word, `default`, whose host has half of the
    // URLs: 1.7 s at 10M rows) must count that host from the host rollup, never test its URLs.
    test('the daily count reads a project by index, a plain word per host, and `.` in one pass', async () => {
      // Enough URLs that reading them all costs more than the index (the planner's choice at 13k).
      // Project references as Supabase makes them: 20 random lower-case letters; the first host
      // has half of the URLs.
      const hosts = Array.from({ length: 60 }, () => Array.from({ length: 20 }, () => String.fromCharCode(97 + rng.int(26))).join(''));
      const [busy, ref] = [hosts[0]!, hosts[7]!];
      const many = Array.from({ length: 15_000 }, (_, i): Row => ({
        id: `m${serial++}`,
        ts: now - DAY_MS - rng.int(5 * DAY_MS),
        url: `https://${i % 2 === 0 ? busy : hosts[i % hosts.length]}.example.co/rest/v1/todos?id=eq.${i}${i % 1000 === 1 ? `&note=${busy}` : ''}`,
        path: '/rest/v1/todos',
      }));
      // A store from before the indexes: `npm run schema` (applySchema) builds them over its URLs.
      await store.admin(`drop index ${USAGE_URL_INDEXES.map((i) => `logs.${i}`).join(', ')}`);
      await insert(many);
      await applySchema(store.admin, 'logs');
      await store.admin('analyze logs.edge_request_urls; analyze logs.edge_request_counts; analyze logs.edge_request_host_counts');
      const usage = loadRegistry(QUERIES_DIR, await loadSqlParser()).lookup('usage.api-counts')!;
      /** What the statement actually ran (EXPLAIN ANALYZE: nodes that ran at least once), one node a line. */
      const plan = async (pattern: string): Promise<string> => {
        const bound = bindStatement(usage, new Map([['interval', ['daily']], ['project', [pattern]]]), null, POSTGRESQL);
        // The statement names its tables unqualified, as the service's sessions (search_path = logs)
        // read them: the embedded session is the service's own; on PostgreSQL a connection of its own.
        const explain = `explain (analyze, format json) ${bound.sql}`;
        const rows = store.url === undefined
          ? ((await store.admin(explain, bound.params)) as { rows: Record<string, unknown>[] }).rows
          : await queryOnce<Record<string, unknown>>(`${store.url}${store.url.includes('?') ? '&' : '?'}options=-c%20search_path%3Dlogs`, explain, bound.params);
        const raw = Object.values(rows[0]!)[0];
        const [root] = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
        const ran: string[] = [];
        const walk = (node: PlanNode): void => {
          if (node['Actual Loops'] === 0) return;
          ran.push([node['Node Type'], node['Relation Name'] && `on ${node['Relation Name']}`, node['Index Name'] && `using ${node['Index Name']}`].filter(Boolean).join(' '));
          node.Plans?.forEach(walk);
        };
        walk(root!.Plan);
        return ran.join('\n');
      };
      const regex = `${ref}\\.example`;
      assert.match(await plan(regex), /edge_request_urls_url_trgm_idx/);
      // A plain word: its hosts from the host rollup; other hosts' URLs only where it follows the host.
      for (const word of [busy, ref]) {
        const words = await plan(word);
        assert.match(words, /edge_request_host_counts/, word);
        assert.match(words, /edge_request_urls_tail_trgm_idx/, word);
        assert.doesNotMatch(words, /Seq Scan on edge_request_urls/, word);
      }
      // `.` matches every URL: their counts are read in one pass, never looked up URL by URL.
      assert.doesNotMatch(await plan('.'), /edge_request_counts_url_idx/);
      assert.doesNotMatch(await plan('.'), /edge_request_urls_(url|tail)_trgm_idx/);
      for (const [pattern, re] of [[regex, new RegExp(regex)], [busy, new RegExp(busy)], [ref, new RegExp(ref)], ['.', /./]] as const) {
        const res = await call(service.url, `/api/endpoints/query/usage.api-counts?interval=daily&project=${encodeURIComponent(pattern)}`);
        assert.deepEqual(((await res.json()) as { result: UsageRow[] }).result, expectedUsage(rows, now, 'daily', re), pattern);
      }
    });

    test('a store from before the host rollup gets it from its per-URL counts', async () => {
      // The rows of the tests before are in the per-URL counts only, as an older store's are.
      await store.admin('drop table logs.edge_request_host_counts');
      await applySchema(store.admin, 'logs');
      await insert(Array.from({ length: 20 }, randomRow));
      await assertMatchesRows();
    });

    test('rows written before the rollup existed are counted when it is built', async () => {
      await store.admin('drop table logs.edge_request_counts, logs.edge_request_urls, logs.edge_request_host_counts cascade');
      for (const t of EDGE_ROLLUP_TRIGGERS) await store.admin(`drop trigger ${t} on logs.edge_logs`);
      await insert(Array.from({ length: 100 }, randomRow));
      await applySchema(store.admin, 'logs');
      await assertMatchesRows();
      // Applying the schema again (every start-up does) counts nothing twice.
      await applySchema(store.admin, 'logs');
      await insert(Array.from({ length: 20 }, randomRow));
      await assertMatchesRows();
    });
  });
}
