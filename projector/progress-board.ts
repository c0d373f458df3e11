/**
 * What this process knows of each projection: the position it reached, whether it stopped on an event it
 * cannot apply, and who waits for a position. Positions only move forward, whatever order reports arrive in.
 */
export interface ProjectionStatus {
  name: string;
  /** Position of the last event the projection has applied (its stored checkpoint). */
  position: number;
  /** `failed`: stopped on an event it cannot apply, after the queue's last retry. */
  status: 'ok' | 'failed';
  /** When failed: the event's position and type and the error message. */
  error: string | null;
}

interface Waiter {
  position: number;
  resolve: () => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class ProgressBoard {
  readonly #entries = new Map<string, ProjectionStatus>();
  readonly #waiters = new Set<Waiter>();

  constructor(names: readonly string[]) {
    for (const name of names) this.#entries.set(name, { name, position: 0, status: 'ok', error: null });
  }

  advance(name: string, position: number): void {
    const entry = this.#entry(name);
    if (position > entry.position) entry.position = position;
    this.#settle();
  }

  fail(name: string, error: string): void {
    Object.assign(this.#entry(name), { status: 'failed', error });
    this.#settle();
  }

  recover(name: string): void {
    Object.assign(this.#entry(name), { status: 'ok', error: null });
  }

  isFailed(name: string): boolean {
    return this.#entry(name).status === 'failed';
  }

  positions(): Record<string, number> {
    return Object.fromEntries([...this.#entries.values()].map((entry) => [entry.name, entry.position]));
  }

  status(): ProjectionStatus[] {
    return [...this.#entries.values()].map((entry) => ({ ...entry }));
  }

  /** Resolves once every projection has reached `position`; rejects on timeout or when one of them has failed. */
  waitFor(position: number, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        position, resolve, reject,
        timer: setTimeout(() => {
          this.#waiters.delete(waiter);
          reject(new Error(`read models did not reach position ${position} within ${timeoutMs} ms (${this.#describe()})`));
        }, timeoutMs),
      };
      this.#waiters.add(waiter);
      this.#settle();
    });
  }

  /** Rejects every waiter (the projector is stopping). */
  cancelWaiters(reason: string): void {
    for (const waiter of this.#waiters) this.#finish(waiter, new Error(reason));
  }

  #settle(): void {
    if (this.#waiters.size === 0) return;
    const entries = [...this.#entries.values()];
    const failed = entries.find((entry) => entry.status === 'failed');
    const lowest = Math.min(...entries.map((entry) => entry.position));
    for (const waiter of this.#waiters) {
      if (lowest >= waiter.position) this.#finish(waiter);
      else if (failed) this.#finish(waiter, new Error(`projection ${failed.name} has failed: ${failed.error ?? ''}`));
    }
  }

  #finish(waiter: Waiter, error?: Error): void {
    clearTimeout(waiter.timer);
    this.#waiters.delete(waiter);
    if (error) waiter.reject(error);
    else waiter.resolve();
  }

  #describe(): string {
    return [...this.#entries.values()].map((entry) => `${entry.name} at ${entry.position}`).join(', ');
  }

  #entry(name: string): ProjectionStatus {
    const entry = this.#entries.get(name);
    if (!entry) throw new Error(`unknown projection ${name}`);
    return entry;
  }
}
