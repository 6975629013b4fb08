import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../src/process/logger.ts';
import type { LogLevel } from '../../src/process/config.ts';

function capture(level: LogLevel) {
  const lines: { line: string; level: LogLevel }[] = [];
  return { lines, logger: createLogger(level, (line, lvl) => lines.push({ line, level: lvl })) };
}

test('a line is one JSON object: time, level, msg, then the fields in their order; undefined fields left out', () => {
  const { lines, logger } = capture('info');
  logger.info('request', { request_id: 'r-1', status: 200, rows: undefined, path: '/a"b\n' });
  logger.warn('no fields');
  assert.equal(lines.length, 2);
  const first = JSON.parse(lines[0]!.line) as Record<string, unknown>;
  assert.deepEqual(Object.keys(first), ['time', 'level', 'msg', 'request_id', 'status', 'path']);
  assert.deepEqual({ ...first, time: undefined }, { time: undefined, level: 'info', msg: 'request', request_id: 'r-1', status: 200, path: '/a"b\n' });
  assert.match(first.time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(Math.abs(Date.parse(first.time as string) - Date.now()) < 5_000);
  assert.deepEqual(Object.keys(JSON.parse(lines[1]!.line) as object), ['time', 'level', 'msg']);
  assert.equal(lines[1]!.level, 'warn');
});

test('levels below the configured one are dropped, and enabled() says so', () => {
  const table: [LogLevel, string[]][] = [
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['error', ['error']],
    ['silent', []],
  ];
  for (const [configured, written] of table) {
    const { lines, logger } = capture(configured);
    for (const lvl of ['debug', 'info', 'warn', 'error'] as const) logger[lvl]('m');
    assert.deepEqual(lines.map((l) => l.level), written, configured);
    assert.deepEqual((['debug', 'info', 'warn', 'error'] as const).filter((l) => logger.enabled(l)), written, configured);
  }
});

test('infoMembersWriter: lines from fields already written as JSON members, each with its writer\'s message; none below info', () => {
  const { lines, logger } = capture('info');
  const request = logger.infoMembersWriter('request')!;
  const bare = logger.infoMembersWriter('bare')!;
  const quoted = logger.infoMembersWriter('quote"d')!;
  request('"status":200,"path":"/a\\"b"');
  bare('');
  quoted('"n":1');
  request('"n":2');
  const first = JSON.parse(lines[0]!.line) as Record<string, unknown>;
  assert.deepEqual(Object.keys(first), ['time', 'level', 'msg', 'status', 'path']);
  assert.deepEqual([first.level, first.msg, first.status, first.path], ['info', 'request', 200, '/a"b']);
  assert.deepEqual(Object.keys(JSON.parse(lines[1]!.line) as object), ['time', 'level', 'msg']);
  // The message of each line is its own writer's, escaped.
  assert.deepEqual(lines.map((l) => (JSON.parse(l.line) as { msg: string }).msg), ['request', 'bare', 'quote"d', 'request']);
  for (const level of ['warn', 'error', 'silent'] as const) {
    const quiet = capture(level);
    assert.equal(quiet.logger.infoMembersWriter('request'), undefined, level);
    assert.equal(quiet.lines.length, 0, level);
  }
});
