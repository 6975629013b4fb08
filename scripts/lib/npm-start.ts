/**
 * The service as `npm start` runs it: package.json's start script is `[NAME=value …] exec node [flags]
 * <build>.js` after the `prestart` build (`exec`, so that a signal to npm reaches node and not only
 * the `sh -c` npm runs the script in: npm forwards SIGTERM to its child, sh would not pass it on), so benches and the process tests build first and run
 * that file with that environment and those flags, never the TypeScript sources.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface NpmStart {
  /** Variables the start script sets for node (`NAME=value` before `node`). */
  env: Record<string, string>;
  nodeArgs: string[];
  /** Relative to the repository root. */
  script: string;
}

/** The environment, node flags and script of package.json's start script, without building. */
export function npmStartFlags(): NpmStart {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts?: Record<string, string> };
  const m = /^((?:[A-Z_][A-Z0-9_]*=\S*\s+)*)exec\s+node\s+(.*?)\s*(\S+\.js)$/.exec(pkg.scripts?.start?.trim() ?? '');
  if (m === null) throw new Error(`package.json's start script is not "[NAME=value …] exec node [flags] <file>.js": ${pkg.scripts?.start}`);
  const env = Object.fromEntries(m[1]!.split(/\s+/).filter(Boolean).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
  return { env, nodeArgs: m[2]!.split(/\s+/).filter(Boolean), script: m[3]! };
}

/** The start script's command line, for a report: `NAME=value node [flags] <file>.js`. */
export function commandLine(start: NpmStart): string {
  return [...Object.entries(start.env).map(([k, v]) => `${k}=${v}`), 'node', ...start.nodeArgs, start.script].join(' ');
}

/** Build (`npm run build`), then what `npm start` runs. */
export function npmStartCommand(): NpmStart {
  const start = npmStartFlags();
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return start;
}
