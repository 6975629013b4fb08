/**
 * The token pre-pass of the BigQuery translation (docs/logflare-compat.md): rewrites what PostgreSQL's
 * grammar cannot read into text it can, token by token, never inside a literal:
 * - string literals `'…'`, `"…"`, `r'…'`, `'''…'''` with BigQuery's backslash escapes (and the `''`
 *   doubling Studio's `analyticsLiteral` writes) → PostgreSQL `'…'` holding the same characters;
 * - backtick identifiers → `"…"`; `#` comments → nothing;
 * - a comma right before FROM (BigQuery allows a trailing comma in the select list) → nothing;
 * - `SAFE_CAST(x AS T)` → `CAST(x AS bq_safe.T)`, a marker the tree rewrite turns into a cast that
 *   gives NULL on bad input (the marker can only reach the database through that rewrite);
 * - `INTERVAL 5 MINUTE` → `(5 * interval '1 minute')`; `CURRENT_TIMESTAMP()` → `CURRENT_TIMESTAMP`;
 * - `JSON_VALUE(`, `JSON_QUERY(` (SQL/JSON keywords to PostgreSQL) and `TIMESTAMP(` (a type name
 *   there) → `bq_json_value(`, `bq_json_query(`, `bq_timestamp(`;
 * - `x[OFFSET(n)]`, `[SAFE_OFFSET(n)]`, `[ORDINAL(n)]`, `[SAFE_ORDINAL(n)]` → `x[bq_offset(n)]` (and
 *   so on: a marker call the tree rewrite turns into PostgreSQL's 1-based subscript), with a call's
 *   result parenthesised first (`f(a)[…]` → `(f(a))[…]`), as PostgreSQL's grammar needs;
 * - `STRUCT(x AS a, y)` → `bq_struct(a => x, y)`: a field's name moves before its value as a named
 *   argument (functions.ts builds the JSON object);
 * - `QUALIFY cond` → `HAVING bq_qualify(cond)` (`HAVING (h) AND bq_qualify(cond)` after a HAVING h),
 *   a marker the tree rewrite (qualify.ts) takes out again and turns into a filtering subquery.
 * It keeps, for each character it writes, the caller's character it came from, so every error
 * names a position in what the caller sent.
 */
import { reject } from '../sandbox/sql-parser.ts';

/** PostgreSQL text and, per UTF-16 unit of it, the caller's 0-based character index. */
export interface PrePassed {
  readonly text: string;
  readonly origin: readonly number[];
}

/** Schema-like qualifier the pre-pass puts on SAFE_CAST's type; see translate.ts. */
export const SAFE_CAST_MARK = 'bq_safe';

/** The call the pre-pass wraps around ARRAY_AGG(… LIMIT n); see functions.ts. */
export const AGG_LIMIT_MARK = 'bq_agg_limit';
/** The name the pre-pass gives STRUCT(…); see functions.ts. */
export const STRUCT_MARK = 'bq_struct';
/** The marker call the pre-pass wraps a QUALIFY condition in; see qualify.ts. */
export const QUALIFY_MARK = 'bq_qualify';
/** Words that end a QUALIFY condition at its own depth (or a `)` closing that depth, or `;`). */
const AFTER_QUALIFY: ReadonlySet<string> = new Set(['order', 'limit', 'window', 'union', 'intersect', 'except', 'offset', 'fetch']);

/** Array subscript → the marker call the pre-pass writes inside the brackets; see functions.ts. */
export const SUBSCRIPT_MARKS: Readonly<Record<string, string>> = Object.freeze({
  offset: 'bq_offset', safe_offset: 'bq_safe_offset', ordinal: 'bq_ordinal', safe_ordinal: 'bq_safe_ordinal',
});

const INTERVAL_UNITS: Readonly<Record<string, string>> = Object.freeze({
  microsecond: '1 microsecond', millisecond: '1 millisecond', second: '1 second', minute: '1 minute',
  hour: '1 hour', day: '1 day', week: '7 days', month: '1 month', quarter: '3 months', year: '1 year',
});
/** BigQuery functions whose names PostgreSQL's grammar reserves → the name the pre-pass writes. */
export const BQ_FUNCTIONS: Readonly<Record<string, string>> = Object.freeze({ json_value: 'bq_json_value', json_query: 'bq_json_query', timestamp: 'bq_timestamp' });
const NO_ARG_CALLS: Readonly<Record<string, string>> = Object.freeze({
  current_timestamp: 'CURRENT_TIMESTAMP', current_date: 'CURRENT_DATE', current_datetime: 'LOCALTIMESTAMP', current_time: 'CURRENT_TIME',
});
const ESCAPES: Readonly<Record<string, string>> = Object.freeze({
  n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', a: '\x07', '\\': '\\', "'": "'", '"': '"', '`': '`', '?': '?',
});

