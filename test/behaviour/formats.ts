/**
 * Answers in CSV and NDJSON (src/query/formats.ts), on every engine: each parsed back by a reader
 * of its own equals the JSON answer's rows; `format=` and `Accept` choose; each format has its own
 * ETag and 304; a cached answer serves every format; an unknown format is 406.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Service } from '../../src/service.ts';
import { parseCsv } from '../support/csv.ts';
import type { EngineFactory, TestStore } from '../support/engines.ts';
import { edgeRow, insertRows } from '../support/fixtures.ts';
import { call, startTestService } from '../support/service.ts';

type Row = Record<string, unknown>;

/** Values that need quoting, line breaks, unicode, nulls, numbers and nested JSON. */
const TRICKY_SQL = `select 'a,b' as comma, 'say "hi"' as quotes, e'line1\\nline2\\r\\nline3' as breaks, 'zoë 🚀 日本' as unicode,
  null::text as nothing, 1.50::numeric as num, 42::bigint as big, true as yes, ' padded ' as spaces,
  '{"k":[1,2],"s":"x,\\"y\\""}'::jsonb as obj, timestamp with time zone '2026-11-20 12:00:00.000001+00' as ts`;

/** A CSV cell read back as the JSON value it stands for: strings as themselves, null empty, the rest JSON text. */
function valueOf(cell: string, like: unknown): unknown {
  if (like === null) return cell === '' ? null : cell;
  return typeof like === 'string' ? cell : JSON.parse(cell);
}

export function formatsBehaviour(factory: EngineFactory): void {
  describe(`answer formats on ${factory.name}`, () => {
    let store: TestStore;
    let service: Service;
    let base: string;

    before(async () => {
      store = await factory.open();
      await insertRows(store, 'edge_logs', [
        edgeRow('f1', '2026-11-20T12:00:01.000001Z', 'alpha', '/rest/v1/todos', { event_message: 'POST | 201 | "quoted", comma\nnext line | zoë' }),
        edgeRow('f2', '2026-11-20T12:00:02.000002Z', 'alpha', '/auth/v1/token'),
      ]);
      service = await startTestService(store);
      base = service.url;
    });
    after(async () => {
      await service?.close();
      await store?.teardown();
    });

    const LOGS = '/api/endpoints/query/logs.all?project=alpha';
    const TRICKY = `${LOGS}&sql=${encodeURIComponent(TRICKY_SQL)}`;

    for (const [name, path] of [['logs.all rows', LOGS], ['values that need quoting', TRICKY]] as const) {
      test(`CSV of ${name}, read back by an independent RFC 4180 reader, equals the JSON rows`, async () => {
        const json = (await (await call(base, path)).json()) as { result: Row[] };
        const res = await call(base, `${path}&format=csv`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8; header=present');
        const text = await res.text();
        assert.ok(text.endsWith('\r\n'));
        const [header, ...records] = parseCsv(text);
        const columns = Object.keys(json.result[0]!);
        assert.deepEqual(header, columns);
        assert.equal(records.length, json.result.length);
        records.forEach((record, i) => {
          const row = json.result[i]!;
          assert.deepEqual(Object.fromEntries(columns.map((c, j) => [c, valueOf(record[j]!, row[c])])), row);
        });
        // Nested values are JSON text, as stored.
        assert.match(text, name === 'logs.all rows' ? /"\{""request"": \{""url""/ : /"\{""k"": \[1, 2\]/);
      });
    }

    test('NDJSON: one JSON object per line, each the JSON answer\'s row; Accept chooses it too', async () => {
      const json = (await (await call(base, TRICKY)).json()) as { result: Row[] };
      const res = await call(base, TRICKY, { headers: { Accept: 'application/x-ndjson' } });
      assert.equal(res.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
      const text = await res.text();
      assert.ok(text.endsWith('\n'));
      assert.deepEqual(text.trimEnd().split('\n').map((l) => JSON.parse(l) as Row), json.result);
      const viaParam = await (await call(base, `${TRICKY}&format=ndjson`)).text();
      assert.equal(viaParam, text);
    });

    test('each format has its own ETag, and a 304 for it; a cached answer is served in every format', async () => {
      const usage = '/api/endpoints/query/usage.api-counts?interval=daily&project=alpha';
      const tags = new Map<string, string>();
      for (const accept of ['application/json', 'text/csv', 'application/x-ndjson']) {
        const res = await call(base, usage, { headers: { Accept: accept } });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('vary'), 'Accept');
        await res.arrayBuffer();
        const etag = res.headers.get('etag')!;
        tags.set(accept, etag);
        const again = await call(base, usage, { headers: { Accept: accept, 'If-None-Match': etag } });
        assert.equal(again.status, 304, accept);
        assert.match(again.headers.get('cache-status') ?? '', /; hit;/, 'answered from the cache');
      }
      assert.equal(new Set(tags.values()).size, 3);
    });

    test('Accept negotiation: q-values, wildcards, and 406 naming the formats when none fits', async () => {
      const cases: [string, number, string][] = [
        ['text/html, */*;q=0.1', 200, 'application/json; charset=utf-8'],
        ['text/csv;q=0.5, application/x-ndjson;q=0.9', 200, 'application/x-ndjson; charset=utf-8'],
        ['text/*', 200, 'text/csv; charset=utf-8; header=present'],
        ['text/html', 406, ''],
        ['application/json;q=0', 406, ''],
      ];
      for (const [accept, status, type] of cases) {
        const res = await call(base, LOGS, { headers: { Accept: accept } });
        assert.equal(res.status, status, accept);
        if (status === 200) assert.equal(res.headers.get('content-type'), type, accept);
        else assert.match(((await res.json()) as { error: { code: string; message: string } }).error.message, /application\/json, text\/csv, application\/x-ndjson/);
      }
      const unknown = await call(base, `${LOGS}&format=xml`);
      assert.equal(unknown.status, 406);
      assert.deepEqual(await unknown.json(), { error: { code: 'not_acceptable', message: 'Parameter "format" must be one of json, csv, ndjson, got "xml".' } });
    });

    test('no rows: the CSV still has its header row, from the stored query\'s declared columns', async () => {
      const res = await call(base, '/api/endpoints/query/usage.api-counts?interval=daily&project=nobody-here&format=csv');
      assert.equal(await res.text(), 'timestamp,total_rest_requests,total_storage_requests,total_auth_requests,total_realtime_requests\r\n');
    });
  });
}
