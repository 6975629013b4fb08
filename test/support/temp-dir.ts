/**
 * A directory of the tests' own under the OS's temporary directory, removed when the test process
 * exits (a store bound to chdb or PGlite for the life of the process included), so test runs leave
 * nothing behind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
