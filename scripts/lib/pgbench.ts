/**
 * The physical floor of an uncached call: PostgreSQL's own C client, `pgbench`, running the
 * service's statement with the same parameters and session settings, each connection preparing it
 * once (`-M prepared`, as the service keeps stored statements prepared). Latencies come from its
 * per-transaction log, so the floor has a p50 and a p99 like every other side.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunResult } from './load-driver.ts';
import { LatencyHistogram } from './load-stats.ts';

export interface PgbenchTarget {
  bin: string;
  /** The database URL (host, port, user, database; no password is used by the throwaway server). */
  url: string;
  /** Session settings as a libpq `options` string (the service's own, pg-engine.ts). */
  options: string;
  /** The bound statement: `$n` placeholders and their values, as the service sends them. */
  sql: string;
  params: readonly (string | null)[];
}

const CANDIDATES = ['/usr/lib/postgresql/15/bin/pgbench'];

/** The pgbench binary (Debian's postgresql package ships it beside the server). */
export function ensurePgbench(): string {
  for (const c of CANDIDATES) {
    try {
      execFileSync(c, ['--version'], { stdio: 'ignore' });
      return c;
    } catch {
      // next
    }
  }
  try {
    return execFileSync('sh', ['-c', 'command -v pgbench'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('pgbench is not installed (Debian: postgresql-15); the uncached floor of the bench needs it');
  }
}

/**
 * pgbench's script: each `$n` becomes the variable `:pn` (sent as a parameter of the prepared
 * statement), a NULL parameter the literal NULL (a pgbench variable cannot be NULL; the service's
 * statements are planned with their values anyway: plan_cache_mode = force_custom_plan). A rename
 * of the bound statement's placeholders for a load generator, not a translation: a `$` followed by
 * digits inside a literal of the stored SQL would be renamed too (logs.all has none).
 */
function script(target: PgbenchTarget): { text: string; defines: string[] } {
  const defines: string[] = [];
  const text = target.sql.replace(/\$(\d+)\b/g, (_, n: string) => {
    const value = target.params[Number(n) - 1];
    if (value === undefined) throw new Error(`pgbench: the statement has $${n} but ${target.params.length} parameters`);
    if (value === null) return 'NULL';
    defines.push(`p${n}=${value}`);
    return `:p${n}`;
  });
  // pgbench reads SQL commands up to their `;` (its lexer is psql's: comments and literals kept).
  return { text: `${text.trimEnd()};\n`, defines: [...new Set(defines)] };
}

/** One pgbench run: `concurrency` connections on one thread for `seconds`. */
export function runPgbench(target: PgbenchTarget, concurrency: number, seconds: number): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'pgbench-'));
  const { text, defines } = script(target);
  writeFileSync(join(dir, 'call.sql'), text);
  const url = new URL(target.url);
  const env = { ...process.env, PGHOST: url.hostname, PGPORT: url.port || '5432', PGUSER: decodeURIComponent(url.username), PGDATABASE: url.pathname.slice(1), PGOPTIONS: target.options };
  const args = ['-n', '-M', 'prepared', '-c', String(concurrency), '-j', '1', '-T', String(Math.max(1, Math.round(seconds))), '-f', join(dir, 'call.sql'), '-l', '--log-prefix', join(dir, 'tx'), ...defines.flatMap((d) => ['-D', d])];
  return new Promise((resolve, reject) => {
    const child = spawn(target.bin, args, { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        if (code !== 0) throw new Error(`pgbench exited with ${code}:\n${out}`);
        // Per-transaction log lines: client_id transaction_no latency_us script_no epoch_s epoch_us.
        const latencies = new LatencyHistogram();
        for (const f of readdirSync(dir).filter((name) => name.startsWith('tx'))) {
          for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) if (line !== '') latencies.add(Number(line.split(' ')[2]) / 1000);
        }
        const failed = Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0);
        const elapsed = Number(/duration: (\d+) s/.exec(out)?.[1] ?? seconds) * 1000;
        if (latencies.count === 0) throw new Error(`pgbench logged no transactions:\n${out}`);
        resolve({
          calls: latencies.count,
          errors: failed,
          elapsedMs: elapsed,
          p50: latencies.percentile(50),
          p99: latencies.percentile(99),
          rps: latencies.count / (elapsed / 1000),
          ...(failed > 0 ? { firstError: `${failed} failed transactions` } : {}),
        });
      } catch (err) {
        reject(err);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
