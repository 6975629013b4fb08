/**
 * Composition: the stored WITH clause, then the caller's checked SELECT pasted unchanged inside
 * `select * from ( … ) as sandboxed`. The composed text is parsed again and must still be one
 * SELECT with exactly the stored CTEs and the caller boxed in (see docs/sandbox.md).
 */
import type { ResultColumns } from '../../store/engine.ts';
import { composeForClickHouse } from '../clickhouse/compose-clickhouse.ts';
import { checkCallerSql, checkTopLevel } from './caller-sql.ts';
import { cteNamesOf, Locator, reject, wrapped, type Json, type Statements } from './sql-parser.ts';
import type { SandboxTemplate } from './stored-statement.ts';
import { Walker } from './walker.ts';

/**
 * Validate `callerSql` and return the statement to run: the stored WITH clause followed by
 * `select * from (<callerSql>) as sandboxed` (on ClickHouse: the caller's SELECT printed for it). Throws `HttpError('invalid_sql')` when refused.
 * `maxTokens`: a translation's own budget (allow-lists.ts, MAX_TRANSLATED_TOKENS).
 */
export function composeSandboxed(template: SandboxTemplate, callerSql: string, maxTokens?: number): Sandboxed {
  if (template.clickhouse !== undefined) return composeForClickHouse(template.parser, template.clickhouse, callerSql, maxTokens);
  const caller = checkCallerSql(template.parser, callerSql, template.cteNames, maxTokens);
  const head = `${template.withText}\nselect * from (\n`;
  // The newline before ")" ends a trailing "--" comment in the caller's text.
  const tail = template.orphanParams.length === 0
    ? '\n) as sandboxed'
    // Types the dropped params so PostgreSQL accepts the full bind list; `or true` folds away.
    : `\n) as sandboxed where (${template.orphanParams.map((n) => `$${n}::text`).join(', ')}) is null or true`;
  const composed = head + caller.text + tail;
  const offset = caller.startByte - Buffer.byteLength(head);
  verifyComposed(composed, template, new Locator(callerSql, offset));
  return { sql: composed };
}

/** The statement to run; on ClickHouse also what its columns' types cannot say. */
export interface Sandboxed {
  readonly sql: string;
  readonly columns?: ResultColumns;
}

const OUTER_FIELDS: ReadonlySet<string> = new Set(['withClause', 'targetList', 'fromClause', 'whereClause', 'limitOption', 'op']);

/** Re-parse the composed text: still one SELECT with the stored CTEs and the caller boxed in. */
function verifyComposed(composed: string, template: SandboxTemplate, locator: Locator): void {
  let stmts: Statements;
  try {
    stmts = template.parser.parse(composed);
  } catch {
    return reject('sql does not compose with the stored query');
  }
  const escaped = (): never => reject('sql does not stay inside the sandbox');
  if (stmts.length !== 1) escaped();
  const outer = wrapped(stmts[0]?.stmt, 'SelectStmt') ?? escaped();
  if (Object.keys(outer).some((k) => !OUTER_FIELDS.has(k)) || outer['op'] !== 'SETOP_NONE') escaped();
  if (JSON.stringify(cteNamesOf(outer['withClause'] as Json | undefined) ?? []) !== JSON.stringify(template.cteNames)) escaped();
  const from = outer['fromClause'] as unknown[] | undefined;
  const box = from?.length === 1 ? wrapped(from[0], 'RangeSubselect') : undefined;
  if (!box || (box['alias'] as Json | undefined)?.['aliasname'] !== 'sandboxed' || box['lateral']) escaped();
  const targets = outer['targetList'] as unknown[] | undefined;
  const star = targets?.length === 1 ? wrapped(wrapped(targets[0], 'ResTarget')?.['val'], 'ColumnRef') : undefined;
  if (JSON.stringify(star?.['fields']) !== '[{"A_Star":{}}]') escaped();
  if (outer['whereClause'] !== undefined && template.orphanParams.length === 0) escaped();
  // The caller's part, checked again as PostgreSQL will see it, with the stored CTEs in scope.
  const inner = checkTopLevel(box?.['subquery']);
  new Walker(locator).select(inner, new Set(template.cteNames), 1);
}
