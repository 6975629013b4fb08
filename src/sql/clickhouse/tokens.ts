/**
 * ClickHouse SQL read as tokens, enough for the structure of the stored statements (sql/queries,
 * never a caller's): comments skipped, literals and quoted names whole, each token with its offsets
 * in the text. Used by with-clause.ts (the WITH clause) and optional-filters.ts (conditions on
 * optional parameters).
 */

export interface Tok {
  kind: 'word' | 'quoted' | 'string' | 'punct' | 'other';
  text: string;
  start: number;
  end: number;
}

/** A name token's name: a quoted one without its quotes. */
export function unquote(t: Tok): string {
  return t.kind === 'quoted' ? t.text.slice(1, -1) : t.text;
}

/** The tokens of `text`; throws on an unterminated comment or literal. */
export function lex(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const start = i;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && text[i + 1] === '-') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new Error(`unterminated comment at offset ${i}`);
      i = end + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      // Stored ClickHouse statements may not hold a backslash (registry.ts): a quote ends a literal
      // unless doubled.
      i++;
      for (;;) {
        if (i >= text.length) throw new Error(`unterminated literal at offset ${start}`);
        if (text[i] === c && text[i + 1] === c) i += 2;
        else if (text[i] === c) break;
        else i++;
      }
      i++;
      out.push({ kind: c === "'" ? 'string' : 'quoted', text: text.slice(start, i), start, end: i });
    } else if (/[A-Za-z_]/.test(c)) {
      while (i < text.length && /[A-Za-z0-9_]/.test(text[i]!)) i++;
      out.push({ kind: 'word', text: text.slice(start, i), start, end: i });
    } else {
      i++;
      out.push({ kind: c === '(' || c === ')' || c === ',' ? 'punct' : 'other', text: c, start, end: i });
    }
  }
  return out;
}
