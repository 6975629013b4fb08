/**
 * What a function's translation (functions.ts, and the array, JSON-path and date-format rewrites
 * beside it) may ask of the translation that called it: declared apart so those files need not
 * import the function table that imports them.
 */
import type { Node } from './nodes.ts';
import type { Ctx } from './record-scope.ts';

export interface Rewriter {
  /** Translate an argument, reading a JSON path in it as `ctx`. */
  arg(node: Node, ctx: Ctx): Node;
  siblingCtx(nodes: readonly Node[]): Ctx;
  fail(what: string, at: unknown): never;
  /** A fixed SQL expression (written here, never the caller's) parsed, with `holes` filled by nodes. */
  template(expr: string, holes: Readonly<Record<string, Node>>): Node;
}
