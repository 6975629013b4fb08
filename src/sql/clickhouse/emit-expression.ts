/**
 * Expressions of a validated PostgreSQL parse tree printed as ClickHouse SQL with PostgreSQL's
 * meaning (docs/clickhouse.md has the table): operators by operand type, JSON paths on `metadata`
 * as JSONExtract calls with `->>`'s scalar rules, literals read as the type beside them, casts
 * with PostgreSQL's errors. What it cannot print that way is refused by name and position.
 */
import { HttpError } from '../../shared/errors.ts';
import { nodeType, stringList, wrapped, type Json } from '../sandbox/sql-parser.ts';
import { elementOf, expr, isNumber, nonZero, power, unsupported, type Column, type Emitter, type Expr, type ExprScope, type PgType, type ScalarType } from './emit-types.ts';
import { asTimestamp, castTarget, checkedParse, constant, INT_BITS, literalAs, sqlValueFunction, textToBool } from './emit-constants.ts';
import { contains, jsonAsText, jsonKey, pathKeys, scalarText, typeTest } from './emit-json.ts';
import { callFunction } from './emit-functions.ts';

export class ExprEmitter implements Emitter {
  constructor(readonly scope: ExprScope) {}

  /** An expression; JSON and interval values stay unread until something reads them. */
  emit(node: unknown): Expr {
    const type = nodeType(node);
    const body = type ? ((node as Json)[type] as Json) : {};
    const at = this.scope.at(body['location']);
    switch (type) {
      case 'ColumnRef': return this.columnRef(body, at);
      case 'A_Const': return constant(body, at);
      case 'A_Expr': return this.operator(body, at);
      case 'BoolExpr': return this.boolExpr(body);
      case 'TypeCast': {
        const typeName = body['typeName'] as Json;
        if (Array.isArray(typeName['arrayBounds'])) return this.arrayCast(body['arg'], typeName, at);
        return this.cast(this.emit(body['arg']), typeName, at);
      }
      case 'A_ArrayExpr': {
        // ARRAY[…] (BigQuery's [ … ]): ClickHouse's array of the elements' common type.
        const elements = (body['elements'] as unknown[] | undefined) ?? [];
        if (elements.length === 0) return unsupported('an empty array without a type (cast it: ARRAY[]::text[])', at);
        const [typed, type] = this.unify(elements, at);
        const element = type === 'unknown' ? 'text' : type;
        if (!(element in CH_ELEMENTS)) return unsupported(`an array of ${element}`, at);
        return expr(`[${typed.map((t) => t.sql).join(', ')}]`, `${element as ScalarType}[]`);
      }
      case 'FuncCall': return callFunction(this, body, at);
      case 'CaseExpr': return this.caseExpr(body, at);
      case 'CoalesceExpr': return this.common('coalesce', body['args'] as unknown[], at);
      case 'MinMaxExpr': {
        // GREATEST/LEAST leave NULLs out (NULL only when every argument is), as PostgreSQL's do.
        const [typed, type] = this.unify(body['args'] as unknown[], at);
        if (type === 'jsonb' || type === 'bool' || type === 'other') return unsupported(`${body['op'] === 'IS_GREATEST' ? 'GREATEST' : 'LEAST'} of ${type}`, at);
        const values = `arrayFilter(x -> x IS NOT NULL, [${typed.map((t) => t.sql).join(', ')}])`;
        return expr(`if(length(${values}) = 0, NULL, ${body['op'] === 'IS_GREATEST' ? 'arrayMax' : 'arrayMin'}(${values}))`, type);
      }
      case 'CollateClause': {
        // "C" (and POSIX) order text by its bytes: ClickHouse's own order; other collations are not printed.
        const name = stringList(body['collname']).at(-1);
        if (name !== 'C' && name !== 'POSIX') return unsupported(`COLLATE "${name}"`, at);
        return this.emit(body['arg']);
      }
      case 'NullTest': {
        const arg = this.value(body['arg']);
        return expr(`(${arg.sql} ${body['nulltesttype'] === 'IS_NOT_NULL' ? 'IS NOT NULL' : 'IS NULL'})`, 'bool');
      }
      case 'BooleanTest': return this.booleanTest(body);
      case 'SubLink': return this.subLink(body, at);
      case 'SQLValueFunction': return sqlValueFunction(String(body['op']), at);
      case 'A_Indirection': return this.subscript(body, at);
      default: return unsupported(type ?? 'this expression', at);
    }
  }

  /** An expression as a value: JSON paths read as JSON text, intervals refused. */
  value(node: unknown): Expr {
    return this.read(this.emit(node), this.scope.at(locationOf(node)));
  }

