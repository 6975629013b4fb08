/**
 * A real PostgreSQL for tests: either the one named by TEST_DATABASE_URL, or a throwaway cluster
 * (initdb into a temp dir, loopback only, durability off) that dies with the test process.
 * Failing to provide one throws: tests that need a database fail, they never skip.
 */
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PgServer {
  /** Superuser connection URL for the `postgres` database. */
  url: string;
  port: number;
  /** The cluster's data directory; null for an external server. */
  dataDir: string | null;
  /** True when wrapping TEST_DATABASE_URL: nothing is started, stopped or removed. */
  external: boolean;
  /** Fast shutdown, keeping the data (outage tests). */
  stop(): Promise<void>;
  /** Restart after stop() on the same port with the same data. */
  start(): Promise<void>;
  /** Stop and remove the data directory; idempotent. A no-op for an external server. */
  destroy(): Promise<void>;
}

const START_TIMEOUT_S = 30;
const PORT_ATTEMPTS = 3;
const OUTAGE_NEEDS_THROWAWAY = 'outage simulation needs the throwaway server (unset TEST_DATABASE_URL)';

/** Start (or wrap, when TEST_DATABASE_URL is set) a PostgreSQL server for tests. */
export async function startPostgres(): Promise<PgServer> {
  const external = process.env.TEST_DATABASE_URL;
  if (external) return wrapExternal(external);
  return startThrowaway();
}

/** Create a fresh, empty database `name` on `server` (dropping any leftover) and return its URL. */
export async function createDatabase(server: PgServer, name: string): Promise<string> {
  // The name goes into SQL text, so only plain identifiers are accepted.
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`createDatabase: invalid name ${JSON.stringify(name)}`);
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    // FORCE: a previous run that crashed may have left connections open to it.
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  return url.href;
}

function wrapExternal(url: string): PgServer {
  const refuse = async (): Promise<void> => {
    throw new Error(OUTAGE_NEEDS_THROWAWAY);
  };
  return {
    url,
    port: Number(new URL(url).port || 5432),
    dataDir: null,
    external: true,
    stop: refuse,
    start: refuse,
    destroy: async () => {},
  };
}

async function startThrowaway(): Promise<PgServer> {
  const bin = findBinDir();
  const root = mkdtempSync(join(tmpdir(), 'pg-test-'));
  const dataDir = join(root, 'data');
  const logFile = join(root, 'server.log');
  const cluster = { bin, root, dataDir, logFile };
  live.add(cluster);
  registerCleanup();
  try {
    // initdb refuses to run as root, so the cluster belongs to the postgres system user.
    if (isRoot()) chownSync(root, ...postgresIds());
    await runPg(cluster, 'initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C', '--lc-ctype=C.UTF-8']);
    // Settings go in the config file rather than on pg_ctl's shell-parsed -o, so paths need no
    // shell quoting and a restart picks them up unchanged.
    appendFileSync(
      join(dataDir, 'postgresql.conf'),
      [
        '\n# scripts/lib/pg-server.ts: throwaway test cluster, durability traded for speed',
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${root.replaceAll("'", "''")}'`,
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        'max_connections = 100',
        '',
      ].join('\n'),
    );
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await pgCtlStart(cluster, port);
        break;
      } catch (err) {
        // The free port is only probed, so another process may take it before postgres binds.
        const raced = /address already in use/i.test(logTail(logFile));
        if (!raced || attempt >= PORT_ATTEMPTS) throw err;
      }
    }
    return throwawayServer(cluster, port);
  } catch (err) {
    destroySync(cluster);
    throw err;
  }
}

interface Cluster {
  bin: string;
  root: string;
  dataDir: string;
  logFile: string;
}

function throwawayServer(cluster: Cluster, port: number): PgServer {
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir: cluster.dataDir,
    external: false,
    stop: () => runPg(cluster, 'pg_ctl', ['stop', '-D', cluster.dataDir, '-m', 'fast', '-w']),
    start: () => pgCtlStart(cluster, port),
    destroy: async () => {
      if (!live.has(cluster)) return;
      if (isRunning(cluster)) await runPg(cluster, 'pg_ctl', ['stop', '-D', cluster.dataDir, '-m', 'immediate', '-w']);
      rmSync(cluster.root, { recursive: true, force: true });
      live.delete(cluster);
    },
  };
}

