/**
 * Max rows: whatever a statement returns, a response holds at most `maxRows` rows. The statement
 * is wrapped so the database stops after maxRows + 1 rows (the extra one only tells us the result
 * was cut); the service never materialises more than that. The one owner of the rule: the registry
 * builds a RowLimit per stored query, the pipeline asks it to wrap and cap.
 */

export interface RowLimit {
  readonly maxRows: number;
  /** Wrap a single SELECT so at most maxRows + 1 rows come back. */
  wrap(sql: string): string;
  /** Cut rows to maxRows, saying whether anything was cut. */
  cap<T>(rows: T[]): { rows: T[]; truncated: boolean };
}

/** The row limit of a stored query with this max rows. */
export function rowLimit(maxRows: number): RowLimit {
  const fetch = maxRows + 1;
  return Object.freeze({
    maxRows,
    // The newline ends a trailing `--` comment in the wrapped text.
    wrap: (sql: string) => `select * from (\n${sql}\n) as limited_result limit ${fetch}`,
    cap: <T>(rows: T[]) => (rows.length > maxRows ? { rows: rows.slice(0, maxRows), truncated: true } : { rows, truncated: false }),
  });
}
