/**
 * The real process as `npm start` runs it (the build, `node [flags] dist/main.js`): start-up
 * output, a bad environment value, and graceful shutdown on SIGTERM/SIGINT with a request in flight.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { pgFactory, queryOnce, type TestStore } from './support/engines.ts';
import { createDatabase } from '../scripts/lib/pg-server.ts';
import { activeSleeps, waitFor } from './support/ops.ts';
import { SLOW_QUERIES_DIR } from './support/slow-queries.ts';
import { serviceChildEnv, TOKEN } from './support/service.ts';
import { npmStartCommand } from '../scripts/lib/npm-start.ts';
import { TEMPORARY_STORE_PREFIX } from '../src/store/pglite/pglite-engine.ts';
import { tempDir } from './support/temp-dir.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Built once for the whole file, as `npm start`'s prestart does. */
const START = npmStartCommand();

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Spawn the service with exactly `env` (on top of the parent's non-service variables). */
function spawnMain(env: Record<string, string>, args: string[] = []): Running {
  const child = spawn(process.execPath, [...START.nodeArgs, START.script, ...args], { cwd: ROOT, env: serviceChildEnv({ ...START.env, ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (err += d));
  // 'close', not 'exit': 'exit' can come before the last stdout chunk is read, and the logger
  // writes its pending lines (the 'shut down' line among them) as the process exits.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Run `node dist/main.js <args>` to the end with exactly `env` (on top of the parent's non-service variables). */
function runCommand(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawnMain(env, args);
  return p.exited.then(({ code }) => ({ code, stdout: p.stdout(), stderr: p.stderr() }));
}

/** Wait for the start-up line and return the address it names. */
async function listening(p: Running): Promise<string> {
  let url = '';
  await waitFor('the start-up line', () => {
    const m = /listening on (http:\/\/\S+)/.exec(p.stdout());
    if (m) url = m[1]!;
    if (p.child.exitCode !== null) throw new Error(`exited early (${p.child.exitCode}): ${p.stderr()}`);
    return url !== '';
  }, 30_000, 50);
  return url;
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('the process', () => {
  const running: Running[] = [];
  const track = (p: Running) => (running.push(p), p);
  after(() => {
    // Only children this suite started, by their own handle.
    for (const p of running) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  });

  test('a bad environment value stops start-up with one line naming the variable and the expected form', async () => {
    const p = track(spawnMain({ PORT: 'http', LOG_LEVEL: 'info' }));
    const { code } = await p.exited;
    assert.equal(code, 2);
    assert.equal(p.stderr(), 'configuration error: PORT must be an integer between 0 and 65535, got "http"\n');
    assert.equal(p.stdout(), '');
  });

  test('embedded: prints address, engine, stored queries and a generated token that works; SIGINT exits 0', async () => {
    const p = track(spawnMain({ PORT: '0', SEED_ROWS: '0', LOG_LEVEL: 'info' }));
    const url = await listening(p);
    const out = p.stdout();
    assert.match(out, /saved-query endpoints listening on http:\/\/127\.0\.0\.1:\d+ \(engine: pglite; stored queries: logs\.all, usage\.api-counts; ingest: off\)\n/);
    assert.match(out, /\nexplorer: open http:\/\/127\.0\.0\.1:\d+\/ in a browser\n/);
    const token = /access token \(generated for this run; set ACCESS_TOKENS to choose one\): (\S+)\n/.exec(out)?.[1];
    assert.ok(token);
    const res = await fetch(`${url}/api/endpoints/query/logs.all?project=none`, { headers: { 'X-API-KEY': token } });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { result: [] });
    p.child.kill('SIGINT');
    const { code } = await p.exited;
    assert.equal(code, 0);
    assert.ok(jsonLines(p.stdout()).some((l) => l.msg === 'shut down' && l.signal === 'SIGINT'));
  });

  // Regression: in the container (HOST=0.0.0.0) it told the reader to open http://0.0.0.0:4000/.
  test('listening on every interface: the start-up line says so, the lines to open and curl name 127.0.0.1; ingest on is said', async () => {
    const p = track(spawnMain({ PORT: '0', HOST: '0.0.0.0', SEED_ROWS: '0', INGEST_TOKENS: `${TOKEN}-ingest` }));
    await listening(p);
    const out = p.stdout();
    assert.match(out, /listening on http:\/\/0\.0\.0\.0:\d+ \(engine: pglite; stored queries: logs\.all, usage\.api-counts; ingest: on, 1 token\)\n/);
    assert.match(out, /\ntry: curl -H 'X-API-KEY: \S+' 'http:\/\/127\.0\.0\.1:\d+\/api\/endpoints\/query\/logs\.all\?project=default'\n/);
    assert.match(out, /\nexplorer: open http:\/\/127\.0\.0\.1:\d+\/ in a browser \(from another machine: this host's address\)\n/);
    p.child.kill('SIGTERM');
    assert.equal((await p.exited).code, 0);
  });

  // Regression: DATABSE_URL=… quietly started the demo store.
  test('a variable that looks like a misspelt setting is warned about at start-up, naming the setting', async () => {
    const p = track(spawnMain({ PORT: '0', SEED_ROWS: '0', DATABSE_URL: 'postgres://db/logs' }));
    await listening(p);
    const warning = jsonLines(p.stderr()).find((l) => l.level === 'warn');
    assert.equal(warning?.msg, 'environment variable DATABSE_URL is not a setting and is ignored; did you mean DATABASE_URL?');
    p.child.kill('SIGTERM');
    assert.equal((await p.exited).code, 0);
  });

  test('node dist/main.js: an unknown command or argument exits 1 with the usage; schema without DATABASE_URL says what it needs', async () => {
    const unknown = await runCommand(['migrate'], {});
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^migrate: unknown command "migrate"\nusage: node dist\/main\.js \[command\]/);
    const schema = await runCommand(['schema'], {});
    assert.equal(schema.code, 1);
    assert.equal(schema.stderr, 'schema: DATABASE_URL is not set: the schema command applies the log-store schema to that PostgreSQL database.\n');
    const seed = await runCommand(['seed', '--rows', 'many'], {});
    assert.equal(seed.code, 1);
    assert.match(seed.stderr, /^seed: --rows needs a non-negative integer, got "many"/);
  });

  test('embedded: DATA_DIR keeps the store across restarts (seeded once); without it, a temporary directory removed on exit', async () => {
    const tmp = tempDir('proc-embedded-');
    const stores = () => readdirSync(tmp).filter((n) => n.startsWith(TEMPORARY_STORE_PREFIX)).length;
    const run = async (env: Record<string, string>) => {
      const p = track(spawnMain({ PORT: '0', SEED_ROWS: '20', LOG_LEVEL: 'info', ACCESS_TOKENS: TOKEN, TMPDIR: tmp, ...env }));
      const url = await listening(p);
      const res = await fetch(`${url}/api/endpoints/query/logs.all?project=default`, { headers: { 'X-API-KEY': TOKEN } });
      const rows = ((await res.json()) as { result: unknown[] }).result.length;
      const storesWhileUp = stores();
      p.child.kill('SIGTERM');
      assert.equal((await p.exited).code, 0);
      const seeded = jsonLines(p.stdout()).some((l) => l.msg === 'embedded store seeded with demo logs');
      return { rows, seeded, storesWhileUp, storesAfter: stores() };
    };
    const dataDir = join(tmp, 'store');
    const first = await run({ DATA_DIR: dataDir });
    const second = await run({ DATA_DIR: dataDir });
    assert.ok(first.rows > 0);
    assert.deepEqual([first.seeded, second.seeded, second.rows], [true, false, first.rows]);
    assert.deepEqual([first.storesWhileUp, second.storesWhileUp], [0, 0]);
    const temporary = await run({});
    assert.deepEqual([temporary.seeded, temporary.storesWhileUp, temporary.storesAfter], [true, 1, 0]);
  });

  describe('on real PostgreSQL', () => {
    let store: TestStore;
    before(async () => {
      store = await pgFactory.open();
    });
    after(async () => {
      await store?.teardown();
    });

    test('node dist/main.js schema, then seed: the production commands (no tsx) apply the schema and write demo rows', async () => {
      const url = await createDatabase(store.server!, `proc_cmd_${process.pid}`);
      const schema = await runCommand(['schema'], { DATABASE_URL: url });
      assert.equal(schema.code, 0, schema.stderr);
      assert.match(schema.stdout, /^Applied sql\/schema\.sql to schema "logs" at 127\.0\.0\.1:\d+\/proc_cmd_\d+: 9 tables/);
      const seed = await runCommand(['seed', '--rows', '200'], { DATABASE_URL: url });
      assert.equal(seed.code, 0, seed.stderr);
      assert.match(seed.stdout, /edge_logs\s+200 inserted/);
      const [row] = await queryOnce<{ n: string }>(url, 'select count(*)::text as n from logs.edge_logs');
      assert.equal(row?.n, '200');
    });

    test('a token scope naming no stored query stops start-up naming the file line', async () => {
      const file = join(tempDir('proc-tokens-'), 'tokens');
      writeFileSync(file, `${TOKEN} logs.all,logs.missing\n`);
      const p = track(spawnMain({ PORT: '0', DATABASE_URL: store.url!, ACCESS_TOKENS_FILE: file }));
      const { code } = await p.exited;
      assert.equal(code, 2);
      assert.equal(p.stderr(), 'configuration error: ACCESS_TOKENS_FILE line 1: no stored query named or with id "logs.missing"\n');
    });

    test('SIGTERM during a slow request: it completes with 200, new connections are refused, exit 0 well within 10 s', async () => {
      const p = track(spawnMain({ PORT: '0', DATABASE_URL: store.url!, ACCESS_TOKENS: TOKEN, QUERIES_DIR: SLOW_QUERIES_DIR, LOG_LEVEL: 'info' }));
      const url = await listening(p);
      assert.match(p.stdout(), /\(engine: pg; stored queries: test\.slow; access tokens: 1; ingest: off\)\n/);
      assert.ok(!p.stdout().includes(TOKEN), 'a configured token is never printed');

      const pending = fetch(`${url}/api/endpoints/query/test.slow?seconds=1.5`, { headers: { 'X-API-KEY': TOKEN } });
      let answered = false;
      void pending.then(() => (answered = true));
      await waitFor('the statement to run', async () => (await activeSleeps(store)) === 1, 5_000);
      const signalled = Date.now();
      p.child.kill('SIGTERM');
      // A bare TCP connect, never a request: fetch would reuse a keep-alive connection opened before
      // the listener closed, and its request would be answered 503 during the drain (and logged).
      const { hostname, port } = new URL(url);
      const refused = () =>
        new Promise<boolean>((resolve) => {
          const socket = connect(Number(port), hostname);
          socket.once('connect', () => {
            socket.destroy();
            resolve(false);
          });
          socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
        });
      await waitFor('new connections to be refused', refused, 1_000, 50);
      assert.equal(answered, false, 'the listener closed while the request was still running');

      const res = await pending;
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { result: [{ seconds: '1.5', status: 'done' }] });
      const { code, at } = await p.exited;
      assert.equal(code, 0);
      assert.ok(at - signalled < 10_000, `exited ${at - signalled} ms after SIGTERM`);
      assert.ok(at - signalled >= 1_000, 'it waited for the in-flight request');

      // The request log is JSON lines on stdout, with the stored query and no token or parameter value.
      const lines = jsonLines(p.stdout());
      const request = lines.find((l) => l.msg === 'request' && l.query === 'test.slow');
      assert.ok(request);
      assert.deepEqual([request.status, request.path, request.rows, request.cache], [200, '/api/endpoints/query/test.slow', 1, 'bypass']);
      assert.ok(!p.stdout().includes('seconds='), 'no query string in the log');
      assert.ok(!Object.values(request).includes('1.5'), 'no parameter value in the request line');
      assert.ok(lines.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM'));
      assert.equal(p.stderr(), '');
    });

    test('a second signal during the drain exits at once with 1', async () => {
      const p = track(spawnMain({ PORT: '0', DATABASE_URL: store.url!, ACCESS_TOKENS: TOKEN, QUERIES_DIR: SLOW_QUERIES_DIR }));
      const url = await listening(p);
      const pending = fetch(`${url}/api/endpoints/query/test.slow?seconds=3`, { headers: { 'X-API-KEY': TOKEN } }).catch((err: Error) => err.name);
      await waitFor('the statement to run', async () => (await activeSleeps(store)) === 1, 5_000);
      p.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(p.child.exitCode, null, 'still draining after the first signal');
      const second = Date.now();
      p.child.kill('SIGINT');
      const { code, at } = await p.exited;
      assert.equal(code, 1);
      assert.ok(at - second < 1_000, `exited ${at - second} ms after the second signal`);
      assert.equal(await pending, 'TypeError');
      assert.match(p.stderr(), /"msg":"second signal: exiting without waiting","signal":"SIGINT"/);
      // PostgreSQL does not notice a vanished client during pg_sleep: let the orphan end before other tests look.
      await waitFor('the orphaned statement to end', async () => (await activeSleeps(store)) === 0, 10_000);
    });
  });
});
