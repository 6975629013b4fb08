/**
 * mulberry32: a tiny seeded PRNG, so demo data, fuzz and load runs are the same on every machine
 * for the same seed. Not for anything secret. One instance can be re-seeded per item (`reset`),
 * which lets any slice of a generated table be produced on its own.
 */
export class Prng {
  private state: number;

  constructor(seed = 0) {
    this.state = seed >>> 0;
  }

  /** Start the sequence of `seed` again. */
  reset(seed: number): void {
    this.state = seed >>> 0;
  }

  /** A uniform unsigned 32-bit integer. */
  u32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  /** Pick by weight: `[[weight, value], …]`. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((sum, [w]) => sum + w, 0);
    let roll = this.next() * total;
    for (const [w, value] of choices) {
      roll -= w;
      if (roll < 0) return value;
    }
    return choices[choices.length - 1]![1];
  }
}