  read(e: Expr, at: string): Expr {
    if (e.interval !== undefined) return unsupported('an interval as a value (add it to or subtract it from a timestamp)', at);
    if (e.json === undefined) return e;
    if (e.json.path.length === 0) return expr(e.json.root, 'jsonb');
    const args = [e.json.root, ...e.json.path].join(', ');
    return expr(`if(JSONHas(${args}), JSONExtractRaw(${args}), NULL)`, 'jsonb');
  }

  /** A function argument read as `type` (an integer where a number is wanted stays an integer). */
  argAs(node: unknown, type: PgType, at: string): string {
    const v = this.emit(node);
    return type === 'numeric' && v.type === 'int' ? this.read(v, at).sql : this.as(v, type, at).sql;
  }

  /** `e` read as `type`: literals converted here (never at run time), other values cast. */
  as(e: Expr, type: PgType, at: string): Expr {
    if (e.type === type || e.type === 'null') return this.read(e, at);
    if (e.type === 'unknown') return literalAs(e.literal ?? '', type, at);
    if (type === 'numeric' && e.type === 'int') return expr(`toFloat64(${e.sql})`, 'numeric');
    // PostgreSQL's implicit casts between timestamps (a UTC session: the same instant) and from date.
    if ((type === 'timestamptz' || type === 'timestamp') && (e.type === 'timestamptz' || e.type === 'timestamp' || e.type === 'date')) return expr(asTimestamp(e), type);
    return unsupported(`comparing ${e.type} with ${type}`, at);
  }

  /** Two operands brought to one type, PostgreSQL's way: an untyped literal takes the other's type. */
  pair(l: Expr, r: Expr, at: string): [Expr, Expr, PgType] {
    let type: PgType;
    if (l.type === 'unknown' && r.type === 'unknown') type = 'text';
    else if (l.type === 'unknown' || l.type === 'null') type = r.type === 'null' ? 'text' : r.type;
    else if (r.type === 'unknown' || r.type === 'null') type = l.type;
    else if (isNumber(l.type) && isNumber(r.type)) type = l.type === 'int' && r.type === 'int' ? 'int' : 'numeric';
    else type = l.type;
    return [this.as(l, type, at), this.as(r, type, at), type];
  }

  private columnRef(body: Json, at: string): Expr {
    const fields = body['fields'] as unknown[];
    if (fields.some((f) => nodeType(f) !== 'String')) return unsupported('* in an expression', at);
    return this.scope.column(stringList(fields), at);
  }

  private operator(body: Json, at: string): Expr {
    const kind = String(body['kind']);
    const name = stringList(body['name']).at(-1) ?? '';
    switch (kind) {
      case 'AEXPR_OP': return this.binary(name, body['lexpr'], body['rexpr'], at);
      case 'AEXPR_LIKE':
      case 'AEXPR_ILIKE': {
        const [l, r] = this.pair(this.emit(body['lexpr']), this.emit(body['rexpr']), at);
        if (l.type === 'null' || r.type === 'null') return expr('NULL', 'bool');
        if (l.type !== 'text') return unsupported(`LIKE on ${l.type}`, at);
        const word = kind === 'AEXPR_LIKE' ? 'LIKE' : 'ILIKE';
        return expr(`(${l.sql} ${name.startsWith('!') ? 'NOT ' : ''}${word} ${r.sql})`, 'bool');
      }
      case 'AEXPR_IN': {
        const left = this.emit(body['lexpr']);
        const items = listItems(body['rexpr']).map((n) => this.emit(n));
        // A NULL in the list: a match decides, else the answer is NULL (PostgreSQL's three values).
        const values = items.filter((i) => i.type !== 'null');
        if (values.length === 0) return expr('NULL', 'bool');
        const typed = values.map((i) => this.pair(left, i, at));
        const l = typed[0]![0];
        const test = `(${l.sql} ${name === '<>' ? 'NOT IN' : 'IN'} (${typed.map(([, r]) => r.sql).join(', ')}))`;
        if (values.length === items.length) return expr(test, 'bool');
        return expr(`if(${l.sql} IS NULL, NULL, if(${test}, ${name === '<>' ? 'NULL' : 'true'}, ${name === '<>' ? 'false' : 'NULL'}))`, 'bool');
      }
      case 'AEXPR_BETWEEN':
      case 'AEXPR_NOT_BETWEEN': {
        const [lo, hi] = listItems(body['rexpr']);
        const x = this.emit(body['lexpr']);
        const [a, l] = this.pair(x, this.emit(lo), at);
        const [b, h] = this.pair(x, this.emit(hi), at);
        const test = `(${a.sql} >= ${l.sql} AND ${b.sql} <= ${h.sql})`;
        return expr(kind === 'AEXPR_BETWEEN' ? test : `(NOT ${test})`, 'bool');
      }
      case 'AEXPR_NULLIF': {
        const [l, r] = this.pair(this.emit(body['lexpr']), this.emit(body['rexpr']), at);
        return expr(`nullIf(${l.sql}, ${r.sql})`, l.type);
      }
      case 'AEXPR_DISTINCT':
      case 'AEXPR_NOT_DISTINCT': {
        const [l, r] = this.pair(this.emit(body['lexpr']), this.emit(body['rexpr']), at);
        const distinct = `if(${l.sql} IS NULL OR ${r.sql} IS NULL, (${l.sql} IS NULL) != (${r.sql} IS NULL), ${l.sql} != ${r.sql})`;
        return expr(kind === 'AEXPR_DISTINCT' ? distinct : `(NOT ${distinct})`, 'bool');
      }
      case 'AEXPR_OP_ANY':
      case 'AEXPR_OP_ALL': return unsupported(`${name} ${kind === 'AEXPR_OP_ANY' ? 'ANY' : 'ALL'} (array)`, at);
      default: return unsupported(kind.replace('AEXPR_', '').toLowerCase().replaceAll('_', ' '), at);
    }
  }

