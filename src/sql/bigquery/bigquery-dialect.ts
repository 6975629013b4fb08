/**
 * The BigQuery dialect (COMPAT=logflare; docs/logflare-compat.md): caller sql translated
 * (translate.ts), memoised, then composed and validated by the sandbox like PostgreSQL sql.
 * Imported only in that mode: the deparser and the translator cost the default mode nothing.
 */
import { performance } from 'node:perf_hooks';
import { BoundedMemo } from '../../shared/bounded-memo.ts';
import { HttpError } from '../../shared/errors.ts';
import { MAX_TRANSLATED_TOKENS } from '../sandbox/allow-lists.ts';
import { composeSandboxed } from '../sandbox/compose.ts';
import type { SqlParser } from '../sandbox/sql-parser.ts';
import type { SandboxTemplate } from '../sandbox/stored-statement.ts';
import type { Composed, Dialect } from '../dialect.ts';
import { translateBigQuery } from './translate.ts';

/** Distinct sql texts whose translation (or refusal) is remembered, per stored query. */
const MEMO_ENTRIES = 512;
/** Longer texts are translated every time rather than held (64 KiB × 512 would be 32 MiB). */
const MEMO_MAX_CHARS = 16 * 1024;
/** How much of a translation a refusal quotes. */
const QUOTED_CHARS = 600;

/** BigQuery dialect: translation memoised per stored query and sql text (LRU), refusals included. */
export function bigQueryDialect(parser: SqlParser): Dialect {
  const memos = new WeakMap<SandboxTemplate, BoundedMemo<string | HttpError>>();
  const translate = (template: SandboxTemplate, sql: string): { text: string; ms: number | undefined } => {
    let memo = memos.get(template);
    if (memo === undefined) memos.set(template, (memo = new BoundedMemo(MEMO_ENTRIES, MEMO_MAX_CHARS)));
    const known = memo.get(sql);
    if (known !== undefined) {
      if (known instanceof HttpError) throw known;
      return { text: known, ms: undefined };
    }
    const started = performance.now();
    let outcome: string | HttpError;
    try {
      outcome = translateBigQuery(parser, sql, template.cteNames);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      outcome = err;
    }
    memo.set(sql, outcome);
    if (outcome instanceof HttpError) throw outcome;
    return { text: outcome, ms: performance.now() - started };
  };
  return Object.freeze({
    name: 'bigquery',
    compose(template: SandboxTemplate, sql: string): Composed {
      const { text, ms } = translate(template, sql);
      try {
        return { ...composeSandboxed(template, text, MAX_TRANSLATED_TOKENS), translateMs: ms };
      } catch (err) {
        // Positions in this message count in the translation, so quote it.
        if (!(err instanceof HttpError)) throw err;
        const quoted = text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text;
        throw new HttpError(err.code, `${err.message} (in the PostgreSQL translation of sql: ${quoted.replace(/\s+/g, ' ')})`);
      }
    },
  });
}
