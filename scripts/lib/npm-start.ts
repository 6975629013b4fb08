/**
 * The service as `npm start` runs it: package.json's start script is `node [flags] <build>.js`
 * after the `prestart` build, so benches and the process tests build first and run that file with
 * those flags, never the TypeScript sources.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The node flags and the script (relative to the repository root) of package.json's start script, without building. */
export function npmStartFlags(): { nodeArgs: string[]; script: string } {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts?: Record<string, string> };
  const m = /^node\s+(.*?)\s*(\S+\.js)$/.exec(pkg.scripts?.start?.trim() ?? '');
  if (m === null) throw new Error(`package.json's start script is not "node [flags] <file>.js": ${pkg.scripts?.start}`);
  return { nodeArgs: m[1]!.split(/\s+/).filter(Boolean), script: m[2]! };
}

/** Build (`npm run build`), then the node flags and the script `npm start` runs. */
export function npmStartCommand(): { nodeArgs: string[]; script: string } {
  const start = npmStartFlags();
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return start;
}
