/**
 * BigQuery's JSON functions' parts (functions.ts): the JSONPath subset (`$`, `.name`, `."name"`,
 * `['name']`, `["name"]`, `[n]`) as the path of PostgreSQL's `#>`, the value at it in text that
 * may not be JSON, and a JSON scalar as text.
 */
import type { Rewriter } from './rewriter.ts';
import { call, caseWhen, cast, nullConst, op, stringConst, text, type Node } from './nodes.ts';
import { arrayCast } from './array-subscripts.ts';

/** The JSON at `path` (a JSONPath literal) in `value`, text that may not be JSON (then NULL: try_jsonb). */
export function jsonAt(value: Node, path: Node, fn: string, r: Rewriter): Node {
  const steps = jsonPath(path, fn, r);
  return op('#>', call('try_jsonb', [cast(r.arg(value, 'text'), 'text')]), arrayCast({ A_ArrayExpr: { elements: steps.map(text) } }, 'text'));
}

/**
 * The JSON text at `path` in `value` (text that may not be JSON: then NULL), in the source's own
 * key order, as BigQuery's JSON_QUERY gives it: through PostgreSQL's json (which keeps the text),
 * not jsonb (which sorts keys).
 */
export function jsonTextAt(value: Node, path: Node, fn: string, r: Rewriter): Node {
  const steps = jsonPath(path, fn, r);
  const source = cast(r.arg(value, 'text'), 'text');
  const at = op('#>', cast(structuredClone(source), 'json'), arrayCast({ A_ArrayExpr: { elements: steps.map(text) } }, 'text'));
  return caseWhen([[{ NullTest: { arg: call('try_jsonb', [source]), nulltesttype: 'IS_NULL' } }, nullConst()]], cast(at, 'text'));
}

/** A JSON scalar as text (a string unquoted, null as NULL); an object or array is NULL. */
export function scalarText(json: Node): Node {
  const typeIs = (t: string) => op('=', call('jsonb_typeof', [structuredClone(json)]), text(t));
  return caseWhen([[typeIs('object'), nullConst()], [typeIs('array'), nullConst()]], op('#>>', json, arrayCast({ A_ArrayExpr: { elements: [] } }, 'text')));
}

/**
 * BigQuery's JSONPath subset as `#>` path elements: `$`, then `.name`, `."name"`, `['name']`,
 * `["name"]` or `[n]`, each a member name or an array index (PostgreSQL's path reads a numeric
 * element of an array as its index). The path must be a string literal.
 */
function jsonPath(node: Node, fn: string, r: Rewriter): string[] {
  const path = stringConst(node);
  if (path === undefined) return r.fail(`${fn}'s JSONPath must be a string literal such as '$.a.b'`, node);
  const steps: string[] = [];
  const step = /\.([A-Za-z_][A-Za-z0-9_]*)|\."((?:[^"\\]|\\.)*)"|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\[\s*([0-9]+)\s*\]/y;
  if (!path.startsWith('$')) r.fail(`${fn}'s JSONPath must start with $, got ${JSON.stringify(path)}`, node);
  step.lastIndex = 1;
  while (step.lastIndex < path.length) {
    const at = step.lastIndex;
    const m = step.exec(path);
    if (m === null) return r.fail(`${fn}'s JSONPath ${JSON.stringify(path)} is not supported at its character ${at + 1} (supported: $, .name, ."name", ['name'], [n])`, node);
    const found = m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5]!;
    steps.push(m[1] !== undefined || m[5] !== undefined ? found : found.replace(/\\(.)/g, '$1'));
  }
  return steps;
}
