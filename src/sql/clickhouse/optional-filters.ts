/**
 * Filters on optional parameters, folded per call shape on ClickHouse (docs/clickhouse.md, "The
 * stored queries"). A stored statement writes an optional filter as PostgreSQL's does:
 * `(@p is null or <condition>)`. PostgreSQL folds it when it plans the call with its values;
 * ClickHouse plans the whole expression, constant or not, and each such filter cost logs.all about
 * 0.4 ms (measured on chdb, 10M rows). So the registry compiles, at start-up, one statement per set
 * of absent optional parameters: where @p is absent the group is true (and leaves with its `and`),
 * where it is given the group is its condition. Only whether a value is null picks a statement;
 * values are bound as in any other.
 *
 * Works on tokens (tokens.ts) of our own statements, never a caller's. A group is folded
 * only where the result is certain: its condition has no operator that binds looser than OR (`?:`,
 * a lambda, an alias), it is not a function's arguments, it holds no other such group, and its `and`
 * goes with it only where that `and` is a conjunction (not BETWEEN's) of whole operands; otherwise
 * an absent group becomes `true`, which is always exact.
 */
import { lex, type Tok } from './tokens.ts';

/** One `(@name is null or …)`: the token indexes of its parentheses. */
interface Group {
  name: string;
  open: number;
  close: number;
}

/** Parameters folded per call shape at most: a statement is compiled 2^n times. */
export const MAX_FOLDED_PARAMS = 4;

const isWord = (t: Tok | undefined, ...words: string[]): boolean => t?.kind === 'word' && words.includes(t.text.toLowerCase());

/** Where a parenthesised expression may stand as a whole operand (not a function's arguments). */
const OPERAND_BEFORE = (t: Tok | undefined): boolean => t !== undefined && (t.text === '(' || t.text === ',' || isWord(t, 'and', 'or', 'where', 'prewhere', 'having'));
/** What may follow a conjunct: the next conjunct or disjunct, the end of its parentheses or of its clause. */
const CONJUNCT_AFTER = (t: Tok | undefined): boolean => t === undefined || t.text === ')' || isWord(t, 'and', 'or', 'order', 'group', 'having', 'limit', 'settings', 'union', 'window', 'qualify');

function groupsIn(tokens: readonly Tok[]): Group[] {
  const found: Group[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const at = tokens[i + 1];
    const name = tokens[i + 2];
    if (tokens[i]!.text !== '(' || at?.text !== '@' || name?.kind !== 'word' || name.start !== at.end) continue;
    if (!isWord(tokens[i + 3], 'is') || !isWord(tokens[i + 4], 'null') || !isWord(tokens[i + 5], 'or')) continue;
    if (!OPERAND_BEFORE(tokens[i - 1])) continue;
    let depth = 0;
    let close = -1;
    let looser = false;
    for (let j = i; j < tokens.length; j++) {
      const t = tokens[j]!;
      if (t.text === '(') depth++;
      else if (t.text === ')' && --depth === 0) {
        close = j;
        break;
      } else if (depth === 1 && (t.text === '?' || t.text === ':' || isWord(t, 'as') || (t.text === '>' && tokens[j - 1]?.text === '-' && tokens[j - 1]!.end === t.start))) looser = true;
    }
    if (close < 0 || looser) continue;
    found.push({ name: name.text, open: i, close });
  }
  // A group inside another is left as written (both are).
  return found.filter((g) => !found.some((o) => o !== g && o.open <= g.close && g.open <= o.close));
}

/** The optional parameters `text` tests as `(@p is null or …)` in groups it can fold, in order of first appearance. */
export function foldableParams(text: string): string[] {
  return [...new Set(groupsIn(lex(text)).map((g) => g.name))];
}

/** Is the `and` at `k` a conjunction? Not when BETWEEN's: a BETWEEN before it in its operand. */
function conjunction(tokens: readonly Tok[], k: number): boolean {
  let depth = 0;
  for (let j = k - 1; j >= 0; j--) {
    const t = tokens[j]!;
    if (t.text === ')') depth++;
    else if (t.text === '(' && --depth < 0) return true;
    else if (depth === 0 && isWord(t, 'and', 'or', 'where', 'prewhere', 'having', 'on', 'when', 'then', 'else')) return true;
    else if (depth === 0 && isWord(t, 'between')) return false;
  }
  return true;
}

/**
 * `text` with each foldable `(@p is null or <condition>)` folded: for a name in `absent`, gone with
 * its conjunction's `and` (or `true` where it is not a conjunct); otherwise `(<condition>)`.
 */
export function foldOptional(text: string, absent: ReadonlySet<string>): string {
  const tokens = lex(text);
  const edits: { from: number; to: number; by: string }[] = [];
  // How far the edits so far reach: an `and` a group before took is not this group's.
  let taken = 0;
  for (const g of groupsIn(tokens)) {
    const open = tokens[g.open]!;
    const close = tokens[g.close]!;
    const before = tokens[g.open - 1];
    const after = tokens[g.close + 1];
    // Preceded by a conjunction (not BETWEEN's `and`), or where a conjunct starts.
    const afterAnd = isWord(before, 'and') && conjunction(tokens, g.open - 1);
    const conjunctStart = afterAnd || before?.text === '(' || isWord(before, 'where', 'prewhere', 'having', 'or');
    let edit: { from: number; to: number; by: string };
    if (!absent.has(g.name)) edit = { from: tokens[g.open + 1]!.start, to: tokens[g.open + 5]!.end, by: '' };
    // `and (…)` with the space before it; `(…) and` with the space after it.
    else if (afterAnd && before!.start >= taken && CONJUNCT_AFTER(after)) edit = { from: Math.max(taken, tokens[g.open - 2]?.end ?? 0), to: close.end, by: '' };
    else if (conjunctStart && isWord(after, 'and')) edit = { from: open.start, to: tokens[g.close + 2]?.start ?? after!.end, by: '' };
    else edit = { from: open.start, to: close.end, by: 'true' };
    edits.push(edit);
    taken = edit.to;
  }
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += text.slice(at, e.from) + e.by;
    at = e.to;
  }
  return out + text.slice(at);
}
