/**
 * BigQuery's string, byte and hash functions whose PostgreSQL namesakes answer differently
 * (docs/logflare-compat.md, "Functions"): each rewritten to what BigQuery documents, on the parse
 * tree. Where BigQuery raises an error (a negative length, an empty pad pattern) the rewrite does too,
 * with a message naming the function, through a cast of that message to a number that can never
 * succeed; it depends on the arguments, so PostgreSQL folds it only when they are constants and the
 * error is certain.
 */
import { call, cast, coalesce, constKind, op, stringConst, text, type Node } from './nodes.ts';
import type { Rewriter } from './rewriter.ts';
import { re2Arg } from './re2.ts';

/** The names this file translates. */
export const STRING_FUNCTIONS: ReadonlySet<string> = new Set([
  'concat', 'substr', 'substring', 'lpad', 'rpad', 'repeat', 'left', 'right', 'split', 'format', 'md5', 'sha256', 'to_hex', 'to_base64',
  'from_base64', 'regexp_extract_all',
]);

/** An error BigQuery raises: `fn: what` as a failing cast, typed as text for the CASE it sits in. */
const raise = (fn: string, what: string, culprit: string): string => `(('${fn}: ${what} ' || ${culprit})::int8)::text`;

export function rewriteString(name: string, raw: readonly Node[], node: Node, r: Rewriter): Node {
  const shown = name.toUpperCase();
  const str = (i: number): Node => cast(r.arg(raw[i]!, 'text'), 'text');
  const int = (i: number): Node => cast(r.arg(raw[i]!, 'numeric'), 'int8');
  const arity = (...counts: number[]): void => {
    if (!counts.includes(raw.length)) r.fail(`${shown} takes ${counts.join(' or ')} arguments`, node);
  };
  switch (name) {
    case 'concat':
      // NULL when any argument is NULL (PostgreSQL's concat skips NULLs): `||` of the texts.
      if (raw.length === 0) r.fail('CONCAT takes at least one value', node);
      return raw.map((_, i) => str(i)).reduce((a, b) => op('||', a, b));
    case 'substr':
    case 'substring': {
      // A negative position counts from the end; 0, or one before the start, is the first character.
      arity(2, 3);
      // A negative length is PostgreSQL's error too.
      const length = raw.length === 3 ? ', bq_n::int4' : '';
      return r.template(
        `substr(bq_s, (case when bq_p > 0 then bq_p when bq_p = 0 or -bq_p > length(bq_s) then 1 else length(bq_s) + bq_p + 1 end)::int4${length})`,
        { bq_s: str(0), bq_p: int(1), ...(raw.length === 3 ? { bq_n: int(2) } : {}) },
      );
    }
    case 'lpad':
    case 'rpad':
      arity(2, 3);
      return r.template(
        `case when bq_n < 0 then ${raise(shown, 'negative length', 'bq_n')} when bq_pat = '' then ${raise(shown, 'empty pattern for', 'bq_s')} else ${name}(bq_s, bq_n::int4, bq_pat) end`,
        { bq_s: str(0), bq_n: int(1), bq_pat: raw.length === 3 ? str(2) : cast(text(' '), 'text') },
      );
    case 'repeat':
    case 'left':
    case 'right':
      arity(2);
      return r.template(`case when bq_n < 0 then ${raise(shown, 'negative count', 'bq_n')} else ${name}(bq_s, bq_n::int4) end`, { bq_s: str(0), bq_n: int(1) });
    case 'split':
      // The delimiter defaults to a comma; '' splits into characters; splitting '' gives ['']. The
      // cast lets a subscript follow (PostgreSQL's grammar cannot subscript a bare CASE).
      arity(1, 2);
      return r.template(
        "(case when bq_d is null then null when bq_s = '' then array[''] when bq_d = '' then regexp_split_to_array(bq_s, '') else string_to_array(bq_s, bq_d) end)::text[]",
        { bq_s: str(0), bq_d: raw.length === 2 ? str(1) : cast(text(','), 'text') },
      );
    case 'format':
      return format(raw, node, r);
    case 'md5':
      // BYTES, as BigQuery's (TO_HEX shows them as hex).
      arity(1);
      return call('decode', [call('md5', [str(0)]), text('hex')]);
    case 'sha256':
      arity(1);
      return call('sha256', [call('convert_to', [str(0), text('UTF8')])]);
    case 'to_hex':
      arity(1);
      return call('encode', [cast(r.arg(raw[0]!, 'text'), 'bytea'), text('hex')]);
    case 'to_base64':
      // PostgreSQL breaks base64 lines at 76 characters; BigQuery does not.
      arity(1);
      return call('replace', [call('encode', [cast(r.arg(raw[0]!, 'text'), 'bytea'), text('base64')]), text('\n'), text('')]);
    case 'from_base64':
      arity(1);
      return call('decode', [str(0), text('base64')]);
    case 'regexp_extract_all':
      // Every match (its first group, when the expression has one), in order.
      arity(2);
      const re = re2Arg(str(1), raw[1], shown);
      return r.template("(case when bq_s is null or bq_re is null then null else array(select (regexp_matches(bq_s, bq_re, 'g'))[1]) end)::text[]", { bq_s: str(0), bq_re: re });
    default:
      return r.fail(`function ${shown} is not supported`, node);
  }
}


