/**
 * The import graph of src/: every relative `import … from` / `export … from` (type-only ones too:
 * a type is a dependency of the design even when it costs nothing at run time), its cycles
 * (strongly connected components) and its imports against the layer order. Used by
 * test/unit/layers.test.ts; `npx tsx scripts/lib/import-graph.ts` prints the graph's problems.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** src/'s layers, bottom up (docs/development.md maps them): each may import its own folder and those listed before it, never one after it. */
export const LAYERS = [
  'src/shared', // utilities and the error table
  'src/auth', // token grants and the authenticator
  'src/process', // configuration, logger, the nextTick pin
  'src/store', // the engines and what they share (values, schema, store check, database errors)
  'src/queue', // the fair queue in front of each store's connections
  'src/sql', // the SQL languages: sandbox, BigQuery, ClickHouse, binding stored statements
  'src/query', // one stored-query call: registry, params, cache, run, max rows, redaction, formats
  'src/metrics', // counters of what the layers below do
  'src/ingest', // log batches into the store
  'src/http', // the server, routes, listing and OpenAPI
  'src/commands', // schema and seed
  'src/service.ts', // the assembly
  'src/main.ts', // the process
] as const;

/** File (relative to the repository) → the files it imports. */
export function importGraph(dir = 'src'): Map<string, string[]> {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(join(ROOT, d))) {
      const path = join(d, name);
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) files.push(path);
    }
  };
  walk(dir);
  const graph = new Map<string, string[]>();
  for (const file of files.sort()) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const targets = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.{1,2}\/[^']+)'/gm)].map((m) => relative(ROOT, resolve(ROOT, dirname(file), m[1]!)));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The cycles: strongly connected components of more than one file (or a file importing itself). Tarjan's algorithm. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return out;
}

/**
 * Imports that go up the layer order: `layers` lists folders (or files) from the bottom up; a file
 * belongs to the longest entry that is a prefix of its path, and may import its own entry's files
 * and those of entries below it.
 */
export function upwardImports(graph: Map<string, string[]>, layers: readonly string[]): string[] {
  const rank = (file: string): number => {
    let best = -1;
    let bestLength = -1;
    layers.forEach((layer, i) => {
      const hit = file === layer || file.startsWith(layer.endsWith('/') ? layer : `${layer}/`);
      if (hit && layer.length > bestLength) {
        best = i;
        bestLength = layer.length;
      }
    });
    if (best < 0) throw new Error(`${file} is in no layer`);
    return best;
  };
  const out: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) if (rank(target) > rank(file)) out.push(`${file} → ${target} (${layers[rank(file)]} below ${layers[rank(target)]})`);
  }
  return out;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const graph = importGraph();
  for (const c of cycles(graph)) console.log(`cycle: ${c.join(' ')}`);
  for (const u of upwardImports(graph, LAYERS)) console.log(`upward: ${u}`);
}
