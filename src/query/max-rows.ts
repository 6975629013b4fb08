/**
 * Max rows (DESIGN 3): whatever a statement returns, a response holds at most `maxRows` rows.
 * The statement is wrapped so the database stops after maxRows + 1 rows (the extra one only tells
 * us the result was cut); the service never materialises more than that.
 */

/** Wrap a single SELECT so at most maxRows + 1 rows come back. The newline ends a trailing `--` comment. */
export function limitSql(sql: string, maxRows: number): string {
  return `select * from (\n${sql}\n) as limited_result limit ${maxRows + 1}`;
}

/** Cut rows to maxRows, saying whether anything was cut. */
export function capRows<T>(rows: T[], maxRows: number): { rows: T[]; truncated: boolean } {
  return rows.length > maxRows ? { rows: rows.slice(0, maxRows), truncated: true } : { rows, truncated: false };
}
