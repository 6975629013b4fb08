/**
 * The WITH clause of a stored ClickHouse statement, read token by token (libpg-query cannot parse
 * ClickHouse): its scalar aliases (`(select now64(6, 'UTC')) as anchor`), its CTEs by name, and the
 * final SELECT. The registry checks the CTE names against the PostgreSQL statement's and sends a
 * stored call only the CTEs its final SELECT reads (each costs ClickHouse analysis time, read or not).
 * Statements here are ours (sql/queries), never a caller's.
 */
import { lex, unquote, type Tok } from './tokens.ts';

export interface ClickHouseWith {
  /** `expr as name` items, in order, as written. */
  readonly aliases: readonly string[];
  /** `name as ( … )` items, in order: each one's name and text as written. */
  readonly ctes: readonly { readonly name: string; readonly text: string }[];
  /** From the top-level SELECT to the end. */
  readonly final: string;
}

/** Split `text` (a statement without WITH is all final SELECT); throws naming what it cannot read. */
export function splitClickHouseWith(text: string): ClickHouseWith {
  const tokens = lex(text);
  const word = (t: Tok | undefined, w: string) => t?.kind === 'word' && t.text.toLowerCase() === w;
  if (!word(tokens[0], 'with')) return { aliases: [], ctes: [], final: text };
  const aliases: string[] = [];
  const ctes: { name: string; text: string }[] = [];
  let i = 1;
  for (;;) {
    const first = tokens[i];
    if (first === undefined) throw new Error('the WITH clause has no final SELECT');
    const itemStart = first.start;
    const isCte = (first.kind === 'word' || first.kind === 'quoted') && word(tokens[i + 1], 'as') && tokens[i + 2]?.text === '(';
    // To the item's end: a comma or the final SELECT at depth 0.
    let depth = 0;
    let j = i;
    for (; j < tokens.length; j++) {
      const t = tokens[j]!;
      if (t.text === '(') depth++;
      else if (t.text === ')') depth--;
      else if (depth === 0 && (t.text === ',' || (word(t, 'select') && j > i))) break;
    }
    if (j >= tokens.length) throw new Error('the WITH clause has no final SELECT');
    const itemText = text.slice(itemStart, tokens[j - 1]!.end);
    if (isCte) ctes.push({ name: unquote(first), text: itemText });
    else aliases.push(itemText);
    if (tokens[j]!.text === ',') {
      i = j + 1;
      continue;
    }
    return { aliases, ctes, final: text.slice(tokens[j]!.start) };
  }
}

/**
 * The statement with only the CTEs the final SELECT reads, directly or through other kept CTEs.
 * A CTE counts as read where its name appears as a name token: over-keeping costs time, never rows.
 */
export function withOnlyWhatIsRead(w: ClickHouseWith): string {
  return withCtesFor(w, namesIn(w.final), w.final);
}

/**
 * `final` (a SELECT of the service's printing) after the WITH clause's scalar aliases and the CTEs
 * `read` names, with the CTEs those read in turn.
 */
export function withCtesFor(w: ClickHouseWith, read: Iterable<string>, final: string): string {
  const needed = new Set<string>();
  const visit = (names: Iterable<string>) => {
    for (const n of names) {
      const cte = w.ctes.find((c) => c.name === n);
      if (cte && !needed.has(n)) {
        needed.add(n);
        visit(namesIn(cte.text.slice(cte.text.indexOf('('))));
      }
    }
  };
  visit(read);
  for (const a of w.aliases) visit(namesIn(a));
  const items = [...w.aliases, ...w.ctes.filter((c) => needed.has(c.name)).map((c) => c.text)];
  return items.length === 0 ? final : `with\n${items.join(',\n')}\n${final}`;
}

const namesIn = (s: string): Set<string> => new Set(lex(s).filter((t) => t.kind === 'word' || t.kind === 'quoted').map(unquote));
