/**
 * Real ClickHouse servers for tests and benchmarks: clickhouse-local from the installed chdb library,
 * listening on HTTP and TCP (clickhouse-local.py), one process per node, with the users an operator
 * gives the service (docs/clickhouse.md): `default` the admin (schema, fixtures, KILL), `endpoints`
 * SELECT-only under the documented limits profile, `ingest` INSERT-only. With `shards` > 1 the nodes
 * form a cluster of that many shards (remote_servers over TCP, one replica each): clickhouse-local
 * has no replication (docs/clickhouse.md, "A cluster"). Each node dies with this process; failing to
 * start one throws. Only without chdb's library do the tests that need a server declare a skip
 * (clickhouseUnavailable).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ClickHouseNode {
  http: number;
  tcp: number;
  /** The node's HTTP URL as `user` (default: the admin). */
  url(user?: ClickHouseUser): string;
  /** Kill the node (its data kept); `start` brings it back on the same ports. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export type ClickHouseUser = 'default' | 'endpoints' | 'ingest';

export interface ClickHouseServer {
  nodes: ClickHouseNode[];
  /** The cluster's name in remote_servers (null for a single node). */
  cluster: string | null;
  /** The version the nodes report. */
  version: string;
  /** Stop every node and remove their data; idempotent. */
  destroy(): Promise<void>;
}

export interface ClickHouseServerOptions {
  /** Nodes, one shard each (1: a plain server). */
  shards?: number;
  /** The databases (a name or a prefix ending in `*`) the `endpoints` and `ingest` users are granted. */
  databases?: string;
}

/** Passwords of the test users: the servers listen on loopback only. */
export const CLICKHOUSE_PASSWORDS: Readonly<Record<ClickHouseUser, string>> = Object.freeze({ default: '', endpoints: 'endpoints-pw', ingest: 'ingest-pw' });
export const CLUSTER_NAME = 'sqe_shards';
const START_TIMEOUT_MS = 60_000;
const LAUNCHER = join(dirname(fileURLToPath(import.meta.url)), 'clickhouse-local.py');
/** What keeps the invocation, and so its listeners, running (each sleep under ClickHouse's 3 s cap). */
const KEEP_LISTENING = 'SYSTEM START LISTEN HTTP; SYSTEM START LISTEN TCP; SELECT sleep(3) FROM numbers(1000000) SETTINGS max_block_size = 1 FORMAT Null';

/** The installed chdb's library (npm install --no-save chdb@3.4.0): ClickHouse as clickhouse-local. */
export function libchdbPath(root = process.cwd()): string {
  const scope = join(root, 'node_modules', '@chdb');
  const found = existsSync(scope) ? readdirSync(scope).map((d) => join(scope, d, 'libchdb.so')).find((p) => existsSync(p)) : undefined;
  if (!found) throw new Error(`no ClickHouse library under ${scope}: npm install --no-save chdb@3.4.0 (the ClickHouse server tests run clickhouse-local from it)`);
  return found;
}

/**
 * Why no server can start here, or null: the tests that need one declare this as their skip (the
 * README's `npm install && npm test` without chdb), as the embedded ClickHouse's tests do.
 */
