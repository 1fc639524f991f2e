/** How many `/cable` sockets each key (a user, a client address) holds, under a cap (0: none). */
export class SocketCap {
  readonly #held = new Map<string, number>();

  constructor(readonly max: number) {}

  held(key: string): number {
    return this.#held.get(key) ?? 0;
  }

  hasRoom(key: string): boolean {
    return this.max === 0 || this.held(key) < this.max;
  }

  /** Counts one more socket for `key`; false (nothing counted) when it holds the most it may. */
  take(key: string): boolean {
    if (!this.hasRoom(key)) return false;
    this.#held.set(key, this.held(key) + 1);
    return true;
  }

  release(key: string): void {
    const left = this.held(key) - 1;
    if (left > 0) this.#held.set(key, left);
    else this.#held.delete(key);
  }
}
