// npm's pre-hook of start, schema and seed: compile src/ to dist/ when TypeScript is installed (a
// development checkout, ~1 s); in a production install (`npm prune --omit=dev`, the image) use the
// dist/ already built, and say how to get one when there is none. Plain JavaScript: no tsx needed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let tsc = null;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  // Not installed: a production install.
}
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