type Kind = 'word' | 'number' | 'string' | 'quoted' | 'punct';
interface Tok {
  kind: Kind;
  /** Output text for this token. */
  text: string;
  start: number;
  /** Index after the token in the caller's text. */
  end: number;
  /** Lower-cased word, for keyword checks. */
  word: string;
}

/** Translate BigQuery lexical forms to PostgreSQL ones; throws `invalid_sql` on an unterminated literal. */
export function prePass(sql: string): PrePassed {
  const tokens = lex(sql);
  // Pieces of output, each with the caller's index it came from; joined (and expanded per
  // character) at the end, so a piece can still be inserted before an earlier one.
  const out: string[] = [];
  const from: number[] = [];
  const emit = (text: string, at: number): void => {
    out.push(text);
    from.push(at);
  };
  // SAFE_CAST bookkeeping: paren depth at which each open SAFE_CAST's AS is expected.
  const safeDepths: number[] = [];
  let depth = 0;
  // For each open `(`: the output piece where what it belongs to starts (the function name before
  // it, dotted names included, else the paren itself); `closedStart` is that of the last `)`.
  const openStarts: number[] = [];
  // For each open `(`: the lower-cased name of the function it calls ('' when it is no call).
  const openCalls: string[] = [];
  let closedStart = -1;
  let lastWordStart = -1;
  // QUALIFY bookkeeping, per paren depth: the output piece after the current SELECT's HAVING
  // keyword, and whether a QUALIFY condition is open (its marker call still to be closed).
  const havingAt = new Map<number, number>();
  const qualifyOpen = new Set<number>();
  // STRUCT bookkeeping: for each open STRUCT( (innermost last), its depth and where its current
  // field starts in the output.
  const structs: { depth: number; fieldAt: number }[] = [];
  // Array brackets: for each open `[`, where its array literal starts in the output (-1 for a
  // subscript); `closedLiteral` is that of the last `]`. `emptyArrayType`: the element type of
  // `ARRAY<T>[]`, text for a bare `[]`.
  const brackets: number[] = [];
  let closedLiteral = -1;
  let emptyArrayType = 'text';
  const closeQualify = (at: number): void => {
    if (qualifyOpen.delete(depth)) emit(')', at);
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if ((t.kind === 'word' && AFTER_QUALIFY.has(t.word)) || t.text === ')' || t.text === ';') closeQualify(t.start);
    // Whitespace or a comment between two tokens becomes one space; adjacent tokens stay adjacent
    // (`>=`), except before a string: PostgreSQL reads `E'…'` and `U&'…'` as escape syntax.
    if (i > 0 && (t.start > tokens[i - 1]!.end || t.kind === 'string')) emit(' ', t.start);
    if (t.kind === 'punct' && t.text === ',' && next?.kind === 'word' && next.word === 'from') continue;
    if (t.kind === 'punct') {
      const prev = tokens[i - 1];
      if (t.text === '(') {
        depth++;
        // A name right before the paren (no space: `count(`, not `select (`) is the call's.
        const isCall = (prev?.kind === 'word' || prev?.kind === 'quoted') && prev.end === t.start && lastWordStart >= 0;
        openStarts.push(isCall ? lastWordStart : out.length);
        openCalls.push(isCall && prev.kind === 'word' ? prev.word : '');
      } else if (t.text === ')') {
        havingAt.delete(depth);
        if (safeDepths[safeDepths.length - 1] === depth) safeDepths.pop();
        depth--;
        closedStart = openStarts.pop() ?? -1;
        openCalls.pop();
      } else if (t.text === '[' && next?.kind === 'word' && SUBSCRIPT_MARKS[next.word] !== undefined && tokens[i + 2]?.text === '(') {
        // A call's result (`f(x)[OFFSET(1)]`) or an array literal (`[1, 2][OFFSET(0)]`) must be
        // parenthesised for PostgreSQL to subscript it.
        const subscripted = prev?.text === ')' ? closedStart : prev?.text === ']' ? closedLiteral : -1;
        if (subscripted >= 0) {
          out.splice(subscripted, 0, '(');
          from.splice(subscripted, 0, from[subscripted]!);
          emit(')', t.start);
        }
        brackets.push(-1);
        emit('[', t.start);
        emit(SUBSCRIPT_MARKS[next.word]!, next.start);
        i++;
        continue;
      } else if (t.text === '[' && startsOperand(prev)) {
        // An array literal: `[1, 2]` (or `ARRAY<T>[…]`, its type dropped above) is PostgreSQL's
        // ARRAY[1, 2]; an empty one needs a type there.
        if (next?.text === ']') {
          emit(`(ARRAY[]::${emptyArrayType}[])`, t.start);
          emptyArrayType = 'text';
          closedLiteral = -1;
          i++;
          continue;
        }
        brackets.push(out.length);
        emit('ARRAY[', t.start);
        continue;
      } else if (t.text === '[') {
        brackets.push(-1);
      } else if (t.text === ']') {
        closedLiteral = brackets.pop() ?? -1;
      }
      if (t.text !== '.') lastWordStart = -1;
      emit(t.text, t.start);
      const struct = structs[structs.length - 1];
      if (struct?.depth === depth && (t.text === '(' || t.text === ',')) struct.fieldAt = out.length;
      if (t.text === ')' && struct?.depth === depth + 1) structs.pop();
      continue;
    }
    // A name's start, carried over `.` to the first part of a dotted name (`net.host`).
    if (t.kind === 'word' || t.kind === 'quoted') {
      const dotted = tokens[i - 1]?.text === '.' && lastWordStart >= 0;
      if (!dotted) lastWordStart = out.length;
    } else {
      lastWordStart = -1;
    }
    if (t.kind !== 'word') {
      emit(t.text, t.start);
      continue;
    }
    if (t.word === 'select') {
      havingAt.delete(depth);
      if (qualifyOpen.has(depth)) reject(`SELECT cannot follow QUALIFY's condition at character ${t.start + 1}`);
    }
    if (t.word === 'having' && tokens[i - 1]?.text !== '.') {
      emit(t.text, t.start);
      havingAt.set(depth, out.length);
      continue;
    }
    if (t.word === 'qualify' && tokens[i - 1]?.text !== '.' && next !== undefined && next.text !== '.' && next.text !== ',' && next.text !== ')') {
      if (qualifyOpen.has(depth)) reject(`QUALIFY appears twice at character ${t.start + 1}`);
      const having = havingAt.get(depth);
      if (having === undefined) {
        emit(`HAVING ${QUALIFY_MARK}(`, t.start);
      } else {
        out.splice(having, 0, ' (');
        from.splice(having, 0, from[having] ?? t.start);
        emit(`) AND ${QUALIFY_MARK}(`, t.start);
      }
      qualifyOpen.add(depth);
      continue;
    }
    if (t.word === 'array' && next?.text === '<') {
      // ARRAY<T>[…]: the element type is BigQuery's; the values say it to PostgreSQL (an empty
      // array keeps it as a cast).
      const close = tokens.findIndex((k, j) => j > i && k.text === '>');
      const type = tokens[i + 2];
      if (close !== i + 3 || type?.kind !== 'word' || tokens[close + 1]?.text !== '[') reject(`ARRAY<…> needs one element type and a [ … ] list at character ${t.start + 1}`);
      emptyArrayType = ARRAY_ELEMENT_TYPES[type.word] ?? reject(`ARRAY<${type.text}> is not supported (element types: ${Object.keys(ARRAY_ELEMENT_TYPES).join(', ').toUpperCase()}) at character ${type.start + 1}`);
      i = close;
      continue;
    }
    if (t.word === 'limit' && openCalls[openCalls.length - 1] === 'array_agg') {
      // ARRAY_AGG(x ORDER BY y LIMIT n) → bq_agg_limit(ARRAY_AGG(x ORDER BY y), n): PostgreSQL's
      // aggregates take no LIMIT; functions.ts keeps the first n values.
      const start = openStarts[openStarts.length - 1]!;
      out.splice(start, 0, `${AGG_LIMIT_MARK}(`);
      from.splice(start, 0, from[start] ?? t.start);
      emit('),', t.start);
      continue;
    }
    if (t.word === 'struct' && tokens[i - 1]?.text !== '.') {
      if (next?.text === '<') reject(`typed STRUCT<…>(…) is not supported; name the fields with AS at character ${t.start + 1}`);
      if (next?.text === '(') {
        emit(STRUCT_MARK, t.start);
        structs.push({ depth: depth + 1, fieldAt: -1 });
        continue;
      }
    }
    const struct = structs[structs.length - 1];
    if (t.word === 'as' && struct?.depth === depth && struct.fieldAt >= 0) {
      const name = tokens[i + 1];
      if (name === undefined || (name.kind !== 'word' && name.kind !== 'quoted')) reject(`STRUCT field needs a name after AS at character ${t.start + 1}`);
      const quoted = name.kind === 'quoted' ? name.text : `"${name.text.replaceAll('"', '""')}"`;
      out.splice(struct.fieldAt, 0, ` ${quoted} =>`);
      from.splice(struct.fieldAt, 0, name.start);
      i++;
      continue;
    }
    if (t.word === 'safe_cast' && next?.text === '(') {
      emit('CAST', t.start);
      safeDepths.push(depth + 1);
      continue;
    }
    if (t.word === 'as' && safeDepths[safeDepths.length - 1] === depth) {
      emit(`AS ${SAFE_CAST_MARK}.`, t.start);
      safeDepths.pop();
      // The type follows with no space: `bq_safe.INT64`.
      const type = tokens[i + 1];
      if (type === undefined || type.kind !== 'word') reject(`SAFE_CAST needs a type name after AS at character ${t.start + 1}`);
      emit(type.text, type.start);
      i++;
      continue;
    }
    // JSON_VALUE and JSON_QUERY are SQL/JSON syntax to PostgreSQL's grammar, TIMESTAMP a type:
    // as BigQuery's functions they go by a name of their own (translated in functions.ts).
    const renamed = BQ_FUNCTIONS[t.word];
    if (renamed !== undefined && next?.text === '(' && next.start === t.end) {
      emit(renamed, t.start);
      continue;
    }
    const noArg = NO_ARG_CALLS[t.word];
    if (noArg !== undefined && next?.text === '(' && tokens[i + 2]?.text === ')') {
      emit(noArg, t.start);
      i += 2;
      continue;
    }
    if (t.word === 'interval') {
      const sign = next?.text === '-' ? '-' : '';
      const amount = tokens[i + (sign ? 2 : 1)];
      const unit = tokens[i + (sign ? 3 : 2)];
      const span = unit?.kind === 'word' ? INTERVAL_UNITS[unit.word] : undefined;
      if (amount?.kind === 'number' && span !== undefined) {
        emit(`(${sign}${amount.text} * interval '${span}')`, t.start);
        i += sign ? 3 : 2;
        continue;
      }
    }
    emit(t.text, t.start);
  }
  closeQualify(sql.length);
  const origin: number[] = [];
  out.forEach((piece, k) => {
    for (let c = 0; c < piece.length; c++) origin.push(from[k]!);
  });
  return { text: out.join(''), origin };
}

