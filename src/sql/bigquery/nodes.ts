/**
 * Constructors for the PostgreSQL parse-tree nodes the BigQuery translation writes, in libpg-query's
 * JSON form (`{Type: {…}}`), and the few readers it needs. The deparser turns them back into text.
 */
import { nodeType, wrapped, type Json } from '../sandbox/sql-parser.ts';

export type Node = Json;

const str = (sval: string): Node => ({ String: { sval } });

export const column = (...fields: string[]): Node => ({ ColumnRef: { fields: fields.map(str) } });
export const text = (value: string): Node => ({ A_Const: { sval: { sval: value } } });
export const int = (value: number): Node => ({ A_Const: { ival: value === 0 ? {} : { ival: value } } });
export const nullConst = (): Node => ({ A_Const: { isnull: true } });
export const boolConst = (value: boolean): Node => ({ A_Const: { boolval: value ? { boolval: true } : {} } });

export const op = (name: string, lexpr: Node | undefined, rexpr: Node): Node => ({
  A_Expr: { kind: 'AEXPR_OP', name: [str(name)], ...(lexpr ? { lexpr } : {}), rexpr },
});
export const nullIf = (lexpr: Node, rexpr: Node): Node => ({ A_Expr: { kind: 'AEXPR_NULLIF', name: [str('=')], lexpr, rexpr } });
export const and = (...args: Node[]): Node => (args.length === 1 ? args[0]! : { BoolExpr: { boolop: 'AND_EXPR', args } });
export const call = (name: string, args: Node[], extra: Json = {}): Node => ({
  FuncCall: { funcname: [str(name)], args, funcformat: 'COERCE_EXPLICIT_CALL', ...extra },
});
export const cast = (arg: Node, type: string): Node => ({ TypeCast: { arg, typeName: { names: [str(type)], typemod: -1 } } });
export const coalesce = (args: Node[]): Node => ({ CoalesceExpr: { args } });
export const caseWhen = (whens: [Node, Node][], otherwise?: Node): Node => ({
  CaseExpr: { args: whens.map(([expr, result]) => ({ CaseWhen: { expr, result } })), ...(otherwise ? { defresult: otherwise } : {}) },
});
export const interval = (span: string): Node => ({ TypeCast: { arg: text(span), typeName: { names: [str('interval')], typemod: -1 } } });

/** The strings of a name list, lower-cased as PostgreSQL folded them. */
export function names(list: unknown): string[] {
  return Array.isArray(list) ? list.map((item) => String(wrapped(item, 'String')?.['sval'] ?? '')) : [];
}

/** A ColumnRef's field names, or undefined when it has a `*` or is not a ColumnRef. */
export function columnFields(node: unknown): string[] | undefined {
  const ref = wrapped(node, 'ColumnRef');
  if (!ref) return undefined;
  const fields = ref['fields'] as unknown[];
  if (fields.some((f) => nodeType(f) !== 'String')) return undefined;
  return names(fields);
}

/** A string constant's value; undefined for anything else. */
export function stringConst(node: unknown): string | undefined {
  const value = (wrapped(node, 'A_Const')?.['sval'] as Json | undefined)?.['sval'];
  return typeof value === 'string' ? value : undefined;
}

/** An integer constant's value (libpg-query writes 0 as an empty `ival`); undefined for anything else. */
export function intConst(node: unknown): number | undefined {
  const c = wrapped(node, 'A_Const');
  if (c === undefined || !('ival' in c)) return undefined;
  return Number((c['ival'] as Json)['ival'] ?? 0);
}

/** A constant's kind: what the other side of a comparison with it should be read as. */
export function constKind(node: unknown): 'number' | 'string' | 'bool' | 'null' | undefined {
  const c = wrapped(node, 'A_Const');
  if (c) {
    if ('ival' in c || 'fval' in c) return 'number';
    if ('sval' in c) return 'string';
    if ('boolval' in c) return 'bool';
    if (c['isnull']) return 'null';
    return undefined;
  }
  // -5 is `- 5`: a unary minus over a number.
  const e = wrapped(node, 'A_Expr');
  if (e && e['lexpr'] === undefined && names(e['name'])[0] === '-') return constKind(e['rexpr']) === 'number' ? 'number' : undefined;
  return undefined;
}

/** The location a node carries, if any. */
export function locationOf(node: unknown): number | undefined {
  const type = nodeType(node);
  const body = type ? ((node as Json)[type] as Json) : undefined;
  const loc = body?.['location'];
  return typeof loc === 'number' && loc >= 0 ? loc : undefined;
}

/**
 * The tree with each node `pick` answers for replaced by a copy of that answer (nodes it leaves,
 * undefined, are descended into). Mutates in place where nothing is replaced.
 */
export function replaceNodes(node: Node, pick: (n: Node) => Node | undefined): Node {
  if (Array.isArray(node)) return (node as unknown as Node[]).map((n) => replaceNodes(n, pick)) as unknown as Node;
  if (node === null || typeof node !== 'object') return node;
  const replacement = pick(node);
  if (replacement !== undefined) return structuredClone(replacement);
  for (const [key, value] of Object.entries(node)) node[key] = replaceNodes(value as Node, pick);
  return node;
}
