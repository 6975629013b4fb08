/**
 * The log writer's SQL, built once per table at start-up from fixed names (schema.ts checks the
 * schema's name; tables come from LOG_TABLES); every value is a bound parameter.
 */
import type { StoreDialect } from '../store/engine.ts';
import type { EventRow } from './event-row.ts';
import { LOG_TABLES, quoteIdent, type LogTable } from '../store/schema.ts';

export interface TableStatements {
  /**
   * `$1`: a JSON array of rows (event-row.ts). One statement, so one transaction: all of a batch or
   * nothing. `on conflict do nothing` without a conflict target: a role with INSERT alone may run
   * it (a target needs SELECT on the column), and a resent batch whose events carry ids stores
   * nothing twice. Its row count is what was stored.
   */
  readonly insert: string;
  /** The parameters of `insert` for these rows: on PostgreSQL their JSON text; on ClickHouse the rows themselves (the writer prints them). */
  insertParams(rows: readonly EventRow[]): unknown[];
  /** `$1` a cutoff timestamp, `$2` a batch size: deletes at most that many older rows. */
  readonly deleteOlder: string;
}

/**
 * On ClickHouse the writer inserts the rows into `insert`, the table's qualified name
 * (clickhouse-writer.ts); old rows go by the tables' TTL, so there is no delete.
 */
export function tableStatements(schema: string, dialect: StoreDialect = 'postgresql'): Readonly<Record<LogTable, TableStatements>> {
  const out = {} as Record<LogTable, TableStatements>;
  for (const table of LOG_TABLES) {
    if (dialect === 'clickhouse') {
      out[table] = Object.freeze({ insert: `\`${schema}\`.\`${table}\``, insertParams: (rows: readonly EventRow[]) => [rows], deleteOlder: '' });
      continue;
    }
    const t = `${quoteIdent(schema)}.${quoteIdent(table)}`;
    out[table] = Object.freeze({
      insert:
        `insert into ${t} (id, timestamp, event_message, project, metadata) ` +
        'select r.id, r.timestamp, r.event_message, r.project, r.metadata ' +
        'from jsonb_to_recordset($1::jsonb) as r(id text, timestamp timestamptz, event_message text, project text, metadata jsonb) ' +
        'on conflict do nothing',
      insertParams: (rows: readonly EventRow[]) => [JSON.stringify(rows)],
      deleteOlder: `delete from ${t} where id in (select id from ${t} where timestamp < $1::timestamptz limit $2::int)`,
    });
  }
  return Object.freeze(out);
}
