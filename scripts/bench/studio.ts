/**
 * Supabase Studio's calls (the compat kit, `test/fixtures/studio-queries.json`: 22 log-page sql
 * texts over logs.all and the home page's usage chart) as the service runs them with
 * COMPAT=logflare: the registry in Logflare mode, BigQuery translated and sandboxed, bound with
 * the call's own parameters. Each over its one-hour window (as Studio sends it), over 24 hours and
 * over 7 days (Studio's other time ranges: the call's lower bound, and the bound its sql carries,
 * moved to the range's start).
 */
import { readFileSync } from 'node:fs';
import { QUERIES_DIR } from '../../src/process/config.ts';
import { bigQueryDialect } from '../../src/sql/bigquery/bigquery-dialect.ts';
import { loadRegistry } from '../../src/query/registry.ts';
import { bindStatement } from '../../src/query/run-query.ts';
import type { SqlParser } from '../../src/sql/sandbox/sql-parser.ts';

export interface KitCall {
  name: string;
  endpoint: string;
  params: Record<string, string>;
  sql: string | null;
}

/** The kit's calls as recorded (placeholders unfilled). */
export function studioKit(): KitCall[] {
  return (JSON.parse(readFileSync(new URL('../../test/fixtures/studio-queries.json', import.meta.url), 'utf8')) as { queries: KitCall[] }).queries;
}

/** A call's short name: "API Gateway logs page" rather than the kit's long description. */
export const shortName = (c: KitCall): string => c.name.replace(/ \(.*$/, '').replace(/^previewer list \w+: /, '');

export interface StudioWindow {
  label: string;
  /** Milliseconds before now the window starts. */
  spanMs: number;
}

export const STUDIO_WINDOWS: readonly StudioWindow[] = [
  { label: '1 h', spanMs: 3_600_000 },
  { label: '24 h', spanMs: 24 * 3_600_000 },
  { label: '7 days', spanMs: 7 * 24 * 3_600_000 },
];

export interface BoundStudioCall {
  name: string;
  sql: string;
  params: (string | null)[];
}

/**
 * Every call of the kit bound for one window. `rowId(source)` fills the single-log panel's id
 * (a row of that source the store has). The 1-hour window keeps the sql's own lower bound
 * (`{{now-7h}}`, seven hours back, as recorded); longer windows move it to their start.
 */
export function bindStudioCalls(parser: SqlParser, schema: string, now: Date, window: StudioWindow, rowId: (source: string) => string): BoundStudioCall[] {
  const registry = loadRegistry(QUERIES_DIR, parser, 'logflare', 'postgresql', schema);
  const dialect = bigQueryDialect(parser);
  const start = new Date(now.getTime() - window.spanMs).toISOString();
  const inner = new Date(now.getTime() - Math.max(window.spanMs, 7 * 3_600_000)).toISOString();
  return studioKit().map((c) => {
    const q = registry.lookup(c.endpoint);
    if (q === undefined) throw new Error(`studio kit: no stored query ${c.endpoint}`);
    const params = new Map(Object.entries(c.params).map(([k, v]) => [k, [v === '{{now-1h}}' ? start : v]]));
    const sql = c.sql === null ? null : c.sql.replace('{{now-7h}}', inner).replace(/\{\{(\w+) row id\}\}/, (_, source: string) => rowId(source));
    const bound = bindStatement(q, params, sql, dialect);
    return { name: shortName(c), sql: bound.sql, params: bound.params };
  });
}
