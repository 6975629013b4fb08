/**
 * The documentation is checked like code: every relative link, anchor and repository file name
 * in README.md and docs/ exists, and the worked example of docs/stored-queries.md (its two files,
 * exactly as printed) loads and answers as the page says.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { readBlocks } from '../scripts/docs/blocks.ts';
import { QUERIES_DIR } from '../src/process/config.ts';
import type { Service } from '../src/service.ts';
import { chdbFactory, chdbMissing, pgliteFactory, type TestStore } from './support/engines.ts';
import { edgeRow, insertRows } from './support/fixtures.ts';
import { call, startTestService } from './support/service.ts';
import { tempDir } from './support/temp-dir.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6} +(.+)$/gm)) {
    out.add(m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-'));
  }
  return out;
}

describe('README and docs', () => {
  for (const page of PAGES) {
    test(`${page}: every relative link, anchor and repository path it names exists`, () => {
      const text = readFileSync(join(ROOT, page), 'utf8');
      const missing: string[] = [];
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), path);
        if (!existsSync(file)) missing.push(`link ${target}`);
        else if (anchor !== undefined && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor)) missing.push(`anchor ${target}`);
      }
      // Repository paths in code spans: `src/…`, `sql/…`, `docs/…` and the like (patterns with <name> or * are not paths).
      for (const m of text.matchAll(/`((?:src|sql|scripts|test|docs|\.ci)\/[^`\s]*|[A-Za-z-]+\.(?:md|json|sh)|Dockerfile|LICENSE)`/g)) {
        const path = m[1]!.replace(/[.,:;]+$/, '');
        if (/[<*…]/.test(path) || /^(?:package-lock|tsconfig|\w+\.recent|logs\.all|usage\.api-counts|plain\.\w+)\.json$/.test(path)) continue;
        if (!existsSync(join(ROOT, path)) && !existsSync(join(ROOT, dirname(page), path))) missing.push(`path ${path}`);
      }
      assert.deepEqual(missing, [], `${page} names what the repository does not have`);
    });
  }

  test('the README is a manual: the two commands first, at most ~400 lines, no scratch files', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const lines = readme.split('\n');
    assert.ok(lines.length <= 420, `README.md has ${lines.length} lines`);
    const top = lines.slice(0, 15).join('\n');
    assert.match(top, /npm install && npm start/);
    assert.match(top, /npm install && npm test/);
    for (const page of PAGES) assert.doesNotMatch(readFileSync(join(ROOT, page), 'utf8'), /\.scratch\//, page);
  });
});

/** The files docs/stored-queries.md tells the reader to write (`<!-- docs-test: write sql/queries/<name> -->`). */
function exampleFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const b of readBlocks('docs/stored-queries.md', readFileSync(join(ROOT, 'docs/stored-queries.md'), 'utf8'))) {
    if (b.action.kind === 'write') files.set(basename(b.action.path), `${b.text}\n`);
  }
  return files;
}

const noChdb = await chdbMissing();

