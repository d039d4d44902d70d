/**
 * Values by key, bounded by the sum of their sizes (`sizeOf`, in whatever unit the caller counts): the ones used
 * longest ago leave first (a Map's insertion order is its recency: a hit moves its entry last). A value larger than
 * an eighth of the bound is not kept, rather than clearing a good part of what is held.
 */
export class SizedLru<V> {
  private size = 0;
  private readonly entries = new Map<string, { value: V; size: number }>();

  constructor(
    private readonly maxSize: number,
    private readonly sizeOf: (value: V, key: string) => number,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Holds `value` for `key` in place of what was held there, if it is small enough to be held at all. */
  set(key: string, value: V): void {
    this.delete(key);
    const size = this.sizeOf(value, key);
    if (size > this.maxSize / 8) return;
    this.entries.set(key, { value, size });
    this.size += size;
    for (const [oldest] of this.entries) {
      if (this.size <= this.maxSize) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.size -= entry.size;
  }

  clear(): void {
    this.entries.clear();
    this.size = 0;
  }
}
