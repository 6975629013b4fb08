/**
 * A Map that knows which key was used least recently: what the bounded memo and the result cache
 * both evict by. A use writes a stamp over the key's old one; it never moves the key.
 *
 * Why not keep the Map in use order (delete and re-insert on every use): with two or more keys in
 * turn, every use leaves a deleted slot, V8 rebuilds the table every few dozen uses, and each
 * superseded table keeps pointing at its successor and at what it held (drain.ts says what that
 * costs). A scratch loop of 2M uses after two full GCs (`.scratch/lru-churn.ts`, `--trace-gc-nvp`):
 * 0.2 MB promoted with one hot key, 67 MB with two, 152 MB with eight, each use under a fresh key
 * string as a request's URL is. Stamps are written in place: 2 KB promoted, whatever the mix.
 * Finding the least recent walks the keys; that happens only when a full memo or cache takes a new
 * entry, a miss, which costs far more than the walk.
 */
export class LruMap<K, V> extends Map<K, V> {
  /** key → the count of uses when it was last used or added. */
  private readonly stamps = new Map<K, number>();
  private uses = 0;

  /** `key` is the most recently used now. */
  use(key: K): void {
    this.stamps.set(key, ++this.uses);
  }

  /** A new key is the most recently used; an existing one only takes the value. */
  override set(key: K, value: V): this {
    if (!this.stamps.has(key)) this.stamps.set(key, ++this.uses);
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    this.stamps.delete(key);
    return super.delete(key);
  }

  override clear(): void {
    this.stamps.clear();
    super.clear();
  }

  /** The key used least recently; undefined when empty. */
  leastRecent(): K | undefined {
    let oldest: K | undefined;
    let min = Infinity;
    for (const [key, stamp] of this.stamps) {
      if (stamp < min) {
        min = stamp;
        oldest = key;
      }
    }
    return oldest;
  }
}