  private binary(op: string, lnode: unknown, rnode: unknown, at: string): Expr {
    if (lnode === undefined) return this.unary(op, this.emit(rnode), at);
    const kindTest = op === '=' || op === '<>' || op === '!=' ? typeTest(this, lnode, rnode) ?? typeTest(this, rnode, lnode) : undefined;
    if (kindTest !== undefined) return op === '=' ? kindTest : expr(`(NOT ${kindTest.sql})`, 'bool');
    const left = this.emit(lnode);
    if (op === '->' || op === '->>' || op === '#>' || op === '#>>') return this.jsonPath(left, op, rnode, at);
    const right = this.emit(rnode);
    switch (op) {
      case '=': case '<>': case '!=': case '<': case '>': case '<=': case '>=': {
        const [l, r, type] = this.pair(left, right, at);
        if (type === 'interval' || type === 'other') return unsupported(`comparing ${type} values`, at);
        // jsonb's order is not its text's (ORDER BY has it, emit-functions.ts): equality only.
        if (type === 'jsonb' && op !== '=' && op !== '<>' && op !== '!=') return unsupported(`${op} on JSON values`, at);
        return expr(`(${l.sql} ${op === '<>' ? '!=' : op} ${r.sql})`, 'bool');
      }
      case '+': case '-': return this.additive(op, left, right, at);
      case '*': {
        const scaled = this.scaledInterval(left, right, at);
        if (scaled !== undefined) return scaled;
        const [l, r, type] = this.pair(left, right, at);
        if (!isNumber(type)) return unsupported(`${op} on ${type}`, at);
        return expr(`(${l.sql} * ${r.sql})`, type);
      }
      case '/': case '%': return this.quotient(op, left, right, at);
      case '^': {
        const [l, r] = this.pair(left, right, at);
        return power('^', l, r, at);
      }
      case '#': case '&': case '|': case '<<': case '>>': {
        // Integers' bitwise operators (PostgreSQL's on bit strings and geometry have no values here).
        const [l, r, type] = this.pair(left, right, at);
        const fn = { '#': 'bitXor', '&': 'bitAnd', '|': 'bitOr', '<<': 'bitShiftLeft', '>>': 'bitShiftRight' }[op];
        return type === 'int' ? expr(`${fn}(${l.sql}, ${r.sql})`, 'int') : unsupported(`${op} on ${type}`, at);
      }
      case '||': {
        if (elementOf(left.type) !== undefined && left.type === right.type) return expr(`arrayConcat(${left.sql}, ${right.sql})`, left.type);
        const [l, r] = [this.textOperand(left, at), this.textOperand(right, at)];
        return expr(`concat(${l}, ${r})`, 'text');
      }
      case '@>': return contains(left, right, at);
      case '~': case '~*': case '!~': case '!~*': {
        const [l, r] = this.pair(left, right, at);
        if (l.type === 'null' || r.type === 'null') return expr('NULL', 'bool');
        if (l.type !== 'text') return unsupported(`${op} on ${l.type}`, at);
        // RE2, not PostgreSQL's ARE: a pattern RE2 cannot compile is refused with a 400.
        const pattern = op.endsWith('*') ? `concat('(?i)', ${r.sql})` : r.sql;
        return expr(`(${op.startsWith('!') ? 'NOT ' : ''}match(${l.sql}, ${pattern}))`, 'bool');
      }
      default: return unsupported(`operator ${op}`, at);
    }
  }

