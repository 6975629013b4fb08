import assert from 'node:assert/strict';
import { METHODS } from 'node:http';
import { test } from 'node:test';
import type { RequestContext } from '../../src/http/request-context.ts';
import { RequestIds } from '../../src/http/request-ids.ts';
import { hundredths, requestLineMembers } from '../../src/http/request-line.ts';
import { HOSTILE_STRINGS } from '../support/hostile-strings.ts';

type Fields = { requestId: string; method?: string; url: string; pathname: string; query: string; rows?: number; cache?: string; code?: string; client?: string };

/** A context with just what the request line reads. */
function context(f: Fields): RequestContext {
  return {
    requestId: f.requestId,
    req: { method: f.method, url: f.url, socket: { remoteAddress: f.client } },
    pathname: f.pathname,
    query: f.query,
    rows: f.rows,
    cache: f.cache,
    code: f.code,
  } as unknown as RequestContext;
}

test('the request line holds the contract fields, undefined ones left out, hostile paths escaped and cut', () => {
  const long = '/' + 'p'.repeat(300);
  const table: { name: string; f: Fields; status: number; ms: number; want: Record<string, unknown> }[] = [
    {
      name: 'a hit',
      f: { requestId: 'r-1', method: 'GET', url: '/api/endpoints/query/usage.api-counts?project=x', pathname: '/api/endpoints/query/usage.api-counts', query: 'usage.api-counts', rows: 12, cache: 'hit', client: '127.0.0.1' },
      status: 200,
      ms: 0.04321,
      want: { request_id: 'r-1', method: 'GET', path: '/api/endpoints/query/usage.api-counts', query: 'usage.api-counts', status: 200, duration_ms: 0.04, rows: 12, cache: 'hit', client: '127.0.0.1' },
    },
    {
      name: 'an error before routing, client gone',
      f: { requestId: 'b6c71fcd-b4f6-487f-903f-ee8e1adc2785', method: 'POST', url: '/a"b\\c\n\u2028é?token=secret', pathname: '', query: '', code: 'not_found' },
      status: 499,
      ms: 12.3456,
      want: { request_id: 'b6c71fcd-b4f6-487f-903f-ee8e1adc2785', method: 'POST', path: '/a"b\\c\n\u2028é', status: 499, duration_ms: 12.35, code: 'not_found' },
    },
    {
      name: 'a long path',
      f: { requestId: 'r-3', method: 'GET', url: long, pathname: long, query: '', client: '::1' },
      status: 404,
      ms: 1,
      want: { request_id: 'r-3', method: 'GET', path: long.slice(0, 200) + '…', status: 404, duration_ms: 1, client: '::1' },
    },
  ];
  for (const c of table) {
    const members = requestLineMembers(context(c.f), c.status, c.ms);
    const parsed = JSON.parse(`{${members}}`) as Record<string, unknown>;
    assert.deepEqual(parsed, c.want, c.name);
    assert.deepEqual(Object.keys(parsed), Object.keys(c.want), `${c.name}: field order`);
    assert.ok(!members.includes('secret'), `${c.name}: no query string`);
  }
});

test('duration_ms: hundredths() is the text of Math.round(ms * 100) / 100, which it replaced', () => {
  const old = (ms: number) => String(Math.round(ms * 100) / 100);
  // Every hundredth up to 2,000 ms, each hit exactly and from either side of its rounding edge.
  for (let h = 0; h <= 200_000; h++) {
    for (const ms of [h / 100, h / 100 + 0.004999, h / 100 + 0.005, Math.max(0, h / 100 - 0.005)]) assert.equal(hundredths(ms), old(ms), String(ms));
  }
  // Longer durations, up to 10^11 ms, from a fixed sequence (a failure names its input).
  let x = 12345;
  for (let i = 0; i < 200_000; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const ms = (x / 2 ** 31) * 10 ** (2 + (i % 10));
    assert.equal(hundredths(ms), old(ms), String(ms));
  }
});

test('the request id and the method go in unescaped: every id RequestIds gives and every method node parses is its own JSON text', () => {
  const ids = new RequestIds();
  const sent: (string | string[] | undefined)[] = [...HOSTILE_STRINGS, 'abc-123_x.y:z', 'a'.repeat(128), 'a'.repeat(129), ['two', 'values'], undefined];
  for (const incoming of sent) {
    const requestId = ids.for(incoming);
    const members = requestLineMembers(context({ requestId, method: 'GET', url: '/', pathname: '/', query: '' }), 200, 1);
    assert.equal((JSON.parse(`{${members}}`) as { request_id: string }).request_id, requestId, JSON.stringify(incoming));
  }
  // node:http's parser (llhttp) accepts only these methods and answers any other with a 400 before the handler runs.
  for (const method of METHODS) {
    const members = requestLineMembers(context({ requestId: 'r', method, url: '/', pathname: '/', query: '' }), 200, 1);
    assert.equal((JSON.parse(`{${members}}`) as { method: string }).method, method);
  }
});
