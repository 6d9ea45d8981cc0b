/**
 * Reads one request (or one stage of a run) makes more than once, made once. An answer's
 * verification re-runs the analyses its tables cite and judges its quotes, and each of those may
 * read the same derived fact (the competitors the workspace's conversations name: a read of every
 * conversation); within one request the data is taken as it was at its first read, so the second
 * caller reuses it. A memo lives as long as its request or stage: never across tenants or requests.
 * Keys name the read and its arguments, workspace included.
 */
export class ReadMemo {
  readonly #reads = new Map<string, Promise<unknown>>();

  /** `read()`'s result, read once per key; a read that fails is forgotten, so a later call tries again. */
  once<T>(key: string, read: () => Promise<T>): Promise<T> {
    const held = this.#reads.get(key);
    if (held) return held as Promise<T>;
    const reading = read();
    this.#reads.set(key, reading);
    reading.catch(() => this.#reads.delete(key));
    return reading;
  }
}