  private unary(op: string, arg: Expr, at: string): Expr {
    const v = arg.type === 'unknown' ? literalAs(arg.literal ?? '', 'numeric', at) : this.read(arg, at);
    if (op === '~' && v.type === 'int') return expr(`bitNot(toInt64(${v.sql}))`, 'int');
    if (!isNumber(v.type)) return unsupported(`unary ${op} on ${v.type}`, at);
    // Parenthesised: `-` before a negative number would be `--`, a comment to ClickHouse.
    if (op === '-') return expr(`(-(${v.sql}))`, v.type);
    if (op === '+') return v;
    if (op === '@') return expr(`abs(${v.sql})`, v.type);
    return unsupported(`operator ${op}`, at);
  }

  /** `a / b`, `a % b` of the operand nodes (division and mod() print alike). */
  divide(op: '/' | '%', lnode: unknown, rnode: unknown, at: string): Expr {
    return this.quotient(op, this.emit(lnode), this.emit(rnode), at);
  }

  /**
   * PostgreSQL divides integers exactly and refuses zero with "division by zero"; ClickHouse's `/`
   * is floating point and gives inf: intDiv, and a divisor that raises PostgreSQL's error.
   */
  private quotient(op: '/' | '%', left: Expr, right: Expr, at: string): Expr {
    const [l, r, type] = this.pair(left, right, at);
    if (!isNumber(type)) return unsupported(`${op} on ${type}`, at);
    const divisor = nonZero(r.sql);
    if (type === 'int') return expr(op === '/' ? `intDiv(${l.sql}, ${divisor})` : `modulo(${l.sql}, ${divisor})`, 'int');
    return expr(op === '/' ? `(${l.sql} / ${divisor})` : `modulo(${l.sql}, ${divisor})`, 'numeric');
  }

  /** `n * interval`: each term's count multiplied (BigQuery's `INTERVAL n HOUR` translates so). */
  private scaledInterval(left: Expr, right: Expr, at: string): Expr | undefined {
    const span = left.interval !== undefined || (left.type === 'interval' && left.literal !== undefined) ? left : right.interval !== undefined || (right.type === 'interval' && right.literal !== undefined) ? right : undefined;
    if (span === undefined) return undefined;
    const factor = this.as(span === left ? right : left, 'int', at);
    const terms = span.interval ?? literalAs(span.literal ?? '', 'interval', at).interval!;
    return { ...expr('', 'interval'), interval: terms.map((t) => ({ count: `(${t.count}) * (${factor.sql})`, unit: t.unit })) };
  }

  /** `+`/`-`: numbers, a timestamp and an interval, or two timestamps (their difference). */
  private additive(op: '+' | '-', left: Expr, right: Expr, at: string): Expr {
    const isTime = (t: PgType) => t === 'timestamptz' || t === 'timestamp' || t === 'date';
    // A NULL operand beside a time or an interval: NULL (of a difference, an interval).
    if ((left.type === 'null' || right.type === 'null') && [left, right].some((v) => isTime(v.type) || v.interval !== undefined || v.type === 'interval')) {
      const other = left.type === 'null' ? right : left;
      if (op === '-' && isTime(other.type)) return { ...expr('', 'interval'), micros: 'NULL' };
      return expr('NULL', isTime(other.type) ? other.type : 'timestamptz');
    }
    // date ± integer is a date; date - date a number of days (PostgreSQL's date arithmetic).
    if (left.type === 'date' && (right.type === 'int' || (right.type === 'unknown' && /^-?\d+$/.test(right.literal ?? '')))) {
      const days = right.type === 'int' ? right.sql : literalAs(right.literal ?? '', 'int', at).sql;
      return expr(`${op === '+' ? 'addDays' : 'subtractDays'}(${left.sql}, ${days})`, 'date');
    }
    if (op === '+' && right.type === 'date' && left.type === 'int') return expr(`addDays(${right.sql}, ${left.sql})`, 'date');
    if (op === '-' && left.type === 'date' && right.type === 'date') return expr(`dateDiff('day', ${right.sql}, ${left.sql})`, 'int');
    if (op === '-' && isTime(left.type) && (isTime(right.type) || right.type === 'unknown')) {
      const r = right.type === 'unknown' ? literalAs(right.literal ?? '', left.type, at) : right;
      return { ...expr('', 'interval'), micros: `(toUnixTimestamp64Micro(${asTimestamp(left)}) - toUnixTimestamp64Micro(${asTimestamp(r)}))` };
    }
    const timed = isTime(left.type) ? left : op === '+' && isTime(right.type) ? right : undefined;
    const span = timed === left ? right : left;
    if (timed !== undefined) {
      const terms = span.interval ?? (span.type === 'unknown' || (span.type === 'interval' && span.literal !== undefined) ? literalAs(span.literal ?? '', 'interval', at).interval : undefined);
      if (terms === undefined) return unsupported(`${timed.type} ${op} ${span.type}`, at);
      return expr(`(${asTimestamp(timed)} ${terms.map((t) => `${op} toInterval${t.unit}(${t.count})`).join(' ')})`, timed.type === 'date' ? 'timestamp' : timed.type);
    }
    const [l, r, type] = this.pair(left, right, at);
    if (!isNumber(type)) return unsupported(`${op} on ${type}`, at);
    return expr(`(${l.sql} ${op} ${r.sql})`, type);
  }

