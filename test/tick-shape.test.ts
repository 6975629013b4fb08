/**
 * Regression: after a full GC at a moment when no `process.nextTick` entry was alive (start-up has
 * one, and an idle server has them), node's nextTick went megamorphic for the rest of the process's
 * life, and every request paid for it (~250 ns a nextTick, about seven a request; the cached call
 * at c=32 fell from 0.67× to 0.57× the bare node:http server in the bench; README, Performance).
 * The process keeps one entry alive (src/process/tick-shape.ts). Each test runs a process with
 * test/support/tick-shape-signals.cjs preloaded: use, full GC while idle, use again, then read the
 * feedback V8 keeps for the entry literal's four property definitions (two symbols, callback, args).
 * The plain process is the control: it shows the test can see the state it guards against.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { npmStartCommand } from '../scripts/lib/npm-start.ts';
import { waitFor } from './support/ops.ts';
import { serviceChildEnv, TOKEN } from './support/service.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SIGNALS = fileURLToPath(new URL('./support/tick-shape-signals.cjs', import.meta.url));
const PROBE_FLAGS = ['--expose-gc', '--allow-natives-syntax', '--require', SIGNALS];

interface Probed {
  child: ChildProcess;
  stdout: () => string;
}

/**
 * The child's stdout is a file, not a pipe: node makes a stdout pipe non-blocking, and C's stdout,
 * which V8's %DebugPrint writes through, drops what a full pipe refuses. `stdbuf -o0` (coreutils)
 * unbuffers C's stdout, so what it prints is in the file before the line node writes after it.
 */
function spawnProbed(args: string[], env: Record<string, string> = {}): Probed {
  // Coverage off: c8 (npm test) sets NODE_V8_COVERAGE, and spawn() adds the parent's value to a
  // child's env that lacks it (an empty one turns it off). Under V8's coverage mode a process goes
  // megamorphic here even when pinned first thing (measured); production never runs under it.
  // The child's TMPDIR (the embedded store's temporary directory) is this directory too: all of it
  // goes when the child does.
  const dir = mkdtempSync(join(tmpdir(), 'tick-shape-'));
  const file = join(dir, 'stdout');
  const fd = openSync(file, 'w+');
  const child = spawn('stdbuf', ['-o0', process.execPath, ...PROBE_FLAGS, ...args], {
    cwd: ROOT,
    env: serviceChildEnv({ NODE_V8_COVERAGE: '', TMPDIR: dir, ...env }),
    stdio: ['ignore', fd, 'inherit'],
  });
  closeSync(fd);
  child.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return { child, stdout: () => readFileSync(file, 'utf8') };
}

/** Wait for `what` on the child's stdout (failing at once if the child has exited). */
async function until(p: Probed, what: RegExp): Promise<void> {
  await waitFor(`${what} on the child's stdout`, () => {
    if (p.child.exitCode !== null) throw new Error(`exited (${p.child.exitCode}) before ${what}:\n${p.stdout()}`);
    return what.test(p.stdout());
  }, 30_000, 20);
}

/** Use, idle full GC, use again, then the IC state of each of the entry literal's definitions. */
async function statesAfterIdleGc(p: Probed, use: () => Promise<void>): Promise<string[]> {
  await use();
  await sleep(50);
  p.child.kill('SIGUSR2');
  await until(p, /TICK-SHAPE GC/);
  await use();
  p.child.kill('SIGUSR2');
  await until(p, /TICK-SHAPE PRINTED/);
  const printed = p.stdout();
  p.child.kill('SIGKILL');
  const states = [...printed.matchAll(/slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]!);
  // If a future node builds the entry differently, say so rather than pass on nothing.
  assert.equal(states.length, 4, `expected the entry literal's four definitions in nextTick's feedback:\n${printed.slice(0, 3000)}`);
  return states;
}

describe('process.nextTick after a full GC with no entry alive', () => {
  const children: ChildProcess[] = [];
  after(() => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });

  test('a plain node process goes megamorphic (the state the service guards against)', { timeout: 60_000 }, async () => {
    // Some use before the GC, then idle (the preload uses nextTick again after it).
    const p = spawnProbed(['-e', 'for (let i = 0; i < 100; i++) process.nextTick(() => {}, i); setInterval(() => {}, 1000); console.log("READY")']);
    children.push(p.child);
    await until(p, /READY/);
    const states = await statesAfterIdleGc(p, async () => {});
    assert.ok(states.includes('MEGAMORPHIC'), `node no longer goes megamorphic here (${states.join(', ')}); src/process/tick-shape.ts may be unnecessary`);
  });

  test('the service (npm start) stays monomorphic across requests, an idle full GC and more requests', { timeout: 90_000 }, async () => {
    const start = npmStartCommand();
    const p = spawnProbed([...start.nodeArgs, start.script], { ...start.env, PORT: '0', HOST: '127.0.0.1', SEED_ROWS: '200', ACCESS_TOKENS: TOKEN, LOG_LEVEL: 'silent' });
    children.push(p.child);
    await until(p, /listening on http:\/\/\S+/);
    const url = /listening on (http:\/\/\S+)/.exec(p.stdout())![1]!;
    const use = async () => {
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${url}/api/endpoints/query/logs.all?project=default`, { headers: { 'X-API-KEY': TOKEN } });
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      }
    };
    const states = await statesAfterIdleGc(p, use);
    assert.deepEqual(states, ['MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC']);
  });
});
