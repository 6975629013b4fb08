/**
 * A stored-query directory for fault tests: the shipped queries plus `test.slow`, which sleeps on
 * the server for `seconds` (a decimal) so a test can hold pooled connections or have a statement
 * in flight. PostgreSQL only (pg_sleep); removed when the process exits.
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QUERIES_DIR } from '../../src/service.ts';

export const SLOW_QUERY = 'test.slow';

/** `/api/endpoints/query/test.slow` for `seconds` of sleep; `tag` keeps calls apart. */
export function slowPath(seconds: number, tag: string | number): string {
  return `/api/endpoints/query/${SLOW_QUERY}?seconds=${seconds}&x=${encodeURIComponent(String(tag))}`;
}

let dir: string | undefined;

export function queriesWithSlow(): string {
  if (dir !== undefined) return dir;
  const created = mkdtempSync(join(tmpdir(), 'queries-'));
  process.on('exit', () => rmSync(created, { recursive: true, force: true }));
  for (const f of readdirSync(QUERIES_DIR)) if (/\.(json|sql)$/.test(f)) copyFileSync(join(QUERIES_DIR, f), join(created, f));
  writeFileSync(
    join(created, `${SLOW_QUERY}.json`),
    JSON.stringify({
      id: 'f0000000-0000-4000-8000-000000000001',
      name: SLOW_QUERY,
      description: 'Test only: sleeps on the server.',
      maxRows: 10,
      cachingSeconds: null,
      cacheWarmingSeconds: null,
      sandboxing: false,
      redactPii: false,
      params: { seconds: { type: 'string', required: true }, x: { type: 'string', required: true } },
      columns: { slept: 'string', x: 'string' },
    }),
  );
  writeFileSync(join(created, `${SLOW_QUERY}.sql`), 'select pg_sleep(@seconds::float8)::text as slept, @x::text as x\n');
  return (dir = created);
}