  /** A value as text, as PostgreSQL's `||` and concat() print it (text, integers, booleans). */
  textOf(node: unknown, at: string): string {
    return this.textOperand(this.emit(node), at);
  }

  /** An operand of `||`: text as is; an integer or a boolean as PostgreSQL prints it. */
  private textOperand(e: Expr, at: string): string {
    const v = e.type === 'unknown' ? literalAs(e.literal ?? '', 'text', at) : this.read(e, at);
    if (v.type === 'text' || v.type === 'null') return v.sql;
    if (v.type === 'int') return `toString(${v.sql})`;
    if (v.type === 'bool') return `if(${v.sql}, 'true', 'false')`;
    return unsupported(`|| on ${v.type}`, at);
  }

  /** `->`, `->>`, `#>`, `#>>` on a JSON value, with a constant key, index or path. */
  jsonPath(left: Expr, op: string, keyNode: unknown, at: string): Expr {
    if (left.type !== 'jsonb') return unsupported(`${op} on ${left.type}`, at);
    const base = left.json ?? { root: left.sql, path: [], ...(left.kinds ? { kinds: left.kinds } : {}) };
    const keys = op.startsWith('#') ? pathKeys(keyNode, at) : [jsonKey(keyNode, at)];
    const json = { root: base.root, path: [...base.path, ...keys], ...(base.parsed ? { parsed: true } : {}), ...(base.sourceOrder ? { sourceOrder: true } : {}), ...(base.kinds ? { kinds: base.kinds } : {}) };
    return op.endsWith('>>') ? scalarText(json) : { sql: '', type: 'jsonb', json };
  }

  /** `array[i]`: PostgreSQL's arrays count from 1, as ClickHouse's do; past either end, NULL. */
  private subscript(body: Json, at: string): Expr {
    const arr = this.value(body['arg']);
    const element = elementOf(arr.type);
    const steps = body['indirection'] as unknown[];
    const index = steps.length === 1 ? wrapped(steps[0], 'A_Indices') : undefined;
    if (element !== undefined && index !== undefined && index['is_slice'] && index['lidx'] !== undefined && index['uidx'] !== undefined) {
      // arr[lo:hi]: the elements from lo to hi, within the array's bounds.
      const [lo, hi] = [this.as(this.emit(index['lidx']), 'int', at).sql, this.as(this.emit(index['uidx']), 'int', at).sql];
      return { ...expr(`arraySlice(${arr.sql}, greatest(${lo}, 1), greatest(least(${hi}, length(${arr.sql})) - greatest(${lo}, 1) + 1, 0))`, arr.type), ...(arr.nullIfEmpty ? { nullIfEmpty: true } : {}) };
    }
    if (element === undefined || index === undefined || index['is_slice'] || index['uidx'] === undefined) return unsupported('a subscript other than one array element', at);
    const i = this.as(this.emit(index['uidx']), 'int', at);
    return expr(`if(${i.sql} BETWEEN 1 AND length(${arr.sql}), arrayElement(${arr.sql}, ${i.sql}), NULL)`, element);
  }

  private boolExpr(body: Json): Expr {
    const args = (body['args'] as unknown[]).map((a) => this.condition(a));
    switch (body['boolop']) {
      case 'AND_EXPR': return expr(`(${args.join(' AND ')})`, 'bool');
      case 'OR_EXPR': return expr(`(${args.join(' OR ')})`, 'bool');
      default: return expr(`(NOT ${args[0]})`, 'bool');
    }
  }

  /** A boolean operand (WHERE, AND/OR/NOT, CASE WHEN, FILTER). */
  condition(node: unknown): string {
    const at = this.scope.at(locationOf(node));
    const e = this.emit(node);
    if (e.type === 'unknown') return literalAs(e.literal ?? '', 'bool', at).sql;
    if (e.type !== 'bool' && e.type !== 'null') return unsupported(`a ${e.type} value as a condition`, at);
    return e.sql;
  }

