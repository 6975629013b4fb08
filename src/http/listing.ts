import type { ParamSpec } from '../query/params.ts';
import type { StoredQuery } from '../query/registry.ts';

/** Path a stored query is called at, by name. */
export function queryPath(q: StoredQuery): string {
  return `/api/endpoints/query/${encodeURIComponent(q.name)}`;
}

/** One declared parameter as the listing shows it. */
export type ListedParam = { name: string } & ParamSpec;

/** What `GET /api/endpoints` says about one stored query: everything a caller needs, nothing of its SQL. */
export interface ListedQuery {
  id: string;
  name: string;
  description: string;
  path: string;
  settings: {
    maxRows: number;
    /** The most rows one call (without caller sql) returns: maxRows, or the statement's own LIMIT when lower. */
    rowsPerCall: number;
    cachingSeconds: number | null;
    cacheWarmingSeconds: number | null;
    sandboxing: boolean;
    redactPii: boolean;
  };
  /** In declaration order. */
  parameters: ListedParam[];
  /** Result columns and their types. */
  columns: Readonly<Record<string, string>>;
}

/** The listing entry of one stored query (built once at start-up). */
export function describeQuery(q: StoredQuery): ListedQuery {
  return {
    id: q.id,
    name: q.name,
    description: q.description,
    path: queryPath(q),
    settings: {
      maxRows: q.maxRows,
      rowsPerCall: q.rowsPerCall,
      cachingSeconds: q.cachingSeconds,
      cacheWarmingSeconds: q.cacheWarmingSeconds,
      sandboxing: q.sandboxing,
      redactPii: q.redactPii,
    },
    parameters: q.paramOrder.map((name) => ({ name, ...q.params[name]! })),
    columns: q.columns,
  };
}
