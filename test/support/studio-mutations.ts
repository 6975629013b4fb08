/**
 * Studio's sql texts cut, doubled and spliced into each other (a fixed seed, so every run sends the
 * same 300): what a fuzz of caller sql sends (test/behaviour/logflare.ts, test/clickhouse.test.ts).
 */
export function mutatedQueries(texts: readonly string[], count: number, seed = 20261123): string[] {
  let state = seed;
  const rand = (n: number) => ((state = (state * 1103515245 + 12345) % 2 ** 31) % n);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const a = texts[rand(texts.length)]!;
    const b = texts[rand(texts.length)]!;
    const cut = rand(a.length);
    out.push([a.slice(0, cut) + b.slice(rand(b.length)), a.slice(0, cut), a + a.slice(cut), a.slice(0, cut) + '`' + a.slice(cut)][rand(4)]!);
  }
  return out;
}