  private booleanTest(body: Json): Expr {
    const x = this.condition(body['arg']);
    const test: Record<string, string> = {
      IS_TRUE: `(${x} IS NOT NULL AND ${x})`,
      IS_NOT_TRUE: `(${x} IS NULL OR NOT ${x})`,
      IS_FALSE: `(${x} IS NOT NULL AND NOT ${x})`,
      IS_NOT_FALSE: `(${x} IS NULL OR ${x})`,
      IS_UNKNOWN: `(${x} IS NULL)`,
      IS_NOT_UNKNOWN: `(${x} IS NOT NULL)`,
    };
    return expr(test[String(body['booltesttype'])]!, 'bool');
  }

  private caseExpr(body: Json, at: string): Expr {
    const subject = body['arg'] === undefined ? undefined : this.emit(body['arg']);
    const whens = (body['args'] as unknown[]).map((w) => wrapped(w, 'CaseWhen')!);
    const conditions = whens.map((w) => {
      if (subject === undefined) return this.condition(w['expr']);
      const [l, r] = this.pair(subject, this.emit(w['expr']), at);
      return `${l.sql} = ${r.sql}`;
    });
    const results = [...whens.map((w) => w['result']), ...(body['defresult'] === undefined ? [] : [body['defresult']])];
    const [typed, type] = this.unify(results, at);
    const arms = conditions.map((c, i) => `WHEN ${c} THEN ${typed[i]!.sql}`).join(' ');
    return expr(`(CASE ${arms}${body['defresult'] === undefined ? '' : ` ELSE ${typed.at(-1)!.sql}`} END)`, type);
  }

  /** `name(args)` over values of one type (COALESCE, and CASE's results). */
  private common(name: string, args: unknown[], at: string): Expr {
    const [typed, type] = this.unify(args, at);
    return expr(`${name}(${typed.map((t) => t.sql).join(', ')})`, type);
  }

  /** Values resolved to one type, PostgreSQL's way: the first typed one wins, literals follow it. */
  unify(nodes: readonly unknown[], at: string): [Expr[], PgType] {
    const values = nodes.map((n) => this.emit(n));
    const typed = values.find((v) => v.type !== 'unknown' && v.type !== 'null');
    let type: PgType = typed?.type ?? (values.some((v) => v.type === 'unknown') ? 'text' : 'null');
    if (values.some((v) => v.type === 'numeric') && values.every((v) => isNumber(v.type) || v.type === 'null')) type = 'numeric';
    for (const v of values) {
      if (v.type !== type && v.type !== 'unknown' && v.type !== 'null' && !(type === 'numeric' && v.type === 'int')) {
        return unsupported(`mixing ${type} and ${v.type} values`, at);
      }
    }
    return [values.map((v) => (type === 'null' ? v : this.as(v, type, at))), type];
  }

  private subLink(body: Json, at: string): Expr {
    if (body['subLinkType'] === 'ARRAY_SUBLINK') {
      const array = this.arrayOfSeries(wrapped(body['subselect'], 'SelectStmt') ?? {}, at);
      if (array !== undefined) return array;
    }
    const sub = this.scope.subquery(wrapped(body['subselect'], 'SelectStmt') ?? {});
    switch (body['subLinkType']) {
      case 'EXISTS_SUBLINK': return expr(`exists(${sub.sql})`, 'bool');
      case 'EXPR_SUBLINK': {
        if (sub.columns.length !== 1) return unsupported('a scalar subquery with more than one column', at);
        return expr(`(${sub.sql})`, sub.columns[0]!.type);
      }
      case 'ANY_SUBLINK': {
        const op = stringList(body['operName']).at(-1) ?? '=';
        if (op !== '=') return unsupported(`${op} ANY (subquery)`, at);
        if (sub.columns.length !== 1) return unsupported('IN with a subquery of more than one column', at);
        const left = this.as(this.emit(body['testexpr']), sub.columns[0]!.type, at);
        return expr(`(${left.sql} IN (${sub.sql}))`, 'bool');
      }
      default: return unsupported(String(body['subLinkType']).replace('_SUBLINK', '').toLowerCase() + ' subquery', at);
    }
  }

