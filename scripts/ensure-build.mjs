// npm's pre-hook of start, schema and seed: compile src/ to dist/ when TypeScript is installed (a
// development checkout, ~1 s); in a production install (`npm prune --omit=dev`, the image) use the
// dist/ already built, and say how to get one when there is none. Plain JavaScript: no tsx needed.
//
// The compiler is found through what TypeScript publishes for that: its package.json's `bin.tsc`
// (`typescript/package.json` is exported by every version). A deep path such as
// `typescript/bin/tsc` is not: TypeScript 7's `exports` hide it (ERR_PACKAGE_PATH_NOT_EXPORTED).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The path of TypeScript's `tsc` entry, or null when TypeScript is not installed. */
export function findTsc(from = import.meta.url) {
  const require = createRequire(from);
  let manifest;
  try {
    manifest = require.resolve('typescript/package.json');
  } catch {
    return null; // Not installed: a production install.
  }
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8'));
  const entry = typeof bin === 'string' ? bin : bin?.tsc;
  if (typeof entry !== 'string') throw new Error(`${manifest} names no tsc in "bin"`);
  return join(dirname(manifest), entry);
}

if (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const tsc = findTsc();
  if (tsc !== null) {
    const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
    process.exit(built.status ?? 1);
  }
  if (!existsSync('dist/main.js')) {
    process.stderr.write(
      'dist/ is not built and TypeScript is not installed (a production install: npm ci --omit=dev).\n' +
        'Build once with the dev tools, then drop them: npm ci && npm run build && npm prune --omit=dev\n' +
        'or use the container image (README, "Run it in a container").\n',
    );
    process.exit(1);
  }
}
