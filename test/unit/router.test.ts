import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchRoute, splitTarget, TargetMemo, TARGET_MEMO_MAX_CHARS } from '../../src/http/router.ts';

const ROUTES: [string, unknown][] = [
  ['/health', { kind: 'health' }],
  ['/ready', { kind: 'ready' }],
  ['/metrics', { kind: 'metrics' }],
  ['/api/endpoints', { kind: 'endpoints' }],
  ['/openapi.json', { kind: 'openapi' }],
  ['/api/endpoints/', null],
  ['/api/endpoints/query/logs.all', { kind: 'query', target: 'logs.all' }],
  ['/api/endpoints/query/usage.api-counts', { kind: 'query', target: 'usage.api-counts' }],
  ['/api/endpoints/query/logs%2Eall', { kind: 'query', target: 'logs.all' }],
  ['/api/endpoints/query/%E0%A4%A', { kind: 'query', target: null }],
  ['/api/endpoints/query/', null],
  ['/api/endpoints/query/a/b', null],
  ['/api/endpoints/query', null],
  ['/health/', null],
  ['/HEALTH', null],
  ['/', { kind: 'page' }],
  ['/explorer/explorer.js', { kind: 'page' }],
  ['/explorer/', null],
  ['/explorer/other.js', null],
  ['/index.html', null],
  ['', null],
];
for (const [path, expected] of ROUTES) {
  test(`matchRoute(${JSON.stringify(path)})`, () => assert.deepEqual(matchRoute(path)?.route ?? null, expected));
}

test('query routes allow GET, HEAD, POST, OPTIONS; health only reads', () => {
  assert.deepEqual(matchRoute('/api/endpoints/query/x')?.allow, ['GET', 'HEAD', 'POST', 'OPTIONS']);
  assert.deepEqual(matchRoute('/health')?.allow, ['GET', 'HEAD']);
  assert.deepEqual(matchRoute('/metrics')?.allow, ['GET', 'HEAD']);
  assert.deepEqual(matchRoute('/api/endpoints')?.allow, ['GET', 'HEAD', 'OPTIONS']);
});

const TARGETS: [string, { pathname: string; search: string }][] = [
  ['/a?b=1', { pathname: '/a', search: 'b=1' }],
  ['/a', { pathname: '/a', search: '' }],
  ['/a?b=1#frag', { pathname: '/a', search: 'b=1' }],
  ['http://host:4000/a?x', { pathname: '/a', search: 'x' }],
  ['http://host', { pathname: '/', search: '' }],
  ['//evil.example/health', { pathname: '//evil.example/health', search: '' }],
  ['*', { pathname: '', search: '' }],
];
for (const [url, expected] of TARGETS) {
  test(`splitTarget(${JSON.stringify(url)})`, () => assert.deepEqual(splitTarget(url), expected));
}

test('TargetMemo: a repeated target is the same resolution (same strings), equal to splitting and matching it', () => {
  const memo = new TargetMemo();
  const url = '/api/endpoints/query/usage.api-counts?interval=daily&project=default';
  const first = memo.resolve(url);
  assert.deepEqual(first, { ...splitTarget(url), match: matchRoute(splitTarget(url).pathname) });
  assert.equal(memo.resolve(url), first);
  // A target that matches nothing is remembered as such, so its 404 is answered the same way.
  assert.equal(memo.resolve('/nope?x=1').match, null);
});

test('TargetMemo: bounded, least recently used first; targets longer than TARGET_MEMO_MAX_CHARS are resolved each time', () => {
  const memo = new TargetMemo(2);
  const a = memo.resolve('/health?a');
  const b = memo.resolve('/health?b');
  assert.equal(memo.resolve('/health?a'), a); // a is now the most recent
  memo.resolve('/health?c'); // evicts b
  assert.equal(memo.resolve('/health?a'), a);
  assert.notEqual(memo.resolve('/health?b'), b);
  assert.deepEqual(memo.resolve('/health?b'), b);
  const long = `/api/endpoints/query/logs.all?sql=${'x'.repeat(TARGET_MEMO_MAX_CHARS)}`;
  const once = memo.resolve(long);
  assert.notEqual(memo.resolve(long), once);
  assert.deepEqual(memo.resolve(long), once);
});
