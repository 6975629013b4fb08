/**
 * A Map whose insertion order is its use order, least recently used first: what the bounded memo
 * and the result cache both evict by. `use` moves a key last; the key already last (a hot key used
 * again and again) moves nothing, which saves a delete and an insert on every repeat.
 */
export class LruMap<K, V> extends Map<K, V> {
  /** The key last in order, when known (a Map cannot say without walking it). */
  private last: K | undefined;

  /** `key` (holding `value`) is the most recently used now. */
  use(key: K, value: V): void {
    if (key === this.last) return;
    super.delete(key);
    super.set(key, value);
    this.last = key;
  }

  /** A new key goes last; an existing one keeps its place and only takes the value. */
  override set(key: K, value: V): this {
    if (!super.has(key)) this.last = key;
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    if (key === this.last) this.last = undefined;
    return super.delete(key);
  }

  override clear(): void {
    this.last = undefined;
    super.clear();
  }
}
