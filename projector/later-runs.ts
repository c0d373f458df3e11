/**
 * Runs of a projection asked for a moment later (wake-ups.ts): a checkpoint left unstored by a run that
 * changed nothing, a projection that runs after the others (`afterSignalMs`). One per projection at a time: asking
 * again before it runs adds nothing.
 */
export class LaterRuns {
  readonly #timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly run: (name: string) => void) {}

  /** One run of `name` in `ms`, unless one is asked for already; `first` is done just before it. */
  ask(name: string, ms: number, first?: () => void): void {
    if (this.#timers.has(name)) return;
    this.#timers.set(name, setTimeout(() => {
      this.#timers.delete(name);
      first?.();
      this.run(name);
    }, ms));
  }

  /** Drops every run asked for (a stopping projector). */
  cancel(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
