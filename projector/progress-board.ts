/**
 * What this process knows of each projection: the position it reached, whether it is parked on an event it
 * cannot apply (this process parked it, or the store says so), and who waits for a position. Positions only move
 * forward, whatever order reports arrive in.
 */
export interface ProjectionStatus {
  name: string;
  /** Position of the last event the projection has applied (its stored checkpoint). */
  position: number;
  /** `parked`: stopped on an event that failed it every time, until an operator resumes it. */
  status: 'running' | 'parked';
  /** When parked: the event's position, and why (the projection, position, event type and error message). */
  parked: { position: number; reason: string } | null;
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
    for (const name of names) this.#entries.set(name, { name, position: 0, status: 'running', parked: null });
  }

  advance(name: string, position: number): void {
    const entry = this.#entry(name);
    if (position > entry.position) entry.position = position;
    this.#settle();
  }

  park(name: string, parked: { position: number; reason: string }): void {
    Object.assign(this.#entry(name), { status: 'parked', parked });
    this.#settle();
  }

  resume(name: string): void {
    Object.assign(this.#entry(name), { status: 'running', parked: null });
  }

  positions(): Record<string, number> {
    return Object.fromEntries([...this.#entries.values()].map((entry) => [entry.name, entry.position]));
  }

  status(): ProjectionStatus[] {
    return [...this.#entries.values()].map((entry) => ({ ...entry, parked: entry.parked && { ...entry.parked } }));
  }

  /** Resolves once every projection has reached `position`; rejects on timeout or when one of them is parked. */
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
    const parked = entries.find((entry) => entry.status === 'parked');
    const lowest = Math.min(...entries.map((entry) => entry.position));
    for (const waiter of this.#waiters) {
      if (lowest >= waiter.position) this.#finish(waiter);
      else if (parked) this.#finish(waiter, new Error(`projection ${parked.name} is parked: ${parked.parked?.reason ?? ''}`));
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
