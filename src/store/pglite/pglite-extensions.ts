/**
 * The PostgreSQL extensions the embedded store loads (PGlite links an extension only when asked).
 * pg_trgm backs the trigram index on edge_request_urls (sql/schema.sql): every PGlite that writes
 * to a store with that index must load it, or an insert of a new URL fails.
 */
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

export const PGLITE_EXTENSIONS = { pg_trgm } as const;
