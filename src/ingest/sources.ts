/**
 * Where an ingested event goes: Logflare's source names (the nine Supabase's Vector and Logflare's
 * single-tenant mode use, `Logflare/logflare:lib/logflare/single_tenant.ex` @source_names) and this
 * service's own table names, each to one log table. Names match exactly, case-sensitively, as
 * Logflare looks them up (`plugs/fetch_resource.ex`, a plain string column): `postgREST.logs.prod`.
 */
import { createHash } from 'node:crypto';
import type { LogTable } from '../store/schema.ts';

export const LOGFLARE_SOURCES: Readonly<Record<string, LogTable>> = Object.freeze({
  'cloudflare.logs.prod': 'edge_logs',
  'postgres.logs': 'postgres_logs',
  'deno-relay-logs': 'function_edge_logs',
  'deno-subhosting-events': 'function_logs',
  'gotrue.logs.prod': 'auth_logs',
  'realtime.logs.prod': 'realtime_logs',
  'storage.logs.prod.2': 'storage_logs',
  'postgREST.logs.prod': 'postgrest_logs',
  'pgbouncer.logs.prod': 'pgbouncer_logs',
});

const BY_NAME: ReadonlyMap<string, LogTable> = new Map<string, LogTable>([
  ...Object.entries(LOGFLARE_SOURCES),
  ...Object.values(LOGFLARE_SOURCES).map((t) => [t, t] as const),
]);

/** The table a source name writes to, or undefined for a name that is neither. */
export function tableOf(sourceName: string): LogTable | undefined {
  return BY_NAME.get(sourceName);
}

/** Every accepted source name, for the 404's message. */
export const SOURCE_NAMES: readonly string[] = Object.freeze([...BY_NAME.keys()]);

/**
 * The nine sources as Logflare's `GET /api/sources` lists them, for Studio's Log Drains page
 * (`apps/studio/pages/api/platform/projects/[ref]/analytics/log-drains.ts` reads `id` and `name`).
 * Tokens are fixed per name (a UUID made from its SHA-256), so they stay the same across restarts.
 */
export function logflareSourceList(): { id: number; name: string; token: string }[] {
  return Object.keys(LOGFLARE_SOURCES).map((name, i) => {
    const h = createHash('sha256').update(`source:${name}`).digest('hex');
    const token = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    return { id: i + 1, name, token };
  });
}
