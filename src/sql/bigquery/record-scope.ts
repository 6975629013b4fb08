/**
 * What a name means inside one SELECT of BigQuery sql (docs/logflare-compat.md): the records its
 * UNNESTs bound (each a JSON path into a CTE's `metadata` column), the relations in its FROM, and
 * how a path is read where it appears. translate.ts walks the tree; this file answers its lookups.
 */
import { cast, column, op, text, type Node } from './nodes.ts';

/** How a JSON path is read where it appears. */
export type Ctx = 'json' | 'text' | 'numeric' | 'bool';

/** The columns every stored CTE of logs.all has (sql/queries/logs.all.sql). */
const CTE_COLUMNS: ReadonlySet<string> = new Set(['id', 'timestamp', 'event_message', 'metadata', 'identifier']);

/** A record: the jsonb column it lives in and the keys down to it. */
export interface Binding {
  base: Node;
  path: readonly string[];
}

export class Scope {
  readonly unnests = new Map<string, Binding>();
  /** Relation aliases in FROM: `stored` when it is a stored CTE (known columns). */
  readonly relations = new Map<string, 'stored' | 'other'>();
  constructor(readonly parent: Scope | null, readonly tables: ReadonlySet<string>) {}

  unnest(name: string): Binding | undefined {
    return this.unnests.get(name) ?? this.parent?.unnest(name);
  }
  relation(name: string): 'stored' | 'other' | undefined {
    return this.relations.get(name) ?? this.parent?.relation(name);
  }
  /** Every unnested record visible here, innermost (latest) first. */
  private records(): Binding[] {
    return [...[...this.unnests.values()].reverse(), ...(this.parent?.records() ?? [])];
  }
  /** Whether a relation with unknown columns (a subquery, a caller CTE) is in scope. */
  private hasOpaque(): boolean {
    return [...this.relations.values()].includes('other') || (this.parent?.hasOpaque() ?? false);
  }

  /** A dotted name as a JSON path, when it is one: `r.path`, `t.metadata.request.path`, `metadata.level`. */
  resolve(fields: readonly string[]): Binding | undefined {
    const [first, ...rest] = fields;
    const record = this.unnest(first!);
    if (record) return { base: record.base, path: [...record.path, ...rest] };
    if (this.relation(first!) && fields.length >= 3) return { base: column(first!, fields[1]!), path: fields.slice(2) };
    // metadata.level over the column itself, without an UNNEST; s.a over a STRUCT column s (a name
    // whose first part is no relation means nothing else to PostgreSQL).
    if (rest.length > 0 && !this.relation(first!)) return { base: column(first!), path: rest };
    return undefined;
  }

  /**
   * The paths a column reference reads: one for a dotted path; for a bare name that is no CTE
   * column (`where path like …`), the field in every unnested record, innermost first (the one that
   * holds it wins); undefined when the name is not a JSON path.
   */
  reads(fields: readonly string[]): Binding[] | undefined {
    const resolved = this.resolve(fields);
    if (resolved) return [resolved];
    const name = fields[0]!;
    if (fields.length !== 1 || CTE_COLUMNS.has(name) || this.hasOpaque()) return undefined;
    const records = this.records();
    return records.length === 0 ? undefined : records.map((r) => ({ base: r.base, path: [...r.path, name] }));
  }
}

/** Read a record path as the context needs: jsonb (`->`), text (`->>`), or text cast to numeric or bool. */
export function readPath(b: Binding, ctx: Ctx): Node {
  if (ctx === 'json') return b.path.reduce((node, key) => op('->', node, text(key)), b.base);
  const textNode = b.path.length === 0
    ? op('#>>', b.base, text('{}'))
    : op('->>', b.path.slice(0, -1).reduce((node, key) => op('->', node, text(key)), b.base), text(b.path[b.path.length - 1]!));
  if (ctx === 'numeric') return cast(textNode, 'numeric');
  if (ctx === 'bool') return cast(textNode, 'bool');
  return textNode;
}
