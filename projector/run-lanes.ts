/**
 * One lane per projection in this process: a run of a projection (a catch-up, or the renewal of its standing
 * lease) starts once the one under way has ended, so that no two of them ever hold its lease at once here.
 */
export class RunLanes {
  readonly #running = new Map<string, Promise<void>>();

  /** Runs `work` for the projection `name` after any run of it already under way in this process. */
  run(name: string, work: () => Promise<void>): Promise<void> {
    const previous = this.#running.get(name);
    const run = (async () => {
      if (previous) await previous;
      await work();
    })();
    const settled = run.catch(() => undefined);
    this.#running.set(name, settled);
    void settled.then(() => {
      if (this.#running.get(name) === settled) this.#running.delete(name);
    });
    return run;
  }

  /** Whether a run of `name` is under way or waiting in its lane. */
  busy(name: string): boolean {
    return this.#running.has(name);
  }

  /** Resolves once every run under way now has ended, however it ended. */
  settled(): Promise<unknown> {
    return Promise.all(this.#running.values());
  }
}
