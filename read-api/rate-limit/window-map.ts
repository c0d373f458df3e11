/**
 * The memory driver's store. koa-ratelimit sets a key when its window starts and never deletes it, so every client
 * ever seen would stay in memory; this Map forgets the windows that ended, looking at most once per window. It
 * also keeps the window the driver touched last (`touched`), so the limits can write its figures themselves.
 */
export class WindowMap extends Map<unknown, unknown> {
  readonly #ends = new Map<unknown, number>();
  #nextSweep = 0;
  /** The value last read or written: the window of the request koa-ratelimit is deciding right now. */
  touched: unknown;

  override get(key: unknown): unknown {
    const value = super.get(key);
    this.touched = value;
    return value;
  }

  constructor(private readonly windowMs: number) {
    super();
  }

  override set(key: unknown, value: unknown): this {
    const now = Date.now();
    if (now >= this.#nextSweep) this.#sweep(now);
    this.#ends.set(key, now + this.windowMs);
    this.touched = value;
    return super.set(key, value);
  }

  #sweep(now: number): void {
    this.#nextSweep = now + this.windowMs;
    for (const [key, end] of this.#ends) {
      if (end > now) continue;
      this.#ends.delete(key);
      this.delete(key);
    }
  }
}
