/**
 * The `@name` → `$n` binder (docs/http-api.md). A single linear scan that follows PostgreSQL's lexer just
 * far enough to know which characters are plain SQL code: string literals, quoted identifiers,
 * dollar quotes and comments are skipped whole, so an `@x` inside them is never touched. Values
 * never enter SQL text; this only renames placeholders.
 *
 * Assumes standard_conforming_strings = on (the PostgreSQL default since 9.1): a backslash is an
 * escape only inside E'…'.
 */

/** SQL text the binder cannot scan safely; `position` is the character offset of the problem. */
export class SqlTokenizeError extends Error {
  readonly position: number;

  constructor(what: string, position: number) {
    super(`${what} at offset ${position}`);
    this.name = 'SqlTokenizeError';
    this.position = position;
  }
}

/** Stored SQL with positional placeholders: `names[i]` is bound to `$(i+1)`. */
export interface BoundSql {
  sql: string;
  names: readonly string[];
}

/** One `@name` found in plain code: `start` is the offset of `@`, `end` the offset after the name. */
export interface ParamRef {
  name: string;
  start: number;
  end: number;
}

const QUOTE = 0x27; // '
const DQUOTE = 0x22; // "
const BACKSLASH = 0x5c;
const DOLLAR = 0x24;
const AT = 0x40;
const MINUS = 0x2d;
const SLASH = 0x2f;
const STAR = 0x2a;
const LF = 0x0a;
const CR = 0x0d;

// PostgreSQL's operator characters: an `@` right after one of these is part of an operator
// (`<@`, `@@`, `-@`, `=@` …), not a parameter.
const OP_CHAR = new Uint8Array(128);
for (const ch of '+-*/<>=~!@#%^&|`?') OP_CHAR[ch.charCodeAt(0)] = 1;

// charCodeAt past the end gives NaN, which fails every comparison below: no bounds checks needed.
function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
function isAsciiIdentStart(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}
function isAsciiIdentCont(c: number): boolean {
  return isAsciiIdentStart(c) || isDigit(c);
}
// PostgreSQL treats every non-ASCII character as an identifier letter.
function isIdentStart(c: number): boolean {
  return isAsciiIdentStart(c) || c >= 0x80;
}
// `$` continues an identifier (`col$1` is one name), which is also why `$` after one never opens
// a dollar quote.
function isIdentCont(c: number): boolean {
  return isIdentStart(c) || isDigit(c) || c === DOLLAR;
}

/** Offset just past a '…' (or, with `backslash`, E'…') literal whose opening quote is at `open`. */
function skipQuoted(text: string, open: number, quote: number, backslash: boolean, what: string, start: number): number {
  const n = text.length;
  let i = open + 1;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (backslash && c === BACKSLASH) {
      i += 2; // the escaped character, whatever it is, cannot end the literal
    } else if (c === quote) {
      if (text.charCodeAt(i + 1) !== quote) return i + 1;
      i += 2; // doubled quote stands for itself
    } else {
      i++;
    }
  }
  throw new SqlTokenizeError(`unterminated ${what}`, start);
}

/** Offset just past a block comment opened at `open`; comments nest in PostgreSQL. */
function skipBlockComment(text: string, open: number): number {
  const n = text.length;
  let depth = 1;
  let i = open + 2;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      depth++;
      i += 2;
    } else if (c === STAR && text.charCodeAt(i + 1) === SLASH) {
      i += 2;
      if (--depth === 0) return i;
    } else {
      i++;
    }
  }
  throw new SqlTokenizeError('unterminated block comment', open);
}

/** Offset just past the closing `$` of a `$tag$` / `$$` opener at `open`, or -1 if there is none. */
function dollarOpenerEnd(text: string, open: number): number {
  let i = open + 1;
  // A tag cannot start with a digit: `$1` is a positional parameter, handled by the caller.
  if (isIdentStart(text.charCodeAt(i))) {
    i++;
    while (isIdentStart(text.charCodeAt(i)) || isDigit(text.charCodeAt(i))) i++;
  }
  return text.charCodeAt(i) === DOLLAR ? i + 1 : -1;
}

/**
 * Walk `text` as PostgreSQL would and call `onParam` for every `@name` in plain code, in order.
 * Throws SqlTokenizeError for an unterminated literal/comment/dollar quote, a positional `$n` in
 * code (mixing styles is a definition error), or an `@name` running on into non-ASCII or `$`.
 */