for (const factory of [pgliteFactory, chdbFactory]) describe(`the worked example of docs/stored-queries.md, on ${factory.name}`, { skip: factory.name === 'chdb' ? noChdb ?? false : false }, () => {
  let store: TestStore;
  let svc: Service;
  const page = readFileSync(join(ROOT, 'docs/stored-queries.md'), 'utf8');
  const base = Date.now() - 60_000;
  const at = (s: number) => new Date(base + s * 1000).toISOString();

  before(async () => {
    const files = exampleFiles();
    assert.deepEqual([...files.keys()].sort(), ['errors.recent.clickhouse.sql', 'errors.recent.json', 'errors.recent.sql']);
    const dir = tempDir('docs-example-');
    cpSync(QUERIES_DIR, dir, { recursive: true });
    for (const [name, text] of files) writeFileSync(join(dir, name), text);
    store = await factory.open();
    const status = (id: string, s: number, code: number, path: string) =>
      edgeRow(id, at(s), 'default', path, { metadata: { request: { url: `https://default.logs.test${path}`, path, method: 'GET' }, response: { status_code: code } } });
    await insertRows(store, "edge_logs", [
      status('ok', 1, 200, '/rest/v1/a'),
      status('missing', 2, 404, '/rest/v1/b'),
      status('broken', 3, 502, '/auth/v1/c'),
      status('denied', 4, 403, '/storage/v1/d'),
      edgeRow('other', at(5), 'other', '/rest/v1/e', { metadata: { request: { path: '/rest/v1/e', method: 'GET' }, response: { status_code: 500 } } }),
    ]);
    svc = await startTestService(store, { QUERIES_DIR: dir });
    assert.ok(relative(ROOT, dir));
  });
  after(async () => {
    await svc?.close();
    await store?.teardown();
  });

  test('it loads beside the shipped queries and answers as the page says', async () => {
    assert.deepEqual(svc.registry.all.map((q) => q.name), ['errors.recent', 'logs.all', 'usage.api-counts']);
    const res = await call(svc.url, '/api/endpoints/query/errors.recent?project=default&min_status=400&limit=3');
    assert.equal(res.status, 200);
    const { result } = (await res.json()) as { result: Record<string, unknown>[] };
    assert.deepEqual(result.map((r) => [r.id, r.method, r.path, r.status]), [
      ['denied', 'GET', '/storage/v1/d', 403],
      ['broken', 'GET', '/auth/v1/c', 502],
      ['missing', 'GET', '/rest/v1/b', 404],
    ]);
    const defaults = (await (await call(svc.url, '/api/endpoints/query/errors.recent?project=default')).json()) as { result: { id: string }[] };
    assert.deepEqual(defaults.result.map((r) => r.id), ['broken']);
  });

  test('regression: an optional integer read through coalesce() beside a folded (@p is null or …) filter answered 500 on ClickHouse when left out', async () => {
    // The page's promise, every way of writing an optional parameter at once: a folded filter
    // (project), coalesce (min_status), ifNull / a second coalesce (limit), an unfolded `is null or`.
    const dir = tempDir('docs-optional-');
    const def = { id: '0b7e3f7e-6a55-4c1d-9f43-0d8c8f0c2b11', name: 'optional.forms', maxRows: 100, cachingSeconds: null, cacheWarmingSeconds: null, sandboxing: false, redactPii: false,
      params: { project: { type: 'string', required: false }, min_status: { type: 'integer', required: false }, limit: { type: 'integer', required: false, min: 1, max: 100 }, path: { type: 'string', required: false } },
      columns: { id: 'string' } };
    writeFileSync(join(dir, 'optional.forms.json'), JSON.stringify(def));
    writeFileSync(join(dir, 'optional.forms.sql'), `select id from edge_logs
where (@project is null or project = @project)
  and (metadata->'response'->>'status_code')::int >= coalesce(@min_status::int, 400)
  and (coalesce(@path, '') = '' or @path is null or metadata->'request'->>'path' = @path)
order by timestamp desc
limit coalesce(@limit::int, 50)
`);
    writeFileSync(join(dir, 'optional.forms.clickhouse.sql'), `select id from {db}.edge_logs
where (@project is null or project = @project)
  and JSONExtractInt(metadata, 'response', 'status_code') >= coalesce(@min_status, 400)
  and (ifNull(@path, '') = '' or @path is null or JSONExtractString(metadata, 'request', 'path') = @path)
order by timestamp desc, id desc
limit ifNull(@limit, 50)
`);
    const forms = await startTestService(store, { QUERIES_DIR: dir });
    try {
      for (const [query, ids] of [
        ['', ['other', 'denied', 'broken', 'missing']],
        ['project=default', ['denied', 'broken', 'missing']],
        ['project=default&min_status=500', ['broken']],
        ['min_status=&limit=2', ['other', 'denied']],
        ['path=/rest/v1/b', ['missing']],
        ['project=other&min_status=500&limit=1&path=/rest/v1/e', ['other']],
      ] as const) {
        const res = await call(forms.url, `/api/endpoints/query/optional.forms?${query}`);
        const text = await res.text();
        assert.equal(res.status, 200, `${query}: ${text}`);
        assert.deepEqual((JSON.parse(text) as { result: { id: string }[] }).result.map((r) => r.id), ids, query);
      }
    } finally {
      await forms.close();
    }
  });

  test('its bad inputs get the messages the page quotes', async () => {
    const bad = (await (await call(svc.url, '/api/endpoints/query/errors.recent?project=default&min_status=abc')).json()) as { error: { code: string; message: string } };
    assert.equal(bad.error.code, 'invalid_parameter');
    assert.ok(page.includes(`("${bad.error.message}")`.replace(/\s+/g, ' ')) || page.replace(/\s+/g, ' ').includes(`("${bad.error.message}")`), bad.error.message);
    const typo = (await (await call(svc.url, '/api/endpoints/query/errors.recent?project=default&min_staus=400')).json()) as { error: { code: string; message: string } };
    assert.equal(typo.error.code, 'unknown_parameter');
    assert.match(typo.error.message, /did you mean min_status\?/);
    const listing = (await (await call(svc.url, '/api/endpoints')).json()) as { result: { name: string; parameters: { name: string; type: string; min?: number }[] }[] };
    const listed = listing.result.find((q) => q.name === 'errors.recent');
    assert.deepEqual(listed?.parameters.map((p) => [p.name, p.type, p.min]), [['project', 'string', undefined], ['min_status', 'integer', 100], ['limit', 'integer', 1]]);
  });

  test('the load-time error the page quotes is the one a misspelt field gives', () => {
    const quoted = /`start-up failed: …\/errors\.recent\.json: (.+?)`/.exec(page.replace(/\n/g, ' '))?.[1];
    assert.ok(quoted);
    const dir = tempDir('docs-typo-');
    const files = exampleFiles();
    const json = JSON.parse(files.get('errors.recent.json')!) as { params: { limit: Record<string, unknown> } };
    json.params.limit = { type: 'integer', required: false, min: 1, mx: 500 };
    writeFileSync(join(dir, 'errors.recent.json'), JSON.stringify(json));
    for (const file of ['errors.recent.sql', 'errors.recent.clickhouse.sql']) writeFileSync(join(dir, file), files.get(file)!);
    return startTestService(store, { QUERIES_DIR: dir }).then(
      () => assert.fail('start-up must refuse the definition'),
      (err: Error) => assert.equal(err.message, `${join(dir, 'errors.recent.json')}: ${quoted}`),
    );
  });
});