  /** `x::type`, `CAST(x AS type)`, `type 'literal'`: PostgreSQL's conversion and its errors. */
  /**
   * ARRAY(SELECT generate_series(a, b[, s])) (BigQuery's GENERATE_ARRAY) and
   * ARRAY(SELECT (regexp_matches(s, re, 'g'))[1]) (its REGEXP_EXTRACT_ALL): the same arrays without a
   * subquery; undefined for any other ARRAY(…).
   */
  private arrayOfSeries(select: Json, at: string): Expr | undefined {
    const targets = (select['targetList'] as unknown[] | undefined) ?? [];
    if (targets.length !== 1 || select['fromClause'] !== undefined || select['whereClause'] !== undefined) return undefined;
    const val = wrapped(targets[0], 'ResTarget')?.['val'];
    const series = wrapped(val, 'FuncCall');
    if (series !== undefined && stringList(series['funcname']).at(-1) === 'generate_series') {
      const args = (series['args'] as unknown[] | undefined) ?? [];
      const values = args.map((n) => this.emit(n));
      if ((args.length !== 2 && args.length !== 3) || values.some((v) => v.type !== 'int' && v.type !== 'unknown')) return undefined;
      const [a, b, s] = [...values.map((v) => this.as(v, 'int', at).sql), ...(args.length === 2 ? ['1'] : [])];
      return expr(`arrayMap(i -> toInt64(${a} + i * ${s}), range(toUInt64(greatest(0, floor((${b} - ${a}) / (${s} + throwIf(${s} = 0, 'step size cannot equal zero'))) + 1))))`, 'int[]');
    }
    const indexed = wrapped(val, 'A_Indirection');
    const matches = wrapped(indexed?.['arg'], 'FuncCall');
    const first = wrapped((indexed?.['indirection'] as unknown[] | undefined)?.[0], 'A_Indices');
    const margs = (matches?.['args'] as unknown[] | undefined) ?? [];
    if (matches !== undefined && stringList(matches['funcname']).at(-1) === 'regexp_matches' && margs.length === 3 && wrapped(first?.['uidx'], 'A_Const')?.['ival'] !== undefined) {
      if ((wrapped(margs[2], 'A_Const')?.['sval'] as Json | undefined)?.['sval'] !== 'g' || Number((wrapped(first!['uidx'], 'A_Const')!['ival'] as Json)['ival'] ?? 0) !== 1) return undefined;
      const [s, re] = [this.as(this.emit(margs[0]), 'text', at).sql, this.as(this.emit(margs[1]), 'text', at).sql];
      // Every match, or its first group when the expression has one (RE2, as ClickHouse reads a pattern).
      return expr(`extractAll(${s}, ${re})`, 'text[]');
    }
    return undefined;
  }

  /** `x::t[]`: an array literal or NULL as ClickHouse's array of nullable `t`; other arrays as they are when of `t`. */
  private arrayCast(arg: unknown, typeName: Json, at: string): Expr {
    const element = castTarget({ names: typeName['names'] }, at);
    const ch = CH_ELEMENTS[element] ?? unsupported(`the array type ${element}[]`, at);
    const elements = wrapped(arg, 'A_ArrayExpr')?.['elements'] as unknown[] | undefined;
    if (wrapped(arg, 'A_ArrayExpr') !== undefined && (elements === undefined || elements.length === 0)) return expr(`CAST([] AS Array(Nullable(${ch})))`, `${element as ScalarType}[]`);
    const v = this.emit(arg);
    if (v.type === 'null') return expr('NULL', `${element as ScalarType}[]`);
    if (elementOf(v.type) === element) return v;
    if (wrapped(arg, 'A_ArrayExpr') !== undefined) return expr(`CAST(${v.sql} AS Array(Nullable(${ch})))`, `${element as ScalarType}[]`);
    return unsupported(`a cast from ${v.type} to ${element}[]`, at);
  }

