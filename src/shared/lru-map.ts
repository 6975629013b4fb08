/** One entry, linked into the use order. */
interface Node<K, V> {
  readonly key: K;
  value: V;
  older: Node<K, V> | null;
  newer: Node<K, V> | null;
}

/**
 * A map that knows its use order, least recently used first: what the bounded memo and the result
 * cache both evict by. Entries are linked from least to most recent; a use relinks the entry at the
 * newest end (a few pointer writes among entries that already exist), and the least recent entry is
 * the oldest end. Both are O(1) and the order is exact.
 *
 * Why not a Map kept in use order (delete and re-insert on every use): with two or more keys in
 * turn, every use leaves a deleted slot, V8 rebuilds the table every few dozen uses, and each
 * superseded table keeps pointing at its successor and at what it held (drain.ts says what that
 * costs). A scratch loop of 2M uses after two full GCs (`.scratch/lru-churn.ts`, `--trace-gc-nvp`):
 * 0.2 MB promoted with one hot key, 67 MB with two, 152 MB with eight, each use under a fresh key
 * string as a request's URL is. Here the map itself changes only when an entry comes or goes.
 */
export class LruMap<K, V> {
  private readonly nodes = new Map<K, Node<K, V>>();
  /** The least and the most recently used entries. */
  private oldest: Node<K, V> | null = null;
  private newest: Node<K, V> | null = null;

  get size(): number {
    return this.nodes.size;
  }

  get(key: K): V | undefined {
    return this.nodes.get(key)?.value;
  }

  /** `key` is the most recently used now (nothing when absent). */
  use(key: K): void {
    const node = this.nodes.get(key);
    if (node === undefined || node === this.newest) return;
    this.unlink(node);
    this.append(node);
  }

  /** A new key is the most recently used; an existing one only takes the value. */
  set(key: K, value: V): this {
    const node = this.nodes.get(key);
    if (node !== undefined) {
      node.value = value;
      return this;
    }
    const added: Node<K, V> = { key, value, older: null, newer: null };
    this.nodes.set(key, added);
    this.append(added);
    return this;
  }

  delete(key: K): boolean {
    const node = this.nodes.get(key);
    if (node === undefined) return false;
    this.unlink(node);
    return this.nodes.delete(key);
  }

  clear(): void {
    this.nodes.clear();
    this.oldest = this.newest = null;
  }

  /** The key used least recently; undefined when empty. */
  leastRecent(): K | undefined {
    return this.oldest?.key;
  }

  /** Entries in no particular order; deleting the current one while iterating is allowed. */
  *[Symbol.iterator](): IterableIterator<[K, V]> {
    for (const [key, node] of this.nodes) yield [key, node.value];
  }

  private unlink(node: Node<K, V>): void {
    if (node.older === null) this.oldest = node.newer;
    else node.older.newer = node.newer;
    if (node.newer === null) this.newest = node.older;
    else node.newer.older = node.older;
    node.older = node.newer = null;
  }

  private append(node: Node<K, V>): void {
    node.older = this.newest;
    if (this.newest === null) this.oldest = node;
    else this.newest.newer = node;
    this.newest = node;
  }
}
