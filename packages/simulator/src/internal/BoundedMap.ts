/**
 * A bounded memo: a `Map` that keeps at most `limit` entries, dropping the one set longest ago
 * when a new one comes. The simulator's caches of wire bytes and decoded requests use it, so
 * that memory stays bounded however many distinct pages or URLs are asked for.
 *
 * @internal
 */

/** A map of at most `limit` entries (the oldest set goes first). */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>()

  constructor(private readonly limit: number) {}

  /** The value kept for `key`, if any. */
  get(key: K): V | undefined {
    return this.entries.get(key)
  }

  /** Keeps `value` for `key`, dropping the oldest entry when the map is full. */
  set(key: K, value: V): void {
    this.entries.delete(key)
    if (this.entries.size >= this.limit) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(key, value)
  }
}