  cast(input: Expr, typeName: Json, at: string): Expr {
    const target = castTarget(typeName, at);
    // int2 and int4: the value must fit, as PostgreSQL checks (ClickHouse would widen or wrap).
    const bits = INT_BITS[stringList(typeName['names']).at(-1) ?? ''];
    if (bits !== undefined) {
      const v = this.cast(input, { names: [{ String: { sval: 'int8' } }] }, at);
      const [lo, hi] = [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1];
      if (input.type === 'unknown' || v.sql === 'NULL') {
        if (v.sql !== 'NULL' && (Number(v.sql) < lo || Number(v.sql) > hi)) throw new HttpError('query_error', `The database rejected the query: value "${input.literal ?? v.sql}" is out of range for type ${bits === 16 ? 'smallint' : 'integer'}`);
        return v;
      }
      return expr(`(${v.sql} + throwIf(${v.sql} NOT BETWEEN ${lo} AND ${hi}, '${bits === 16 ? 'smallint' : 'integer'} out of range'))`, 'int');
    }
    // varchar(n): an explicit cast cuts the text to n characters.
    const length = stringList(typeName['names']).at(-1) === 'varchar' ? wrapped((typeName['typmods'] as unknown[] | undefined)?.[0], 'A_Const') : undefined;
    if (length !== undefined) {
      const text = this.cast(input, { names: typeName['names'] }, at);
      return expr(`leftUTF8(${text.sql}, ${Number((length['ival'] as Json | undefined)?.['ival'] ?? 0)})`, 'text');
    }
    // text::json (not jsonb): the text as JSON in its own key order (BigQuery's JSON_QUERY translates so).
    if (stringList(typeName['names']).at(-1) === 'json' && input.type === 'text') {
      const x = this.read(input, at).sql;
      return { sql: '', type: 'jsonb', json: { root: `if(isValidJSON(${x}), ${x}, NULL)`, path: [], parsed: true, sourceOrder: true } };
    }
    if (input.type === 'unknown') return literalAs(input.literal ?? '', target, at);
    if (input.type === 'null') return expr('NULL', target);
    const e = input.type === 'jsonb' && input.json !== undefined && target !== 'jsonb' ? input : this.read(input, at);
    if (e.type === target) return this.read(e, at);
    const x = e.sql;
    switch (`${e.type}>${target}`) {
      case 'int>text': return expr(`toString(${x})`, 'text');
      case 'date>text': return expr(`formatDateTime(${x}, '%Y-%m-%d')`, 'text');
      case 'timestamptz>text':
      case 'timestamp>text': {
        // PostgreSQL's form: the fraction only when there is one, without trailing zeros; +00 for a timestamptz.
        const fraction = `formatDateTime(${x}, '%f', 'UTC')`;
        return expr(`concat(formatDateTime(${x}, '%Y-%m-%d %H:%i:%S', 'UTC'), if(${fraction} = '000000', '', concat('.', trimRight(${fraction}, '0')))${e.type === 'timestamptz' ? ", '+00'" : ''})`, 'text');
      }
      case 'bool>text': return expr(`if(${x}, 'true', 'false')`, 'text');
      case 'jsonb>text':
        // The stored column holds jsonb's text already; a value read out of it is printed the same way.
        return expr(e.json === undefined ? x : jsonAsText(this.read(e, at).sql, e.json.parsed === true && e.json.sourceOrder !== true), 'text');
      case 'text>int': return expr(checkedParse(x, '^\\s*[+-]?[0-9]+\\s*$', 'toInt64OrNull', 'bigint'), 'int');
      case 'numeric>int': return expr(`toInt64(if(${x} < 0, -floor(-${x} + 0.5), floor(${x} + 0.5)))`, 'int');
      case 'bool>int': return expr(`toInt64(${x})`, 'int');
      case 'text>numeric': return expr(checkedParse(x, '^\\s*[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?\\s*$', 'toFloat64OrNull', 'numeric'), 'numeric');
      case 'int>numeric': return expr(`toFloat64(${x})`, 'numeric');
      case 'text>bool': return textToBool(x);
      case 'int>bool': return expr(`(${x} != 0)`, 'bool');
      case 'timestamptz>timestamp': return expr(x, 'timestamp');
      case 'timestamp>timestamptz': return expr(x, 'timestamptz');
      case 'timestamp>date': return expr(`toDate(${x}, 'UTC')`, 'date');
      case 'date>timestamp': return expr(`toDateTime64(${x}, 6, 'UTC')`, 'timestamp');
      // Strictly: a date that is not one is PostgreSQL's error, never 1970-01-01.
      case 'text>date': return expr(`if(${x} IS NULL, NULL, toDate(assumeNotNull(parseDateTimeBestEffortOrNull(${x}))) + throwIf(NOT match(${x}, '^[[:space:]]*[0-9]{4}-?[0-9]{2}-?[0-9]{2}[[:space:]]*$') OR parseDateTimeBestEffortOrNull(${x}) IS NULL OR formatDateTime(parseDateTimeBestEffortOrNull(${x}), '%Y%m%d') != replaceAll(trimBoth(${x}), '-', ''), 'invalid input syntax for type date'))`, 'date');
      case 'text>timestamptz': return expr(`parseDateTime64BestEffort(${x}, 6, 'UTC')`, 'timestamptz');
      case 'date>timestamptz': return expr(`toDateTime64(${x}, 6, 'UTC')`, 'timestamptz');
      case 'timestamptz>date': return expr(`toDate(${x}, 'UTC')`, 'date');
      default: return unsupported(`a cast from ${e.type} to ${target}`, at);
    }
  }
}

/** Array element types ClickHouse prints and answers as PostgreSQL does → ClickHouse's type. */
const CH_ELEMENTS: Readonly<Partial<Record<PgType, string>>> = Object.freeze({ int: 'Int64', numeric: 'Float64', text: 'String', bool: 'Bool', null: 'Int64' });

/** A `List` node's items (IN lists, BETWEEN bounds), or an array as is. */
function listItems(node: unknown): unknown[] {
  return Array.isArray(node) ? node : ((wrapped(node, 'List')?.['items'] as unknown[] | undefined) ?? []);
}

function locationOf(node: unknown): unknown {
  const type = nodeType(node);
  return type ? ((node as Json)[type] as Json)['location'] : undefined;
}

export type { Column };
