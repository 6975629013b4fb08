/**
 * BigQuery's regular expressions are RE2; PostgreSQL's are its own (ARE). A pattern written as a
 * literal is read here and written as PostgreSQL reads it the same way, or refused by name where the
 * two would match differently (docs/logflare-compat.md): a `-` after a range inside `[…]` is a
 * literal hyphen to RE2 and a bad range to ARE, so it is escaped (`\-`, which RE2 also reads as a
 * hyphen); `\b`, `\B` and `\z` are word boundaries and the end of text to RE2 but a backspace, an
 * unknown escape and an error to ARE, so they are refused. A pattern that is not a literal is passed
 * as it is.
 */
import { reject } from '../sandbox/sql-parser.ts';
import { stringConst, text, type Node } from './nodes.ts';

/** A regular expression argument: a literal pattern written for PostgreSQL (re2Pattern), anything else as translated. */
export function re2Arg(translated: Node, original: Node | undefined, fn: string): Node {
  const pattern = stringConst(original);
  return pattern === undefined ? translated : text(re2Pattern(pattern, fn.toUpperCase()));
}

/** The pattern for PostgreSQL, or a refusal naming the construct. */
export function re2Pattern(pattern: string, fn: string): string {
  let out = '';
  let inBracket = false;
  // Inside a bracket expression: whether the last element was a range (`a-z`), and how many
  // characters of the expression have been read (a `]` first is a literal).
  let afterRange = false;
  let read = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inBracket && (next === 'b' || next === 'B' || next === 'z')) {
        reject(`${fn}: \\${next} in a regular expression is not supported (PostgreSQL reads it otherwise); use \\m, \\M or (^|[^a-zA-Z0-9_]) for a word boundary`);
      }
      out += c + next;
      i++;
      if (inBracket) {
        afterRange = false;
        read++;
      }
      continue;
    }
    if (!inBracket) {
      if (c === '[') {
        inBracket = true;
        read = 0;
        afterRange = false;
        if (pattern[i + 1] === '^') {
          out += '[^';
          i++;
          continue;
        }
      }
      out += c;
      continue;
    }
    if (c === ']' && read > 0) {
      inBracket = false;
      out += c;
      continue;
    }
    if (c === '-' && afterRange && pattern[i + 1] !== ']') {
      out += '\\-';
      afterRange = false;
      read++;
      continue;
    }
    // `x-y`: a range, whose end is the character after the hyphen.
    if (pattern[i + 1] === '-' && pattern[i + 2] !== undefined && pattern[i + 2] !== ']') {
      out += c + '-' + pattern[i + 2];
      i += 2;
      afterRange = true;
      read += 3;
      continue;
    }
    out += c;
    afterRange = false;
    read++;
  }
  return out;
}
