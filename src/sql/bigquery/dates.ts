/**
 * BigQuery's DATE functions and the date parts PostgreSQL counts differently (docs/logflare-compat.md,
 * "Functions"): DATE_ADD and DATE_SUB keep a DATE a DATE; DATE_TRUNC of a DATE is a DATE; DATE_DIFF
 * and DATETIME_DIFF count the part boundaries between their values (weeks from Sunday, ISO weeks
 * from Monday), as BigQuery documents; LAST_DAY, UNIX_DATE, DATE_FROM_UNIX_DATE, DATE(y, m, d) and
 * DATETIME(y, m, d, h, mi, s). All on the parse tree, through fixed templates.
 */
import { cast, names, type Node } from './nodes.ts';
import { nodeType } from '../sandbox/sql-parser.ts';
import type { Rewriter } from './rewriter.ts';

/** The names this file translates. */
export const DATE_FUNCTIONS: ReadonlySet<string> = new Set(['date_diff', 'datetime_diff', 'last_day', 'unix_date', 'date_from_unix_date']);

/** BigQuery functions whose value is a DATE, for DATE_TRUNC's result type. */
const DATE_VALUED: ReadonlySet<string> = new Set(['date', 'date_add', 'date_sub', 'date_trunc', 'last_day', 'parse_date', 'date_from_unix_date', 'make_date']);

/** Whether a (not yet translated) BigQuery expression is a DATE by its form: a DATE literal or cast, CURRENT_DATE, or a function returning one. */
export function dateValued(node: Node | undefined): boolean {
  const type = nodeType(node);
  const body = (type === undefined ? {} : (node as Node)[type]) as Node;
  if (type === 'TypeCast') return names((body['typeName'] as Node)['names']).pop()?.toLowerCase() === 'date';
  if (type === 'SQLValueFunction') return body['op'] === 'SVFOP_CURRENT_DATE';
  if (type === 'FuncCall') return DATE_VALUED.has(names(body['funcname']).join('.').toLowerCase());
  return false;
}

/** Truncation to a BigQuery date part, as SQL over `bq_v` (a date, timestamp or datetime). */
export function truncTemplate(unit: string): string {
  switch (unit) {
    case 'week':
      // Weeks begin on Sunday.
      return "(date_trunc('day', bq_v) - extract(dow from bq_v)::int4 * interval '1 day')";
    case 'isoweek':
      return "date_trunc('week', bq_v)";
    case 'isoyear':
      // The Monday of the week holding 4 January of the ISO year.
      return "date_trunc('week', make_date(extract(isoyear from bq_v)::int4, 1, 4))";
    default:
      return `date_trunc('${unit}', bq_v)`;
  }
}

/** The number of `unit` boundaries from `bq_b` to `bq_a` (BigQuery's DATE_DIFF and DATETIME_DIFF). */
function boundaries(unit: string): string {
  const ym = (v: string, per: string) => `(extract(year from ${v}) * ${per === 'month' ? 12 : 4} + extract(${per} from ${v}))`;
  switch (unit) {
    case 'day':
      return '(bq_a::date - bq_b::date)';
    case 'week':
      return "((bq_a::date - extract(dow from bq_a)::int4) - (bq_b::date - extract(dow from bq_b)::int4)) / 7";
    case 'isoweek':
      return "(date_trunc('week', bq_a)::date - date_trunc('week', bq_b)::date) / 7";
    case 'month':
    case 'quarter':
      return `(${ym('bq_a', unit)} - ${ym('bq_b', unit)})`;
    case 'year':
      return '(extract(year from bq_a) - extract(year from bq_b))';
    case 'isoyear':
      return '(extract(isoyear from bq_a) - extract(isoyear from bq_b))';
    default: {
      const seconds: Record<string, number> = { hour: 3600, minute: 60, second: 1, millisecond: 0.001, microsecond: 0.000001 };
      return `round((extract(epoch from date_trunc('${unit}', bq_a)) - extract(epoch from date_trunc('${unit}', bq_b))) / ${seconds[unit]})`;
    }
  }
}

const DIFF_UNITS: Readonly<Record<string, ReadonlySet<string>>> = {
  date_diff: new Set(['day', 'week', 'isoweek', 'month', 'quarter', 'year', 'isoyear']),
  datetime_diff: new Set(['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'isoweek', 'month', 'quarter', 'year', 'isoyear']),
};

const LAST_DAY: Readonly<Record<string, string>> = {
  month: "(date_trunc('month', bq_d) + interval '1 month' - interval '1 day')::date",
  quarter: "(date_trunc('quarter', bq_d) + interval '3 months' - interval '1 day')::date",
  year: "make_date(extract(year from bq_d)::int4, 12, 31)",
  week: '(bq_d - extract(dow from bq_d)::int4 + 6)',
  isoweek: "(date_trunc('week', bq_d)::date + 6)",
};

const LAST_DAY_UNITS: ReadonlySet<string> = new Set(Object.keys(LAST_DAY));

/**
 * One of DATE_FUNCTIONS. `unitOf` reads a date part argument (a bare word or a string), refusing
 * one not in the list.
 */
export function rewriteDate(name: string, raw: readonly Node[], node: Node, r: Rewriter, unitOf: (n: Node, allowed: ReadonlySet<string>) => string): Node {
  const shown = name.toUpperCase();
  const arg = (i: number, type: string): Node => cast(r.arg(raw[i]!, 'text'), type);
  switch (name) {
    case 'date_diff':
    case 'datetime_diff': {
      if (raw.length !== 3) r.fail(`${shown} takes two values and a date part`, node);
      const unit = unitOf(raw[2]!, DIFF_UNITS[name]!);
      const type = name === 'date_diff' ? 'date' : 'timestamp';
      return r.template(`(${boundaries(unit)})::int8`, { bq_a: arg(0, type), bq_b: arg(1, type) });
    }
    case 'last_day': {
      if (raw.length !== 1 && raw.length !== 2) r.fail('LAST_DAY takes a date and an optional date part', node);
      const unit = raw.length === 2 ? unitOf(raw[1]!, LAST_DAY_UNITS) : 'month';
      return r.template(LAST_DAY[unit]!, { bq_d: arg(0, 'date') });
    }
    case 'unix_date':
      if (raw.length !== 1) r.fail('UNIX_DATE takes a date', node);
      return r.template("(bq_d - date '1970-01-01')::int8", { bq_d: arg(0, 'date') });
    case 'date_from_unix_date':
      if (raw.length !== 1) r.fail('DATE_FROM_UNIX_DATE takes a number of days', node);
      return r.template("date '1970-01-01' + bq_n", { bq_n: cast(r.arg(raw[0]!, 'numeric'), 'int4') });
    default:
      return r.fail(`function ${shown} is not supported`, node);
  }
}