/** Words after which `[` opens an array literal rather than a subscript. */
const OPERAND_BEFORE: ReadonlySet<string> = new Set([
  'select', 'where', 'and', 'or', 'not', 'when', 'then', 'else', 'in', 'having', 'on', 'by', 'distinct', 'all', 'like', 'between', 'case', 'is',
]);
/** ARRAY<T>'s element types → PostgreSQL's, for an empty literal's cast. */
const ARRAY_ELEMENT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  int64: 'int8', float64: 'float8', numeric: 'numeric', string: 'text', bool: 'bool', date: 'date', timestamp: 'timestamptz',
});

/** Whether a `[` after `prev` starts a value (an array literal) rather than subscripting one. */
function startsOperand(prev: Tok | undefined): boolean {
  if (prev === undefined) return true;
  if (prev.kind === 'punct') return prev.text !== ')' && prev.text !== ']';
  return prev.kind === 'word' && OPERAND_BEFORE.has(prev.word);
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
const DIGIT = /[0-9]/;

function lex(sql: string): Tok[] {
  const tokens: Tok[] = [];
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql[i]!;
    const start = i;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
      i++;
    } else if ((c === '-' && sql[i + 1] === '-') || c === '#') {
      while (i < n && sql[i] !== '\n') i++;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) reject(`unterminated /* comment at character ${start + 1}`);
      i = end + 2;
    } else if (c === "'" || c === '"' || ((c === 'r' || c === 'R') && (sql[i + 1] === "'" || sql[i + 1] === '"'))) {
      const raw = c === 'r' || c === 'R';
      const { value, end } = readString(sql, raw ? i + 1 : i, raw);
      tokens.push({ kind: 'string', text: pgString(value, start), start, end, word: '' });
      i = end;
    } else if ((c === 'b' || c === 'B') && (sql[i + 1] === "'" || sql[i + 1] === '"')) {
      reject(`bytes literals (b'…') are not supported at character ${start + 1}`);
    } else if (c === '`') {
      const end = sql.indexOf('`', i + 1);
      if (end < 0) reject(`unterminated quoted identifier at character ${start + 1}`);
      const name = sql.slice(i + 1, end);
      if (name === '' || name.includes('\0')) reject(`empty or invalid quoted identifier at character ${start + 1}`);
      tokens.push({ kind: 'quoted', text: `"${name.replaceAll('"', '""')}"`, start, end: end + 1, word: '' });
      i = end + 1;
    } else if (DIGIT.test(c) || (c === '.' && DIGIT.test(sql[i + 1] ?? ''))) {
      i++;
      while (i < n && /[0-9.]/.test(sql[i]!)) i++;
      if ((sql[i] === 'e' || sql[i] === 'E') && /[-+0-9]/.test(sql[i + 1] ?? '')) {
        i += 2;
        while (i < n && DIGIT.test(sql[i]!)) i++;
      }
      tokens.push({ kind: 'number', text: sql.slice(start, i), start, end: i, word: '' });
    } else if (WORD_START.test(c)) {
      i++;
      while (i < n && WORD_PART.test(sql[i]!)) i++;
      const text = sql.slice(start, i);
      tokens.push({ kind: 'word', text, start, end: i, word: text.toLowerCase() });
    } else {
      // Operators and punctuation pass through one character at a time; PostgreSQL re-lexes them.
      tokens.push({ kind: 'punct', text: c, start, end: i + 1, word: '' });
      i++;
    }
  }
  return tokens;
}