export function scanSql(text: string, onParam: (param: ParamRef) => void): void {
  const n = text.length;
  let i = 0;
  // Whether the previous code character was an operator character. Literals, identifiers,
  // comments and whitespace all reset it: `/* c */@x` and `< @x` are parameters, `<@x` is not.
  let prevOp = false;
  while (i < n) {
    const c = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (c === QUOTE) {
      i = skipQuoted(text, i, QUOTE, false, 'string literal', i);
      prevOp = false;
    } else if (c === DQUOTE) {
      i = skipQuoted(text, i, DQUOTE, false, 'quoted identifier', i);
      prevOp = false;
    } else if (c === MINUS && next === MINUS) {
      i += 2;
      while (i < n && text.charCodeAt(i) !== LF && text.charCodeAt(i) !== CR) i++;
      prevOp = false;
    } else if (c === SLASH && next === STAR) {
      i = skipBlockComment(text, i);
      prevOp = false;
    } else if (c === DOLLAR) {
      if (isDigit(next)) {
        throw new SqlTokenizeError('positional parameter $' + digitsAt(text, i + 1) + ' in SQL text (use @name parameters)', i);
      }
      const bodyStart = dollarOpenerEnd(text, i);
      if (bodyStart < 0) {
        i++; // a lone `$`: PostgreSQL rejects it, and it hides nothing
      } else {
        const tag = text.slice(i, bodyStart);
        const close = text.indexOf(tag, bodyStart);
        if (close < 0) throw new SqlTokenizeError(`unterminated dollar-quoted string ${tag}`, i);
        i = close + tag.length;
      }
      prevOp = false;
    } else if (isIdentStart(c)) {
      // E'…' only when E is a whole word: in `typE'…'` the E belongs to the identifier.
      if ((c === 0x45 || c === 0x65) && next === QUOTE) {
        i = skipQuoted(text, i + 1, QUOTE, true, "escape string literal (E'…')", i);
      } else {
        i++;
        while (isIdentCont(text.charCodeAt(i))) i++;
      }
      prevOp = false;
    } else if (isDigit(c)) {
      // Swallow the number (and any junk after it) so `1e` etc. cannot look like E'…'.
      i++;
      while (isAsciiIdentCont(text.charCodeAt(i))) i++;
      prevOp = false;
    } else if (c === AT && !prevOp && isAsciiIdentStart(next)) {
      let end = i + 2;
      while (isAsciiIdentCont(text.charCodeAt(end))) end++;
      if (isIdentCont(text.charCodeAt(end))) {
        // PostgreSQL would read `@näme` / `@a$b` as one longer name: refuse rather than split it.
        throw new SqlTokenizeError(`parameter name @${text.slice(i + 1, end)} runs into a character outside [A-Za-z0-9_]`, i);
      }
      onParam({ name: text.slice(i + 1, end), start: i, end });
      i = end;
      prevOp = false;
    } else {
      prevOp = c < 0x80 && OP_CHAR[c] === 1;
      i++;
    }
  }
}

function digitsAt(text: string, i: number): string {
  let end = i;
  while (isDigit(text.charCodeAt(end))) end++;
  return text.slice(i, end);
}

/**
 * Replace each `@name` in plain code with a placeholder, one number per distinct name in order of
 * first use: `$n` for PostgreSQL, or what `placeholder` writes (ClickHouse's `{pN:Type}`).
 */
export function bindSql(text: string, placeholder: (num: number, name: string) => string = (num) => '$' + num): BoundSql {
  const numbers = new Map<string, number>();
  const names: string[] = [];
  const parts: string[] = [];
  let last = 0;
  scanSql(text, ({ name, start, end }) => {
    let num = numbers.get(name);
    if (num === undefined) {
      names.push(name);
      num = names.length;
      numbers.set(name, num);
    }
    parts.push(text.slice(last, start), placeholder(num, name));
    last = end;
  });
  parts.push(text.slice(last));
  return { sql: parts.join(''), names };
}

const FOUND = Symbol('found');

/**
 * The first `@name` in plain code, or null. Used on caller SQL, which may not carry parameters: text
 * this scanner cannot read (an unterminated literal, a `$1`) is left to the parser to refuse.
 */
export function firstParam(text: string): ParamRef | null {
  let found: ParamRef | null = null;
  try {
    scanSql(text, (ref) => {
      found = ref;
      throw FOUND;
    });
  } catch (err) {
    if (err !== FOUND && !(err instanceof SqlTokenizeError)) throw err;
  }
  return found;
}