export function clickhouseUnavailable(): string | null {
  try {
    libchdbPath();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

export async function startClickHouse(options: ClickHouseServerOptions = {}): Promise<ClickHouseServer> {
  const shards = options.shards ?? 1;
  const lib = libchdbPath();
  const root = mkdtempSync(join(tmpdir(), 'clickhouse-test-'));
  const ports = await Promise.all(Array.from({ length: shards * 2 }, freePort));
  const layout = Array.from({ length: shards }, (_, i) => ({ http: ports[2 * i]!, tcp: ports[2 * i + 1]!, dir: join(root, `node${i + 1}`) }));
  const cluster = shards > 1 ? CLUSTER_NAME : null;
  const children = new Set<ChildProcess>();
  const killAll = () => children.forEach((c) => c.kill('SIGKILL'));
  process.once('exit', killAll);

  const nodes = layout.map(({ http, tcp, dir }): ClickHouseNode => {
    mkdirSync(join(dir, 'data'), { recursive: true });
    writeFileSync(join(dir, 'config.xml'), configXml(layout, cluster, join(dir, 'server.log')));
    writeFileSync(join(dir, 'users.xml'), usersXml(options.databases ?? 'endpoints_test*'));
    let child: ChildProcess | null = null;
    const node: ClickHouseNode = {
      http,
      tcp,
      url: (user = 'default') => `http://${user}:${CLICKHOUSE_PASSWORDS[user]}@127.0.0.1:${http}`,
      async start() {
        const args = [LAUNCHER, lib, `--path=${join(dir, 'data')}`, '--multiquery', `--http_port=${http}`, `--tcp_port=${tcp}`, '--listen_host=127.0.0.1', `--config-file=${join(dir, 'config.xml')}`, `--query=${KEEP_LISTENING}`];
        const started = spawn('python3', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
        child = started;
        children.add(started);
        let stderr = '';
        started.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk).slice(-4000)));
        const exited = new Promise<never>((_, reject) => started.once('exit', (code, signal) => reject(new Error(`clickhouse-local on :${http} exited (${signal ?? code}): ${stderr.trim() || logTail(join(dir, 'server.log'))}`))));
        exited.catch(() => {});
        started.once('exit', (code, signal) => {
          children.delete(started);
          // A node that dies while the tests still use it (not stopped by stop()): say how, on stderr.
          if (child === started) process.stderr.write(`clickhouse-local on :${http} died (${signal ?? code}): ${stderr.trim().slice(-2000)}\n${logTail(join(dir, 'server.log'), /<(Fatal|Error|Critical)>|Logical error|terminate|[Ss]ignal/)}\n`);
        });
        await Promise.race([exited, waitForPing(http)]);
      },
      async stop() {
        const running = child;
        child = null;
        if (!running || running.exitCode !== null || running.signalCode !== null) return;
        await new Promise<void>((resolve) => {
          running.once('exit', () => resolve());
          running.kill('SIGKILL');
        });
      },
    };
    return node;
  });
  try {
    await Promise.all(nodes.map((n) => n.start()));
    const version = await (await fetch(`http://127.0.0.1:${nodes[0]!.http}/?query=SELECT%20version()`)).text();
    return {
      nodes,
      cluster,
      version: version.trim(),
      async destroy() {
        await Promise.all(nodes.map((n) => n.stop()));
        process.removeListener('exit', killAll);
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (err) {
    killAll();
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
}

/** The server's configuration: the users file, a log file, and the cluster's shards. */
function configXml(layout: readonly { tcp: number }[], cluster: string | null, log: string): string {
  const shards = layout.map(({ tcp }) => `<shard><replica><host>127.0.0.1</host><port>${tcp}</port></replica></shard>`).join('');
  return `<clickhouse>
  <users_config>users.xml</users_config>
  <logger><level>warning</level><log>${log}</log><console>0</console></logger>
  ${cluster === null ? '' : `<remote_servers><${cluster}>${shards}</${cluster}></remote_servers>`}
</clickhouse>
`;
}

/**
 * The users docs/clickhouse.md gives the service: `endpoints` with SELECT on the log databases (and
 * on system.processes, which KILL QUERY reads to stop its own statements) and the limits profile (its ceilings, DDL and introspection off), `ingest` with INSERT only. `default`
 * (no password, loopback) is clickhouse-local's own session and the tests' admin.
 */
function usersXml(databases: string): string {
  const user = (name: ClickHouseUser, profile: string, grants: readonly string[]) =>
    `<${name}><password>${CLICKHOUSE_PASSWORDS[name]}</password><networks><ip>127.0.0.1</ip></networks><profile>${profile}</profile><quota>default</quota>${grants.length > 0 ? `<grants>${grants.map((g) => `<query>${g}</query>`).join('')}</grants>` : '<access_management>1</access_management>'}</${name}>`;
  return `<clickhouse>
  <profiles>
    <default/>
    <endpoints_limits>
      <max_execution_time>30</max_execution_time>
      <max_memory_usage>4000000000</max_memory_usage>
      <max_rows_to_read>10000000000</max_rows_to_read>
      <allow_ddl>0</allow_ddl>
      <allow_introspection_functions>0</allow_introspection_functions>
      <constraints>
        <max_execution_time><max>30</max></max_execution_time>
        <max_memory_usage><max>4000000000</max></max_memory_usage>
        <max_rows_to_read><max>10000000000</max></max_rows_to_read>
        <allow_ddl><const/></allow_ddl>
        <allow_introspection_functions><const/></allow_introspection_functions>
      </constraints>
    </endpoints_limits>
  </profiles>
  <users>
    ${user('default', 'default', [])}
    ${user('endpoints', 'endpoints_limits', [`GRANT SELECT ON ${databases}.*`, 'GRANT SELECT ON system.processes'])}
    ${user('ingest', 'default', [`GRANT INSERT ON ${databases}.*`])}
  </users>
  <quotas><default/></quotas>
</clickhouse>
`;
}

async function waitForPing(port: number): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/ping`).then((r) => r.ok, () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`clickhouse-local on :${port} did not answer /ping within ${START_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The last lines of a server log, or of its lines that match `only`. */
function logTail(file: string, only?: RegExp): string {
  try {
    return readFileSync(file, 'utf8').split('\n').filter((l) => only === undefined || only.test(l)).slice(-30).join('\n');
  } catch {
    return '';
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}