/** A BigQuery string literal starting at `at` (the quote): its value and the index after it. */
function readString(sql: string, at: number, raw: boolean): { value: string; end: number } {
  const q = sql[at]!;
  const triple = sql[at + 1] === q && sql[at + 2] === q;
  const close = triple ? q.repeat(3) : q;
  let i = at + close.length;
  let value = '';
  for (;;) {
    if (i >= sql.length) return reject(`unterminated string literal at character ${at + 1}`);
    const c = sql[i]!;
    if (sql.startsWith(close, i)) {
      // `''` inside a single-quoted literal: the doubling Studio's analyticsLiteral writes.
      if (!triple && sql[i + 1] === q) {
        value += q;
        i += 2;
        continue;
      }
      return { value, end: i + close.length };
    }
    if (c === '\\' && !raw) {
      const e = sql[i + 1];
      if (e === undefined) return reject(`unterminated string literal at character ${at + 1}`);
      const simple = ESCAPES[e];
      if (simple !== undefined) {
        value += simple;
        i += 2;
        continue;
      }
      const hex = e === 'x' || e === 'X' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
      const digits = hex > 0 ? sql.slice(i + 2, i + 2 + hex) : '';
      if (hex > 0 && new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits)) {
        const code = parseInt(digits, 16);
        if (code === 0 || code > 0x10ffff) reject(`escape \\${e}${digits} is not a valid character at character ${i + 1}`);
        value += String.fromCodePoint(code);
        i += 2 + hex;
        continue;
      }
      if (/[0-7]/.test(e) && /^[0-7]{3}$/.test(sql.slice(i + 1, i + 4))) {
        const code = parseInt(sql.slice(i + 1, i + 4), 8);
        if (code === 0) reject(`escape \\000 is not a valid character at character ${i + 1}`);
        value += String.fromCharCode(code);
        i += 4;
        continue;
      }
      // BigQuery refuses other escapes; keeping the backslash keeps regular expressions such as
      // '\d' meaning what their author meant.
      value += '\\';
      i += 1;
      continue;
    }
    value += c;
    i++;
  }
}

function pgString(value: string, at: number): string {
  if (value.includes('\0')) reject(`string literal contains a NUL character at character ${at + 1}`);
  return `'${value.replaceAll("'", "''")}'`;
}
