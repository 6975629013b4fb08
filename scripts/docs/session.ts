/**
 * One bash session in which a reader's commands run in order, as a terminal would run them:
 * variables exported by one block are there for the next. Each command is sourced from a file
 * (stdin is /dev/null, so a command cannot swallow the commands after it) and its exit status,
 * stdout and stderr come back separately. `curl` is wrapped to also report each call's HTTP status
 * on stderr, so a documented call that answers 4xx/5xx fails the run even without `-f`.
 *
 * A service a command starts (`npm start`, `node dist/main.js`) runs in the background with its
 * output in a file; it is stopped the way a supervisor stops it: SIGTERM to the process the
 * command started (npm, when it is `npm start`), and the port must be free again afterwards.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

export interface Result {
  status: number;
  stdout: string;
  stderr: string;
  /** HTTP statuses of the curl calls the command made, in order. */
  httpStatuses: number[];
}

export interface Service {
  pid: number;
  log: string;
  startedAt: number;
}

const DONE = '__docs_test_done__';
const STATUS = '__docs_test_http_status__:';

export class Session {
  private readonly bash: ChildProcessWithoutNullStreams;
  private out = '';
  private err = '';
  private seq = 0;
  private waiting: (() => void) | null = null;

  constructor(
    cwd: string,
    env: NodeJS.ProcessEnv,
    private readonly scratch: string,
  ) {
    this.bash = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: 'pipe' });
    this.bash.stdout.on('data', (d: Buffer) => this.read('out', d));
    this.bash.stderr.on('data', (d: Buffer) => this.read('err', d));
    this.bash.stdin.write(
      'set -m\n' + // each background job in its own process group, so a left-over one can be found
        `curl() { command curl --write-out '%{stderr}${STATUS}%{http_code}\\n' "$@"; }\n`,
    );
  }

  private read(stream: 'out' | 'err', d: Buffer): void {
    if (stream === 'out') this.out += d;
    else this.err += d;
    this.waiting?.();
  }

  /** Run one command in the session and wait for it (at most `timeoutMs`). */
  async run(command: string, timeoutMs = 600_000): Promise<Result> {
    const n = ++this.seq;
    const file = join(this.scratch, `command-${n}.sh`);
    writeFileSync(file, `${command}\n`);
    const marker = `${DONE}${n}:`;
    this.out = '';
    this.err = '';
    this.bash.stdin.write(`. ${file} </dev/null; __s=$?; printf '\\n${marker}%s\\n' "$__s"; printf '\\n${marker}\\n' >&2\n`);
    const deadline = Date.now() + timeoutMs;
    while (!(this.out.includes(marker) && this.err.includes(marker))) {
      if (this.bash.exitCode !== null) throw new Error(`the shell exited (${this.bash.exitCode}) while running: ${command}`);
      if (Date.now() > deadline) throw new Error(`still running after ${timeoutMs / 1000} s: ${command}`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 500).unref();
      });
    }
    this.waiting = null;
    const at = this.out.indexOf(marker);
    const status = Number(/^\d+/.exec(this.out.slice(at + marker.length))![0]);
    const stdout = this.out.slice(0, at).replace(/\n$/, '');
    const rawErr = this.err.slice(0, this.err.indexOf(marker)).replace(/\n$/, '');
    const httpStatuses = [...rawErr.matchAll(new RegExp(`${STATUS}(\\d+)`, 'g'))].map((m) => Number(m[1]));
    const stderr = rawErr.replace(new RegExp(`${STATUS}\\d+\\n?`, 'g'), '');
    return { status, stdout, stderr, httpStatuses };
  }

  /** Start `command` in the background, its output in a file of its own. */
  async start(command: string): Promise<Service> {
    const log = join(this.scratch, `service-${++this.seq}.log`);
    const r = await this.run(`${command} >${log} 2>&1 & echo $!`);
    return { pid: Number(r.stdout.trim()), log, startedAt: Date.now() };
  }

  close(): void {
    this.bash.stdin.end('exit\n');
  }
}

export function serviceOutput(s: Service): string {
  try {
    return readFileSync(s.log, 'utf8');
  } catch {
    return '';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait until the service prints its start-up line, or fail with what it printed. */
export async function waitListening(s: Service, timeoutMs: number): Promise<{ url: string; ms: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const out = serviceOutput(s);
    const m = /listening on (http:\/\/\S+)/.exec(out);
    if (m) return { url: m[1]!, ms: Date.now() - s.startedAt };
    if (!alive(s.pid)) throw new Error(`the service exited before listening:\n${out.slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`no start-up line after ${timeoutMs / 1000} s:\n${out.slice(-3000)}`);
    await sleep(100);
  }
}

/**
 * Stop a service as a supervisor does: SIGTERM to the process the command started. Resolves with
 * an error text when the port is still served afterwards (a child the signal did not reach);
 * whatever is left of the process group is then killed, so the next service can start.
 */
export async function stopService(s: Service, port: number, timeoutMs = 15_000): Promise<string | null> {
  if (alive(s.pid)) process.kill(s.pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && (alive(s.pid) || (await listening(port)))) await sleep(100);
  const leaked = await listening(port);
  try {
    process.kill(-s.pid, 'SIGKILL');
  } catch {
    // The group is gone: nothing left over.
  }
  if (leaked) {
    for (let i = 0; i < 50 && (await listening(port)); i++) await sleep(100);
    return `port ${port} was still served ${timeoutMs / 1000} s after SIGTERM to pid ${s.pid}`;
  }
  return null;
}
