/**
 * The documentation runner's reading of the pages (scripts/docs/): markers, commands, the values a
 * reader fills in and the loose comparison of shown outputs. The run itself is `npm run test:docs`
 * (.ci/run); this table keeps an unmarked block from reaching it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allBlocks, commands, markerProblems, pages, parseAction, readBlocks, serviceCommand } from '../../scripts/docs/blocks.ts';
import { PASSWORD, substitute } from '../../scripts/docs/reader-values.ts';
import { outputMismatch } from '../../scripts/docs/shown-output.ts';

test('every shell and SQL block of README.md and docs/ says whether and how it is run', () => {
  const blocks = allBlocks();
  const problems = pages().flatMap((p) => markerProblems(blocks.filter((b) => b.page === p)));
  assert.deepEqual(problems, []);
  assert.ok(blocks.filter((b) => b.action.kind === 'run').length >= 10, 'the README and docs have their run blocks');
  for (const b of blocks) if (b.action.kind === 'not-run') assert.ok(b.action.reason.length >= 20, `${b.page}:${b.line}: a reason, not a shrug`);
});

test('markers: each form, and malformed ones refused', () => {
  const cases: [string, unknown][] = [
    ['run', { kind: 'run', expectStatus: null }],
    ['run; expect 400', { kind: 'run', expectStatus: 400 }],
    ['output', { kind: 'output' }],
    ['psql postgres://admin@db:5432/logs', { kind: 'psql', url: 'postgres://admin@db:5432/logs' }],
    ['write sql/queries/x.json', { kind: 'write', path: 'sql/queries/x.json' }],
    ['not run: needs a server', { kind: 'not-run', reason: 'needs a server' }],
  ];
  for (const [marker, want] of cases) assert.deepEqual(parseAction(marker), want, marker);
  for (const bad of ['', 'skip', 'run; expect four hundred', 'not run:', 'psql', 'Run']) assert.throws(() => parseAction(bad), /unknown docs-test marker/, bad);
});

test('an unmarked command block, or an unmarked block after a run block, is a problem', () => {
  const page = (md: string) => markerProblems(readBlocks('p.md', md));
  assert.match(page('text\n\n```sh\nnpm start\n```\n').join(), /p\.md:3: a sh block without a docs-test marker/);
  assert.match(page('```sql\nselect 1\n```\n').join(), /a sql block without/);
  assert.match(page('<!-- docs-test: run -->\n```sh\ncurl x\n```\n```json\n{}\n```\n').join(), /p\.md:5: the block after a run block needs a marker/);
  assert.match(page('```json\n{}\n```\n<!-- docs-test: output -->\n```json\n{}\n```\n').join(), /an output block that does not follow a run block/);
  assert.match(page('<!-- docs-test: psql x -->\n```sh\nls\n```\n').join(), /a psql marker on a sh block/);
  assert.deepEqual(page('<!-- docs-test: run -->\n```sh\ncurl x\n```\n\nprose\n\n```yaml\na: 1\n```\n'), []);
  assert.deepEqual(page('1. step\n   <!-- docs-test: run -->\n   ```sh\n   createdb logs\n   ```\n'), []);
  assert.throws(() => readBlocks('p.md', '```sh\nnever closed\n'), /p\.md:1: the fence is never closed/);
  assert.equal(readBlocks('p.md', '   ```sh\n   a \\\n     b\n   ```\n')[0]!.text, 'a \\\n  b');
});

test('commands: comments dropped, continuations and here-documents kept whole', () => {
  assert.deepEqual(commands('# a comment\nnpm ci\n\ncurl a \\\n  -d b   # note\nls'), ['npm ci', 'curl a \\\n  -d b   # note', 'ls']);
  assert.deepEqual(commands("curl -G x \\\n  --data-urlencode 'sql=select 1\n    from t'\necho \"it's\" # don't\nls"), ["curl -G x \\\n  --data-urlencode 'sql=select 1\n    from t'", 'echo "it\'s" # don\'t', 'ls']);
  assert.deepEqual(commands("psql x <<'SQL'\nselect 1;\n# not a comment here\nSQL\necho done"), ["psql x <<'SQL'\nselect 1;\n# not a comment here\nSQL", 'echo done']);
});

test('service commands are found, with what runs before them', () => {
  const cases: [string, ReturnType<typeof serviceCommand>][] = [
    ['npm install && npm start      # embedded', { before: 'npm install', service: 'npm start' }],
    ['COMPAT=logflare npm start', { before: null, service: 'COMPAT=logflare npm start' }],
    ['DATABASE_URL=x ACCESS_TOKENS=$TOKEN \\\n  INGEST_TOKENS=y npm start', { before: null, service: 'DATABASE_URL=x ACCESS_TOKENS=$TOKEN INGEST_TOKENS=y npm start' }],
    ['MALLOC_ARENA_MAX=2 node --max-semi-space-size=4 dist/main.js', { before: null, service: 'MALLOC_ARENA_MAX=2 node --max-semi-space-size=4 dist/main.js' }],
    ['node dist/main.js serve', { before: null, service: 'node dist/main.js serve' }],
    ['node dist/main.js schema', null],
    ['npm run schema', null],
    ['npm start -- --help', null],
    ['npm install && npm test', null],
    ['curl http://127.0.0.1:4000/', null],
  ];
  for (const [command, want] of cases) assert.deepEqual(serviceCommand(command), want, command);
});

test('the values a reader fills in', () => {
  const ctx = { pgPort: 5999, printedToken: 'tok-123' };
  const cases: [string, string][] = [
    ['DATABASE_URL=postgres://admin@db:5432/logs npm run schema', 'DATABASE_URL=postgres://postgres@127.0.0.1:5999/logs npm run schema'],
    ['postgres://endpoints:…@db:5432/logs', `postgres://endpoints:${PASSWORD}@127.0.0.1:5999/logs`],
    ["create role endpoints login password '…';", `create role endpoints login password '${PASSWORD}';`],
    ['TOKEN=…   # printed by npm start', 'TOKEN=tok-123   # printed by npm start'],
    ['INGEST_TOKEN=$(openssl rand -hex 24)', 'INGEST_TOKEN=$(openssl rand -hex 24)'],
    ['curl … unchanged', 'curl … unchanged'],
  ];
  for (const [text, want] of cases) assert.equal(substitute(text, ctx), want, text);
  assert.throws(() => substitute('TOKEN=…', { pgPort: 1, printedToken: null }), /printed no token/);
});

test('shown outputs: loose where values vary, exact in keys, words and structure', () => {
  const json = '{"result":[{"id":"3c6abb22-41c6","timestamp":"2026-11-22T05:10:44.829863Z","n":95,"method":"…"}, …]}';
  const http = 'HTTP/1.1 200 OK\nX-Request-Id: 95f7b9ef-809e\nCache-Status: endpoints; fwd=miss; stored; ttl=899\n\n{"result":[{"n":1}, …]}';
  const cases: [string, string, string | null][] = [
    [json, '{"result":[{"id":"a1","timestamp":"2030-01-01T00:00:00.000000Z","n":7,"method":"GET"},{"id":"b2"}]}', null],
    [json, '{"result":[{"id":"a1","timestamp":"2030-01-01T00:00:00.000000Z","count":7,"method":"GET"}]}', 'the output differs from the one shown'],
    [json, '{"result":[]}', 'the output differs from the one shown'],
    ['{"message":"Logged!"}', '{"message":"Logged!"}', null],
    ['{"message":"Logged!"}', '{"message":"Accepted"}', 'the output differs from the one shown'],
    ['{"level": "info"}', '{"level":"info"}', null],
    [http, 'HTTP/1.1 200 OK\r\nDate: x\r\nCache-Status: endpoints; fwd=miss; stored; ttl=900\r\nX-Request-Id: 1f\r\n\r\n{"result":[{"n":3},{"n":4}]}', null],
    [http, 'HTTP/1.1 400 Bad Request\r\nX-Request-Id: 1f\r\n\r\n{}', 'status 400, shown 200'],
    [http, 'HTTP/1.1 200 OK\r\nCache-Status: endpoints; fwd=miss; stored; ttl=900\r\n\r\n{"result":[{"n":3}]}', 'no x-request-id header'],
    [http, 'HTTP/1.1 200 OK\r\nX-Request-Id: 1f\r\nCache-Status: endpoints; hit; ttl=900\r\n\r\n{"result":[{"n":3}]}', 'cache-status: endpoints; hit; ttl=900, shown endpoints; fwd=miss; stored; ttl=899'],
  ];
  for (const [shown, actual, want] of cases) assert.equal(outputMismatch(shown, actual), want, `${shown} vs ${actual}`);
});
