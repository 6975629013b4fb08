/**
 * A stored-query directory for fault tests: the shipped queries plus `test.slow`, which sleeps on
 * the server for `seconds` (a decimal) so a test can hold pooled connections or have a statement
 * in flight. PostgreSQL only (pg_sleep); removed when the process exits.
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QUERIES_DIR } from '../../src/process/config.ts';
import { fileURLToPath } from 'node:url';

/** Stored queries for tests that need a statement to stay busy: `test.slow?seconds=N` (real PostgreSQL only). */
export const SLOW_QUERIES_DIR = fileURLToPath(new URL('../fixtures/slow-queries/', import.meta.url));

export const SLOW_QUERY = 'test.slow';

/** `/api/endpoints/query/test.slow` for `seconds` of sleep; `tag` (its optional `x`, unused by the result) labels calls in logs. */
export function slowPath(seconds: number, tag: string | number): string {
  return `/api/endpoints/query/${SLOW_QUERY}?seconds=${seconds}&x=${encodeURIComponent(String(tag))}`;
}

let dir: string | undefined;

export function queriesWithSlow(): string {
  if (dir !== undefined) return dir;
  const created = mkdtempSync(join(tmpdir(), 'queries-'));
  process.on('exit', () => rmSync(created, { recursive: true, force: true }));
  // The shipped queries plus the test-only `test.slow` fixture (test/fixtures/slow-queries).
  for (const from of [QUERIES_DIR, SLOW_QUERIES_DIR]) {
    for (const f of readdirSync(from)) if (/\.(json|sql)$/.test(f)) copyFileSync(join(from, f), join(created, f));
  }
  return (dir = created);
}
