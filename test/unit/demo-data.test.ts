import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PGlite } from '@electric-sql/pglite';
import type { AdminExec } from '../../src/store/engine.ts';
import { DEMO_PROJECTS, demoRowCounts, generateDemoLogs, generateDemoTable, insertDemoLogs, type DemoLogs } from '../../src/store/demo/demo-data.ts';
import { LOG_TABLES, applySchema, quoteIdent } from '../../src/store/schema.ts';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const NOW_US = NOW.getTime() * 1000;
const WEEK_US = 7 * 24 * 3600 * 1_000_000;
const ISO_US = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const EMAIL = /[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}/i;
const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}\b/;
const IPV6 = /\b[0-9a-f]{1,4}(?::[0-9a-f]{0,4}){2,7}\b/i;

const logs = generateDemoLogs({ rows: 2000, seed: 42, now: NOW });
const meta = (table: keyof DemoLogs): Record<string, any>[] => logs[table].metadata.map((m) => JSON.parse(m));

/** Microseconds since the epoch of an ISO timestamp with six fractional digits. */
const micros = (iso: string): number => Date.parse(`${iso.slice(0, 23)}Z`) * 1000 + Number(iso.slice(23, 26));

describe('generateDemoLogs', () => {
  test('is deterministic for a seed and differs between seeds', () => {
    assert.deepEqual(generateDemoLogs({ rows: 2000, seed: 42, now: NOW }), logs);
    const other = generateDemoLogs({ rows: 2000, seed: 43, now: NOW });
    for (const table of LOG_TABLES) {
      assert.notDeepEqual(other[table].id, logs[table].id, table);
      assert.notDeepEqual(other[table].metadata, logs[table].metadata, table);
    }
  });

  test('a slice of a table equals the same rows of a full generation', () => {
    for (const table of ['edge_logs', 'auth_logs'] as const) {
      const slice = generateDemoTable(table, { rows: 2000, seed: 42, now: NOW }, 50, 70);
      for (const col of ['id', 'timestamp', 'event_message', 'project', 'metadata'] as const) {
        assert.deepEqual(slice[col], logs[table][col].slice(50, 120), `${table}.${col}`);
      }
    }
  });

  test('row counts are proportional to the edge rows, ids unique per table', () => {
    assert.deepEqual(demoRowCounts(2000), Object.fromEntries(LOG_TABLES.map((t) => [t, logs[t].id.length])));
    assert.equal(logs.edge_logs.id.length, 2000);
    assert.equal(logs.postgres_logs.id.length, 1000);
    for (const table of LOG_TABLES) {
      const cols = logs[table];
      if (table !== 'edge_logs' && table !== 'postgres_logs') {
        assert.ok(cols.id.length >= 200 && cols.id.length <= 400, `${table}: ${cols.id.length}`);
      }
      for (const col of [cols.timestamp, cols.event_message, cols.project, cols.metadata]) assert.equal(col.length, cols.id.length);
      assert.equal(new Set(cols.id).size, cols.id.length, `${table} ids unique`);
      assert.match(cols.id[0] ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    const none = generateDemoLogs({ rows: 0, now: NOW });
    for (const table of LOG_TABLES) assert.equal(none[table].id.length, 0);
    assert.ok(Object.values(demoRowCounts(1)).every((n) => n === 1), 'every source has a row');
    assert.throws(() => demoRowCounts(-1), /rows/);
  });

  test('every metadata is a JSON object', () => {
    for (const table of LOG_TABLES) {
      for (const m of meta(table)) assert.ok(m !== null && typeof m === 'object' && !Array.isArray(m), table);
    }
  });

  test('the project sits where logs.all looks for it (docs/log-store.md), per source', () => {
    const projects = new Set(DEMO_PROJECTS);
    for (const table of LOG_TABLES) {
      const rows = meta(table);
      const seen = new Set<string>();
      logs[table].project.forEach((project, i) => {
        const m = rows[i] ?? {};
        let where: unknown;
        if (table === 'function_edge_logs' || table === 'function_logs') {
          assert.equal(project, null, table);
          where = m.project_ref;
        } else if (table === 'realtime_logs' || table === 'storage_logs') {
          assert.equal(project, null, table);
          where = m.project;
        } else {
          where = project;
        }
        assert.ok(typeof where === 'string' && projects.has(where), `${table}: ${String(where)}`);
        seen.add(where);
      });
      assert.equal(seen.size, projects.size, `${table} spreads rows over every project`);
    }
  });

  test('custom projects are used, and refs that are not host name labels rejected', () => {
    const one = generateDemoLogs({ rows: 20, now: NOW, projects: ['abcdefghijklmnopqrst'] });
    assert.ok(one.edge_logs.project.every((p) => p === 'abcdefghijklmnopqrst'));
    assert.ok(one.function_logs.metadata.every((m) => JSON.parse(m).project_ref === 'abcdefghijklmnopqrst'));
    assert.throws(() => generateDemoLogs({ rows: 5, projects: ['Bad"Ref'] }), /host name/);
    assert.throws(() => generateDemoLogs({ rows: 5, projects: [] }), /projects/);
  });

  test('timestamps are ISO UTC with 6 fractional digits inside the 7 days before now', () => {
    const fractions = new Set<string>();
    for (const table of LOG_TABLES) {
      for (const ts of logs[table].timestamp) {
        assert.match(ts, ISO_US);
        const us = micros(ts);
        assert.ok(us < NOW_US && us > NOW_US - WEEK_US, `${table}: ${ts}`);
        fractions.add(ts.slice(23, 26));
      }
    }
    assert.ok(fractions.size > 500, 'microsecond digits vary');
  });

  test('edge rows carry request url, path, method and response status; paths cover every area', () => {
    const areas = { '/rest': 0, '/storage': 0, '/auth': 0, '/realtime': 0, other: 0 };
    meta('edge_logs').forEach((m, i) => {
      const { url, path, method } = m.request;
      assert.equal(typeof url, 'string');
      assert.ok(url.startsWith('https://') && url.includes(path), url);
      assert.ok(new URL(url).hostname.startsWith(`${logs.edge_logs.project[i]}.`), url);
      assert.match(method, /^(GET|POST|PUT|PATCH|DELETE|OPTIONS)$/);
      assert.ok(Number.isInteger(m.response.status_code));
      assert.ok(logs.edge_logs.event_message[i]?.startsWith(`${method} | ${m.response.status_code} | `));
      let any = false;
      for (const area of ['/rest', '/storage', '/auth', '/realtime'] as const) {
        if (path.includes(area)) {
          areas[area]++;
          any = true;
        }
      }
      if (!any) areas.other++;
    });
    for (const [area, n] of Object.entries(areas)) assert.ok(n > 20, `${area}: ${n}`);
  });

  test('some rows hold an e-mail address, an IPv4 and an IPv6 address (for redaction)', () => {
    for (const table of ['edge_logs', 'auth_logs', 'postgres_logs', 'function_logs'] as const) {
      assert.ok(logs[table].event_message.some((m) => EMAIL.test(m)) || logs[table].metadata.some((m) => EMAIL.test(m)), `${table} e-mail`);
    }
    assert.ok(logs.auth_logs.event_message.some((m) => /"msg":"user signed in: \S+@\S+"/.test(m) && JSON.parse(m).level === 'info'));
    for (const re of [IPV4, IPV6]) {
      assert.ok(logs.edge_logs.event_message.some((m) => re.test(m)), `edge message ${re}`);
      assert.ok(logs.edge_logs.metadata.some((m) => re.test(m)), `edge metadata ${re}`);
    }
  });
});

describe('applySchema and insertDemoLogs on PGlite', () => {
  let db: PGlite;
  let exec: AdminExec;
  before(async () => {
    db = new PGlite();
    exec = (sql, params) => (params ? db.query(sql, [...params]) : db.exec(sql));
  });
  after(async () => {
    await db.close();
  });

  test('rejects a schema name that is not a plain identifier', async () => {
    await assert.rejects(applySchema(exec, 'Logs; drop table x'), /LOG_SCHEMA/);
    await assert.rejects(applySchema(exec, ''), /LOG_SCHEMA/);
    assert.equal(quoteIdent('a"b'), '"a""b"');
  });

  test('applies twice, inserts every table, keeps microseconds, skips existing ids', async () => {
    const small = generateDemoLogs({ rows: 300, seed: 7, now: NOW });
    const searchPath = async () => (await db.query<{ search_path: string }>('show search_path')).rows[0]?.search_path;
    const pathBefore = await searchPath();
    await applySchema(exec, 'demo_logs');
    await applySchema(exec, 'demo_logs');
    // The search_path was set for the schema's own transaction only.
    assert.equal(await searchPath(), pathBefore);
    const tables = await db.query<{ n: number }>(
      "select count(*)::int as n from information_schema.tables where table_schema = 'demo_logs' and table_name = any($1)",
      [[...LOG_TABLES]],
    );
    assert.equal(tables.rows[0]?.n, 9);

    const total = LOG_TABLES.reduce((sum, t) => sum + small[t].id.length, 0);
    assert.equal(await insertDemoLogs(exec, 'demo_logs', small, 100), total);
    for (const table of LOG_TABLES) {
      const res = await db.query<{ n: number }>(`select count(*)::int as n from demo_logs.${table}`);
      assert.equal(res.rows[0]?.n, small[table].id.length, table);
    }
    assert.equal(await insertDemoLogs(exec, 'demo_logs', small), 0, 'a second insert of the same rows adds nothing');

    const stored = await db.query<{ id: string; ts: string; path: string; project: string | null }>(
      `select id, to_char(timestamp at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as ts,
              metadata->'request'->>'path' as path, project
         from demo_logs.edge_logs`,
    );
    const byId = new Map(stored.rows.map((r) => [r.id, r]));
    small.edge_logs.id.forEach((id, i) => {
      const row = byId.get(id);
      assert.equal(row?.ts, small.edge_logs.timestamp[i]);
      assert.equal(row?.path, JSON.parse(small.edge_logs.metadata[i] ?? '{}').request.path);
      assert.equal(row?.project, small.edge_logs.project[i]);
    });
    const realtime = await db.query<{ n: number }>("select count(*)::int as n from demo_logs.realtime_logs where project is null and metadata->>'project' is not null");
    assert.equal(realtime.rows[0]?.n, small.realtime_logs.id.length);
  });

  test('insertDemoLogs rejects a bad schema name before touching the database', async () => {
    await assert.rejects(insertDemoLogs(exec, 'x"; --', generateDemoLogs({ rows: 1, now: NOW })), /LOG_SCHEMA/);
  });
});
