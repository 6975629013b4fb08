import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchRoute, splitTarget } from '../../src/http/router.ts';

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
  ['/', null],
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
