/**
 * BigQuery's JSONPath subset (`$`, `.name`, `."name"`, `['name']`, `["name"]`, `[n]`) as the path
 * elements of PostgreSQL's `#>`, for JSON_VALUE and its kin (functions.ts).
 */
import { wrapped, type Json } from '../sandbox/sql-parser.ts';
import type { Rewriter } from './functions.ts';
import type { Node } from './nodes.ts';

/**
 * BigQuery's JSONPath subset as `#>` path elements: `$`, then `.name`, `."name"`, `['name']`,
 * `["name"]` or `[n]`, each a member name or an array index (PostgreSQL's path reads a numeric
 * element of an array as its index). The path must be a string literal.
 */
export function jsonPath(node: Node, fn: string, r: Rewriter): string[] {
  const path = (wrapped(node, 'A_Const')?.['sval'] as Json | undefined)?.['sval'];
  if (typeof path !== 'string') return r.fail(`${fn}'s JSONPath must be a string literal such as '$.a.b'`, node);
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
