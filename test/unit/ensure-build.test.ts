/**
 * npm start's pre-hook finds the compiler through what TypeScript publishes (package.json `bin`),
 * regression for a fresh clone's `npm install && npm start` stopping with "TypeScript is not
 * installed": TypeScript 7's `exports` hide the deep path `typescript/bin/tsc` it used to resolve.
 * The whole first command on a fresh copy is run by the documentation run (scripts/docs/run-docs.ts).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
// @ts-expect-error: plain JavaScript (npm's pre-hook runs without tsx), no declarations.
import { findTsc } from '../../scripts/ensure-build.mjs';
import { tempDir } from '../support/temp-dir.ts';

test('the installed TypeScript compiler is found and runs', () => {
  const tsc = findTsc() as string | null;
  assert.ok(tsc !== null && existsSync(tsc), `tsc found: ${tsc}`);
  assert.match(execFileSync(process.execPath, [tsc, '--version'], { encoding: 'utf8' }), /Version \d+\.\d+/);
});

test('a package that exports only its package.json and names tsc in bin (TypeScript 7) is found', () => {
  const dir = tempDir('ensure-build-');
  const pkg = join(dir, 'node_modules', 'typescript');
  mkdirSync(join(pkg, 'bin'), { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'typescript', bin: { tsc: './bin/tsc' }, exports: { './package.json': './package.json', '.': './lib/version.cjs' } }));
  writeFileSync(join(pkg, 'bin', 'tsc'), '');
  assert.equal(findTsc(pathToFileURL(join(dir, 'x.mjs')).href), join(pkg, 'bin', 'tsc'));
});

test('without TypeScript (a production install) there is no compiler, and no error', () => {
  const dir = tempDir('ensure-build-none-');
  assert.equal(findTsc(pathToFileURL(join(dir, 'x.mjs')).href), null);
});
