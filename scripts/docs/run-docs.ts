/**
 * The documents are tests: every block of README.md and docs/*.md a reader is told to run is run
 * here, in page order, on a fresh copy of the repository (what `git clone` of this checkout gives:
 * tracked and unignored files, no node_modules, no dist), in one bash session, as written apart
 * from the values a reader fills in (SUBSTITUTIONS). Shown outputs are compared loosely
 * (shown-output.ts); a block that cannot run here carries its reason (blocks.ts).
 *
 *   npx tsx scripts/docs/run-docs.ts [--keep]     (.ci/run runs it after npm test)
 *
 * Needs what the blocks need: network access to the npm registry, curl, openssl, psql and a
 * PostgreSQL to play "your own PostgreSQL" (a throwaway cluster, scripts/lib/pg-server.ts).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from '../lib/pg-server.ts';
import { allBlocks, commands, markerProblems, pages, serviceCommand, type Block } from './blocks.ts';
import { substitute, type ReaderValues } from './reader-values.ts';
import { outputMismatch } from './shown-output.ts';
import { Session, serviceOutput, stopService, waitListening, type Service } from './session.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The port every page's commands use (the service's default). */
const PORT = 4000;

function copyCheckout(to: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const f of files) {
    try {
      mkdirSync(dirname(join(to, f)), { recursive: true });
      cpSync(join(ROOT, f), join(to, f));
    } catch (e) {
      // A file deleted in the working tree but not yet in the index: not in a clone either.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
}

/** What a service printed for a person: its plain lines, without npm's `> script` banner and the JSON log lines. */
function startupLines(output: string): string {
  return output
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('>') && !l.startsWith('{'))
    .join('\n');
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  const keep = process.argv.includes('--keep');
  const blocks = allBlocks();
  const problems = pages().flatMap((p) => markerProblems(blocks.filter((b) => b.page === p)));
  if (problems.length > 0) throw new Error(`unmarked or misplaced blocks:\n${problems.join('\n')}`);

  const work = mkdtempSync(join(tmpdir(), 'docs-test-'));
  const checkout = join(work, 'checkout');
  const scratch = join(work, 'scratch');
  mkdirSync(scratch);
  copyCheckout(checkout);
  const pg = await startPostgres();
  const ctx: ReaderValues = { pgPort: pg.port, printedToken: null };
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: 'C.UTF-8',
    // Where a reader's `createdb`/`psql` would find their server.
    PGHOST: '127.0.0.1',
    PGPORT: String(pg.port),
    PGUSER: 'postgres',
    ...(process.env.PG_BIN ? { PG_BIN: process.env.PG_BIN } : {}),
    ...(process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {}),
  };
  const session = new Session(checkout, env, scratch);
  let service: Service | null = null;
  let lastStdout = '';
  const notRun: string[] = [];
  const failures: string[] = [];
  const timings: string[] = [];

  const stop = async (): Promise<void> => {
    if (service === null) return;
    const leak = await stopService(service, PORT);
    if (leak !== null) failures.push(`stopping the service: ${leak}\n${serviceOutput(service).slice(-1500)}`);
    service = null;
  };

  const runCommand = async (b: Block, raw: string, expect: number | null): Promise<void> => {
    const command = substitute(raw, ctx);
    const svc = serviceCommand(command);
    const started = Date.now();
    if (svc !== null) {
      await stop();
      if (svc.before !== null) await check(b, svc.before, await session.run(svc.before), expect);
      service = await session.start(svc.service);
      const up = await waitListening(service, 120_000);
      // A reader copies the token a service prints (`TOKEN=…  # printed by npm start`).
      ctx.printedToken = /access token \(generated[^:]*: (\S+)/.exec(serviceOutput(service))?.[1] ?? null;
      if (ctx.printedToken !== null) await session.run(`export TOKEN=${ctx.printedToken}`);
      // Its output, for an output block after it: the service's own plain lines (not npm's banner, not JSON log lines).
      lastStdout = startupLines(serviceOutput(service));
      timings.push(`${b.page}:${b.line} ${raw.split('\n')[0]}: ${seconds(Date.now() - started)} (service listening ${seconds(up.ms)} after its start)`);
      return;
    }
    const r = await session.run(command);
    lastStdout = r.stdout;
    timings.push(`${b.page}:${b.line} ${raw.split('\n')[0]!.slice(0, 100)}: ${seconds(Date.now() - started)}`);
    await check(b, raw, r, expect);
  };

  const check = async (b: Block, raw: string, r: Awaited<ReturnType<Session['run']>>, expect: number | null): Promise<void> => {
    const bad = r.httpStatuses.filter((s) => (expect === null ? s < 200 || s > 299 : s !== expect));
    if (r.status !== 0 || bad.length > 0) {
      const why = r.status !== 0 ? `exit status ${r.status}` : `HTTP ${bad.join(', ')}${expect === null ? '' : ` (expected ${expect})`}`;
      throw new Error(
        `${b.page}:${b.line}: ${why}\n$ ${raw}\n--- stdout\n${r.stdout.slice(-2000)}\n--- stderr\n${r.stderr.slice(-2000)}` +
          (service ? `\n--- service\n${serviceOutput(service).slice(-2000)}` : ''),
      );
    }
  };

  try {
    for (const b of blocks) {
      const a = b.action;
      try {
        if (a.kind === 'run') for (const c of commands(b.text)) await runCommand(b, c, a.expectStatus);
        else if (a.kind === 'output') {
          const why = outputMismatch(b.text, lastStdout);
          if (why !== null) throw new Error(`${b.page}:${b.line}: ${why}\n--- shown\n${b.text}\n--- printed\n${lastStdout.slice(0, 3000)}`);
        } else if (a.kind === 'psql') {
          const url = substitute(a.url, ctx);
          await check(b, `psql ${a.url}`, await session.run(`psql -X -q -v ON_ERROR_STOP=1 '${url}' <<'DOCS_TEST_SQL'\n${substitute(b.text, ctx)}\nDOCS_TEST_SQL`), null);
        } else if (a.kind === 'write') {
          mkdirSync(dirname(join(checkout, a.path)), { recursive: true });
          writeFileSync(join(checkout, a.path), `${b.text}\n`);
        } else if (a.kind === 'not-run') notRun.push(`${b.page}:${b.line} (${b.lang || 'plain'}): ${a.reason}`);
        else continue;
        console.log(`ok ${b.page}:${b.line} ${a.kind}`);
      } catch (e) {
        failures.push((e as Error).message);
        console.log(`FAILED ${b.page}:${b.line} ${a.kind}`);
        // What follows a failed block depends on it: stop here.
        break;
      }
    }
    await stop();
  } finally {
    session.close();
    await pg.destroy();
    if (!keep) rmSync(work, { recursive: true, force: true });
  }

  console.log(`\ntimes:\n  ${timings.join('\n  ')}`);
  console.log(`\nnot run here (${notRun.length}):\n  ${notRun.join('\n  ')}`);
  if (failures.length > 0) {
    console.error(`\n${failures.join('\n\n')}`);
    process.exit(1);
  }
  const ran = blocks.filter((b) => b.action.kind !== 'none' && b.action.kind !== 'not-run').length;
  console.log(`\ndocs: OK, ${ran} blocks run or compared, ${notRun.length} not run`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  });
}