async function pgCtlStart(cluster: Cluster, port: number): Promise<void> {
  const args = ['start', '-D', cluster.dataDir, '-l', cluster.logFile, '-w', '-t', String(START_TIMEOUT_S), '-o', `-p ${port}`];
  await runPg(cluster, 'pg_ctl', args);
}

/** Run a PostgreSQL binary (as the postgres user when we are root); reject with its output and the server log tail. */
function runPg(cluster: Cluster, tool: string, args: string[]): Promise<void> {
  const [cmd, argv] = asPgUser(join(cluster.bin, tool), args);
  return new Promise((resolve, reject) => {
    // stdin ignored; pg_ctl -l sends the server's output to the log, so no pipe outlives the tool.
    const child = spawn(cmd, argv, { cwd: cluster.root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) return resolve();
      const tail = logTail(cluster.logFile);
      reject(
        new Error(
          `${tool} ${args.join(' ')} failed (${signal ?? `exit ${code}`})\n${output.trim()}` +
            (tail ? `\n--- server log tail (${cluster.logFile}) ---\n${tail}` : ''),
        ),
      );
    });
  });
}

function asPgUser(cmd: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

let pgIds: [number, number] | undefined;
function postgresIds(): [number, number] {
  if (pgIds) return pgIds;
  const id = (flag: string): number => {
    const r = spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
    const n = Number(r.stdout.trim());
    if (r.status !== 0 || !Number.isInteger(n)) {
      throw new Error('running as root needs a `postgres` system user to own the test cluster (initdb refuses root)');
    }
    return n;
  };
  return (pgIds = [id('-u'), id('-g')]);
}

/** PG_BIN if set, else the Debian PostgreSQL 15 location, else `pg_config --bindir`. */
function findBinDir(): string {
  const override = process.env.PG_BIN;
  if (override) {
    if (existsSync(join(override, 'initdb'))) return override;
    throw new Error(`PG_BIN=${override} has no initdb`);
  }
  const debian = '/usr/lib/postgresql/15/bin';
  if (existsSync(join(debian, 'initdb'))) return debian;
  const r = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const dir = r.status === 0 ? r.stdout.trim() : '';
  if (dir && existsSync(join(dir, 'initdb'))) return dir;
  throw new Error(
    `no PostgreSQL server binaries: not in ${debian} nor pg_config --bindir; install postgresql-15, set PG_BIN, or set TEST_DATABASE_URL`,
  );
}

/** Ask the kernel for a free loopback port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port ? resolve(port) : reject(new Error('could not pick a free port'))));
    });
  });
}

function logTail(logFile: string, lines = 30): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function isRunning(cluster: Cluster): boolean {
  return existsSync(join(cluster.dataDir, 'postmaster.pid'));
}

// Clusters not yet destroyed; killed synchronously when the process ends so none outlives a test run.
const live = new Set<Cluster>();
let cleanupRegistered = false;

function registerCleanup(): void {
  if (cleanupRegistered) return;
  cleanupRegistered = true;
  process.on('exit', destroyAllSync);
  // Default signal deaths skip 'exit'; clean up, then re-raise so the process still dies of the signal.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      destroyAllSync();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

function destroyAllSync(): void {
  for (const cluster of live) destroySync(cluster);
}

function destroySync(cluster: Cluster): void {
  try {
    if (isRunning(cluster)) {
      const [cmd, argv] = asPgUser(join(cluster.bin, 'pg_ctl'), ['stop', '-D', cluster.dataDir, '-m', 'immediate', '-w']);
      spawnSync(cmd, argv, { cwd: cluster.root, stdio: 'ignore', timeout: 15_000 });
    }
    rmSync(cluster.root, { recursive: true, force: true });
  } catch {
    // Best effort at exit: nothing useful can be done with a failure here.
  }
  live.delete(cluster);
}