/**
 * FORMAT with a literal format string: %d %i (integers), %s %t (as text), %f %F (fixed, 6 places
 * unless given), %x %X (hexadecimal), %% ; a width pads with spaces (left, or right with `-`) or with
 * zeros (`0`). NULL arguments print as NULL, as BigQuery's do. Other specifiers are refused by name.
 */
function format(raw: readonly Node[], node: Node, r: Rewriter): Node {
  const spec = stringConst(raw[0]);
  if (spec === undefined) return r.fail('FORMAT needs its format as a string literal', raw[0] ?? node);
  const pieces: Node[] = [];
  let argument = 1;
  const SPEC = /%([-0]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])/y;
  let literal = '';
  for (let i = 0; i < spec.length; ) {
    if (spec[i] !== '%') {
      literal += spec[i++];
      continue;
    }
    SPEC.lastIndex = i;
    const m = SPEC.exec(spec);
    if (m === null) return r.fail(`FORMAT: an incomplete specifier at "${spec.slice(i, i + 5)}"`, raw[0]);
    i = SPEC.lastIndex;
    const [whole, flags = '', width, precision, kind = ''] = m;
    if (kind === '%') {
      literal += '%';
      continue;
    }
    if (literal !== '') pieces.push(text(literal));
    literal = '';
    const arg = raw[argument++];
    if (arg === undefined) return r.fail(`FORMAT: ${whole} has no argument`, raw[0]);
    let shown: Node;
    const nullArg = constKind(arg) === 'null';
    switch (kind) {
      case 'd':
      case 'i':
        shown = cast(cast(r.arg(arg, 'numeric'), 'int8'), 'text');
        break;
      case 's':
      case 't':
        shown = cast(r.arg(arg, 'text'), 'text');
        break;
      case 'f':
      case 'F':
        shown = cast(call('round', [cast(r.arg(arg, 'numeric'), 'numeric'), { A_Const: { ival: { ival: Number(precision ?? 6) } } }]), 'text');
        break;
      case 'x':
      case 'X': {
        const hex = call('to_hex', [cast(r.arg(arg, 'numeric'), 'int8')]);
        shown = kind === 'X' ? call('upper', [hex]) : hex;
        break;
      }
      default:
        return r.fail(`FORMAT specifier %${kind} is not supported (%d, %i, %s, %t, %f, %F, %x, %X are)`, raw[0]);
    }
    if (nullArg) shown = text('NULL');
    else if (width !== undefined) shown = pad(shown, Number(width), flags, r);
    pieces.push(coalesce([shown, text('NULL')]));
  }
  if (literal !== '' || pieces.length === 0) pieces.push(text(literal));
  if (argument !== raw.length) r.fail(`FORMAT: ${raw.length - 1} values for ${argument - 1} specifiers`, node);
  return pieces.reduce((a, b) => op('||', a, b));
}

/** A value padded to `width` characters, never cut: spaces on the left, on the right with `-`, zeros after any sign with `0`. */
function pad(value: Node, width: number, flags: string, r: Rewriter): Node {
  const padded = flags.includes('-')
    ? `rpad(bq_v, ${width})`
    : flags.includes('0')
      ? `case when left(bq_v, 1) = '-' then '-' || lpad(substr(bq_v, 2), ${width - 1}, '0') else lpad(bq_v, ${width}, '0') end`
      : `lpad(bq_v, ${width})`;
  return r.template(`case when length(bq_v) >= ${width} then bq_v else ${padded} end`, { bq_v: value });
}
