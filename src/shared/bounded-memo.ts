import { LruMap } from './lru-map.ts';

/**
 * What a request works out that a later one repeats (a resolved request target, a prepared call, a
 * translation, a matched token), remembered by a string key and bounded: at most `maxEntries`, the
 * least recently used dropped first (shared/lru-map.ts), and a key longer than `maxKeyChars` never held,
 * since working it out again is cheaper than holding large texts (a long `sql`).
 */
export class BoundedMemo<V> {
  private readonly entries = new LruMap<string, V>();

  constructor(
    readonly maxEntries: number,
    readonly maxKeyChars: number,
  ) {}

  /** The value remembered for `key`, now the most recently used; undefined when there is none. */
  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) this.entries.use(key);
    return value;
  }

  /** Remember `value` for `key` (unless the key is too long to hold); returns `value`. */
  set(key: string, value: V): V {
    if (key.length <= this.maxKeyChars) {
      this.entries.set(key, value);
      this.entries.use(key);
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.leastRecent()!);
    }
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}
