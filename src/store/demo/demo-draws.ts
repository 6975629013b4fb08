/**
 * How demo values are drawn and formatted cheaply: a bijective mixer for per-row PRNG streams,
 * weighted pools, uuids and microsecond timestamps from lookup tables, and the string flattening
 * that keeps generation out of the garbage collector. Used by demo-data.ts and demo-sources.ts.
 */
import type { Prng } from './prng.ts';

/** murmur3's 32-bit finaliser: a bijection, so distinct inputs give distinct outputs. */
export function fmix32(x: number): number {
  x = x >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/**
 * Flatten a concatenated string now. V8 keeps `a + b` as a tree of pieces; kept in a column, that
 * tree survives into the old generation and garbage collection dominated generation time. Number()
 * has to read the characters, which makes V8 flatten the string in place; the tree dies young.
 * (Measured on edge rows: about 40% less CPU and heap than keeping the trees.)
 */
export class Flattener {
  /** Where Number()'s result goes, so the call cannot be optimised away. */
  private sink = 0;

  flat(s: string): string {
    this.sink ^= Number(s) | 0;
    return s;
  }
}

/** Expand [value, weight] pairs into an array a uniform pick draws from with those weights. */
export function weightedPool<T>(entries: readonly (readonly [T, number])[]): T[] {
  const pool: T[] = [];
  for (const [value, weight] of entries) for (let i = 0; i < weight; i++) pool.push(value);
  return pool;
}

// Lookup tables: number formatting per row (toString(16), padStart, toISOString) dominated the
// generation time; table lookups and concatenation are several times cheaper.
export const HEX4 = Array.from({ length: 65536 }, (_, i) => i.toString(16).padStart(4, '0'));
export const PAD2 = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
export const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/** A version-4-shaped UUID whose first 32 bits are `head`. */
export function uuid(head: number, r: Prng): string {
  const b = r.u32();
  const c = r.u32();
  const d = r.u32();
  return `${HEX4[head >>> 16]}${HEX4[head & 0xffff]}-${HEX4[b >>> 16]}-${HEX4[(b & 0x0fff) | 0x4000]}-${HEX4[(c & 0x3fff) | 0x8000]}-${HEX4[c >>> 16]}${HEX4[d >>> 16]}${HEX4[d & 0xffff]}`;
}

const WEEK_S = 7 * 24 * 3600;
const DAY_MS = 24 * 3600 * 1000;

/** Draws microsecond ISO timestamps from the 7 days before `now`. */
export class Timeline {
  private readonly nowUs: number;
  /** 'YYYY-MM-DDT' per day number: at most eight days are ever touched. */
  private readonly days = new Map<number, string>();

  constructor(nowMs: number) {
    this.nowUs = nowMs * 1000;
  }

  /** A timestamp strictly inside (now - 7 days, now). */
  before(r: Prng): string {
    // Two draws: one 32-bit draw cannot resolve 6e11 microseconds.
    const us = this.nowUs - Math.max(1, r.int(WEEK_S) * 1_000_000 + r.int(1_000_000));
    const ms = Math.floor(us / 1000);
    const day = Math.floor(ms / DAY_MS);
    let prefix = this.days.get(day);
    if (prefix === undefined) {
      prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
      this.days.set(day, prefix);
    }
    const msOfDay = ms - day * DAY_MS;
    const s = Math.floor(msOfDay / 1000);
    return `${prefix}${PAD2[Math.floor(s / 3600)]}:${PAD2[Math.floor(s / 60) % 60]}:${PAD2[s % 60]}.${PAD3[msOfDay % 1000]}${PAD3[us - ms * 1000]}Z`;
  }
}
