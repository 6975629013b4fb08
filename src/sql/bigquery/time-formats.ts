/**
 * BigQuery's date and time text forms in PostgreSQL's terms (docs/logflare-compat.md): FORMAT_*
 * format elements as to_char patterns, the ISO 8601 shapes PARSE_* reads, EXTRACT's date parts
 * numbered as BigQuery numbers them. Anything without an exact counterpart is refused by name.
 */
import type { Json } from '../sandbox/sql-parser.ts';
import type { Rewriter } from './rewriter.ts';
import { call, cast, int, op, stringConst, text, type Node } from './nodes.ts';

/** BigQuery format elements → PostgreSQL to_char patterns; an element not here is refused by name. */
const FORMAT_ELEMENTS: Readonly<Record<string, string>> = Object.freeze({
  Y: 'YYYY', y: 'YY', C: 'CC', G: 'IYYY', g: 'IY', m: 'MM', d: 'DD', j: 'DDD', H: 'HH24', I: 'HH12', M: 'MI', S: 'SS',
  p: 'AM', F: 'YYYY-MM-DD', T: 'HH24:MI:SS', R: 'HH24:MI', D: 'MM/DD/YY', a: 'Dy', A: 'FMDay', b: 'Mon', h: 'Mon', B: 'FMMonth',
  u: 'ID', V: 'IW', Q: 'Q', z: 'TZHTZM', Ez: 'TZH:TZM', E3S: 'SS.MS', E6S: 'SS.US',
});
/** Elements written as literal text (the session works in UTC). */
const FORMAT_LITERALS: Readonly<Record<string, string>> = Object.freeze({ Z: 'UTC', '%': '%', n: '\n', t: '\t' });

/** A BigQuery format string (a literal) as a to_char format: elements mapped, other text quoted. */
export function toCharFormat(node: Node, fn: string, r: Rewriter): string {
  const format = stringConst(node);
  if (format === undefined) return r.fail(`${fn}'s format must be a string literal such as '%Y-%m-%d'`, node);
  let out = '';
  let literal = '';
  const flush = () => {
    if (literal !== '') out += `"${literal.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    literal = '';
  };
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') {
      literal += format[i];
      continue;
    }
    const element = format.startsWith('E', i + 1) ? format.slice(i + 1, i + 4).replace(/^(E[36]S|Ez).*$/, '$1') : format[i + 1] ?? '';
    const pattern = FORMAT_ELEMENTS[element];
    if (pattern !== undefined) {
      flush();
      out += pattern;
    } else if (FORMAT_LITERALS[element] !== undefined) {
      literal += FORMAT_LITERALS[element];
    } else {
      return r.fail(`${fn}'s format element %${element.startsWith('E') ? format.slice(i + 1, i + 4) : element} is not supported (no exact PostgreSQL form)`, node);
    }
    i += element.length;
  }
  flush();
  return out;
}

/** PARSE_TIMESTAMP format elements PostgreSQL's timestamptz input reads exactly → the text they match. */
const PARSE_ELEMENTS: Readonly<Record<string, string>> = Object.freeze({
  Y: '[0-9]{4}', m: '[0-9]{2}', d: '[0-9]{2}', H: '[0-9]{2}', M: '[0-9]{2}', S: '[0-9]{2}', F: '[0-9]{4}-[0-9]{2}-[0-9]{2}',
  T: '[0-9]{2}:[0-9]{2}:[0-9]{2}', 'E*S': '[0-9]{2}(\\.[0-9]{1,6})?', E6S: '[0-9]{2}\\.[0-9]{6}', E3S: '[0-9]{2}\\.[0-9]{3}',
  Ez: '(Z|[+-][0-9]{2}:[0-9]{2})', z: '[+-][0-9]{4}',
});

/** What each PARSE_ function reads: its PostgreSQL type, format elements and literal characters. */
export const PARSE_KINDS: Readonly<Record<string, { type: string; elements: readonly string[]; literals: RegExp; example: string }>> = Object.freeze({
  parse_timestamp: { type: 'timestamptz', elements: Object.keys(PARSE_ELEMENTS), literals: /^[-:. TZ]$/, example: '%Y-%m-%dT%H:%M:%E*S%Ez' },
  parse_datetime: { type: 'timestamp', elements: Object.keys(PARSE_ELEMENTS).filter((e) => e !== 'Ez' && e !== 'z'), literals: /^[-:. T]$/, example: '%Y-%m-%dT%H:%M:%E*S' },
  parse_date: { type: 'date', elements: ['Y', 'm', 'd', 'F'], literals: /^-$/, example: '%Y-%m-%d' },
});

/**
 * A PARSE_ format (a literal made of ISO 8601 elements and separators) as an anchored regular
 * expression of the text it accepts.
 */
export function parseShape(node: Node, fn: string, kind: (typeof PARSE_KINDS)[string], r: Rewriter): string {
  const format = stringConst(node);
  const only = `(only ISO 8601 shapes: ${kind.example} and their parts)`;
  if (format === undefined) return r.fail(`${fn}'s format must be a string literal such as '${kind.example}'`, node);
  let shape = '^';
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c !== '%') {
      if (!kind.literals.test(c)) return r.fail(`${fn}'s format text ${JSON.stringify(c)} is not supported ${only}`, node);
      shape += c === '.' ? '\\.' : c;
      continue;
    }
    const element = ['E*S', 'E6S', 'E3S', 'Ez'].find((e) => format.startsWith(e, i + 1)) ?? format[i + 1] ?? '';
    if (!kind.elements.includes(element)) return r.fail(`${fn}'s format element %${element} is not supported ${only}`, node);
    shape += PARSE_ELEMENTS[element]!;
    i += element.length;
  }
  return shape + '$';
}

/** BigQuery date parts of EXTRACT → an exact PostgreSQL expression of the value `v` (integers, as BigQuery's). */
export function extractPart(body: Json, node: Node, r: Rewriter): Node {
  const raw = body['args'] as Node[];
  const part = (stringConst(raw[0]) ?? '').toLowerCase();
  const value = r.arg(raw[1]!, 'text');
  const pg = (p: string, v: Node = structuredClone(value)): Node => ({ FuncCall: { funcname: [{ String: { sval: 'pg_catalog' } }, { String: { sval: 'extract' } }], args: [text(p), v], funcformat: 'COERCE_SQL_SYNTAX' } });
  const whole = (p: string): Node => cast(call('trunc', [pg(p)]), 'int8');
  switch (part) {
    case 'year': case 'quarter': case 'month': case 'day': case 'hour': case 'minute': case 'second': case 'isoyear':
      return whole(part);
    case 'isoweek':
      return whole('week');
    case 'dayofyear':
      return whole('doy');
    case 'dayofweek':
      return op('+', whole('dow'), int(1)); // BigQuery: Sunday is 1
    case 'week':
      // Weeks start on Sunday; days before the year's first Sunday are week 0.
      return op('/', op('-', op('+', whole('doy'), int(6)), whole('dow')), int(7));
    case 'millisecond':
      return op('%', cast(call('trunc', [pg('milliseconds')]), 'int8'), int(1000));
    case 'microsecond':
      return op('%', cast(pg('microseconds'), 'int8'), int(1_000_000));
    case 'date':
      return cast(value, 'date');
    default:
      return r.fail(`EXTRACT(${part.toUpperCase()} FROM …) is not supported`, node);
  }
}
