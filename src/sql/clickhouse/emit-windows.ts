/**
 * OVER clauses and sort keys printed for ClickHouse: named windows inlined, frames as written,
 * `NULLS FIRST/LAST` always explicit, jsonb's order for JSON values.
 */
import { stringList, wrapped, type Json } from '../sandbox/sql-parser.ts';
import { unsupported, type Expr, type Emitter } from './emit-types.ts';

/** An OVER clause; a named window is inlined. lag/lead see the whole partition, as PostgreSQL's do. */
export function windowSpec(e: Emitter, over: Json, wholePartition: boolean, at: string): string {
  let def = over;
  if (typeof over['name'] === 'string') def = e.scope.window(over['name'], at);
  if (typeof def['refname'] === 'string') {
    if ((def['partitionClause'] as unknown[] | undefined)?.length || !(def['orderClause'] as unknown[] | undefined)?.length) {
      return unsupported('a window that refines another', at);
    }
    def = { ...e.scope.window(def['refname'], at), orderClause: def['orderClause'] };
  }
  const parts: string[] = [];
  const partition = (def['partitionClause'] as unknown[] | undefined) ?? [];
  if (partition.length > 0) parts.push(`PARTITION BY ${partition.map((p) => e.value(p).sql).join(', ')}`);
  const order = (def['orderClause'] as unknown[] | undefined) ?? [];
  if (order.length > 0) parts.push(`ORDER BY ${order.map((s) => sortKey(wrapped(s, 'SortBy')!, e.value(wrapped(s, 'SortBy')!['node']), at)).join(', ')}`);
  if (wholePartition) parts.push('ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING');
  else {
    const frame = frameClause(def, at);
    if (frame !== '') parts.push(frame);
  }
  return `(${parts.join(' ')})`;
}

/** PostgreSQL's frame options (nodes/parsenodes.h, FRAMEOPTION_*). */
const F = Object.freeze({
  NONDEFAULT: 0x1, RANGE: 0x2, ROWS: 0x4, GROUPS: 0x8, BETWEEN: 0x10,
  START_UNBOUNDED_PRECEDING: 0x20, END_UNBOUNDED_PRECEDING: 0x40, START_UNBOUNDED_FOLLOWING: 0x80, END_UNBOUNDED_FOLLOWING: 0x100,
  START_CURRENT_ROW: 0x200, END_CURRENT_ROW: 0x400, START_OFFSET_PRECEDING: 0x800, END_OFFSET_PRECEDING: 0x1000,
  START_OFFSET_FOLLOWING: 0x2000, END_OFFSET_FOLLOWING: 0x4000, EXCLUDE: 0x8000 | 0x10000 | 0x20000,
});

/** `ROWS|RANGE BETWEEN … AND …` as written; the default frame (RANGE … CURRENT ROW) is ClickHouse's too. */
function frameClause(def: Json, at: string): string {
  const o = Number(def['frameOptions'] ?? 0);
  if (!(o & F.NONDEFAULT)) return '';
  if (o & (F.GROUPS | F.EXCLUDE)) return unsupported('GROUPS frames and EXCLUDE', at);
  const offset = (node: unknown): string => {
    const n = wrapped(node, 'A_Const');
    if (n === undefined || !('ival' in n)) return unsupported('a frame offset that is not an integer constant', at);
    return String(Number((n['ival'] as Json)['ival'] ?? 0));
  };
  const bound = (unboundedPreceding: number, unboundedFollowing: number, current: number, preceding: number, following: number, node: unknown): string => {
    if (o & unboundedPreceding) return 'UNBOUNDED PRECEDING';
    if (o & unboundedFollowing) return 'UNBOUNDED FOLLOWING';
    if (o & current) return 'CURRENT ROW';
    if (o & preceding) return `${offset(node)} PRECEDING`;
    if (o & following) return `${offset(node)} FOLLOWING`;
    return 'CURRENT ROW';
  };
  const start = bound(F.START_UNBOUNDED_PRECEDING, F.START_UNBOUNDED_FOLLOWING, F.START_CURRENT_ROW, F.START_OFFSET_PRECEDING, F.START_OFFSET_FOLLOWING, def['startOffset']);
  const end = o & F.BETWEEN ? bound(F.END_UNBOUNDED_PRECEDING, F.END_UNBOUNDED_FOLLOWING, F.END_CURRENT_ROW, F.END_OFFSET_PRECEDING, F.END_OFFSET_FOLLOWING, def['endOffset']) : 'CURRENT ROW';
  if ((o & F.RANGE) && /\d/.test(start + end)) return unsupported('a RANGE frame with an offset', at);
  return `${o & F.ROWS ? 'ROWS' : 'RANGE'} BETWEEN ${start} AND ${end}`;
}

/** `x ASC|DESC NULLS FIRST|LAST`, always explicit: PostgreSQL puts NULLs first in DESC, ClickHouse last. */
export function sortKey(sort: Json, value: Expr, at: string): string {
  let desc: boolean;
  switch (sort['sortby_dir']) {
    case 'SORTBY_DESC': desc = true; break;
    case 'SORTBY_USING': {
      const op = stringList(sort['useOp']).at(-1);
      if (op !== '<' && op !== '>') return unsupported(`ORDER BY … USING ${op}`, at);
      desc = op === '>';
      break;
    }
    default: desc = false;
  }
  const nulls = sort['sortby_nulls'] === 'SORTBY_NULLS_FIRST' ? 'FIRST' : sort['sortby_nulls'] === 'SORTBY_NULLS_LAST' ? 'LAST' : desc ? 'FIRST' : 'LAST';
  const direction = `${desc ? 'DESC' : 'ASC'} NULLS ${nulls}`;
  return (value.type === 'jsonb' ? jsonbSortKeys(value.sql) : [value.sql]).map((k) => `${k} ${direction}`).join(', ');
}

/**
 * jsonb's order (PostgreSQL: null < string < number < boolean < array < object; numbers by value)
 * as sort keys over JSON text: its kind, then the number, string or boolean, then the text.
 */
function jsonbSortKeys(v: string): string[] {
  const type = `toString(JSONType(${v}))`;
  return [
    `multiIf(${v} IS NULL, NULL, ${type} = 'Null', 1, ${type} = 'String', 2, ${type} IN ('Int64', 'UInt64', 'Double'), 3, ${type} = 'Bool', 4, ${type} = 'Array', 5, 6)`,
    `if(${type} IN ('Int64', 'UInt64', 'Double'), JSONExtractFloat(${v}), NULL)`,
    `if(${type} = 'String', JSONExtractString(${v}), NULL)`,
    `if(${type} = 'Bool', JSONExtractBool(${v}), NULL)`,
    v,
  ];
}
