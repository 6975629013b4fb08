/**
 * The tree is the architecture (docs/development.md maps it): no file imports itself round a
 * cycle, and no folder imports one above it. Type-only imports count: a type is a dependency of
 * the design even when it costs nothing at run time.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cycles, importGraph, LAYERS, upwardImports } from '../../scripts/lib/import-graph.ts';

test('src/ has no import cycle', () => {
  assert.deepEqual(cycles(importGraph()), []);
});

test('no file imports a folder above its own (docs/development.md, "Layout")', () => {
  assert.deepEqual(upwardImports(importGraph(), LAYERS), []);
});

test('the checks see what they check: a cycle and an upward import are found', () => {
  const graph = new Map([
    ['src/store/a.ts', ['src/store/b.ts', 'src/query/q.ts']],
    ['src/store/b.ts', ['src/store/a.ts']],
    ['src/query/q.ts', ['src/shared/s.ts']],
    ['src/shared/s.ts', []],
  ]);
  assert.deepEqual(cycles(graph), [['src/store/a.ts', 'src/store/b.ts']]);
  assert.deepEqual(upwardImports(graph, LAYERS), ['src/store/a.ts → src/query/q.ts (src/store below src/query)']);
  assert.ok(importGraph().size > 100, 'the graph reads every source file');
});
