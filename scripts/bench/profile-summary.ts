/**
 * Summarise a V8 CPU profile (`node --cpu-prof`): self time by function and by file, heaviest first.
 *   npx tsx scripts/bench/profile-summary.ts <file.cpuprofile> [--top 25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [--top N]');
const topIndex = process.argv.indexOf('--top');
const top = topIndex === -1 ? 25 : Number(process.argv[topIndex + 1]);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

const shortUrl = (url: string) => url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*\/(src|scripts)\//, '$1/');
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
const fns = new Map<string, number>();
const files = new Map<string, number>();
for (const [id, us] of selfUs) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '(native)';
  add(fns, `${functionName || '(anonymous)'} ${where}`, us);
  add(files, url ? shortUrl(url).replace(/^(node_modules\/(?:@[^/]+\/)?[^/]+).*$/, '$1') : functionName || '(native)', us);
}
const print = (title: string, m: Map<string, number>) => {
  console.log(`${title} (of ${(total / 1000).toFixed(0)} ms sampled)`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
};
// Inclusive time of the service's own functions (src/): self plus everything they called.
const parentOf = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
const keyOf = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${shortUrl(n.callFrame.url)}`;
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
    const n = byId.get(cur)!;
    if (!n.callFrame.url.includes('/src/')) continue;
    const k = keyOf(n);
    if (seen.has(k)) continue;
    seen.add(k);
    add(inclusive, k, us);
  }
}
print('self time by function', fns);
print('self time by file / package', files);
print('inclusive time of src/ functions', inclusive);
