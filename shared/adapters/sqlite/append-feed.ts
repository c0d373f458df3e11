/**
 * The SQLite store's append notification. Appends made through this handle are announced right after their
 * commit; appends made by another connection (another process on the same file) are noticed by polling
 * `PRAGMA data_version`, which SQLite changes only when *another* connection commits, so one read of an integer
 * per tick is the whole cost. The timer runs only while someone listens and never keeps the process alive.
 */
type AppendListener = () => void;

export class AppendFeed {
  private readonly listeners = new Set<AppendListener>();
  private timer: NodeJS.Timeout | undefined;
  private lastVersion = 0;

  constructor(private readonly dataVersion: () => number, private readonly pollMs: number) {}

  subscribe(listener: AppendListener): () => void {
    this.listeners.add(listener);
    if (!this.timer) this.startPolling();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopPolling();
    };
  }

  /** Announces an append committed through this handle. */
  notify(): void {
    for (const listener of [...this.listeners]) {
      // The append is already committed: a failing listener must not turn it into a rejected append.
      try {
        listener();
      } catch (error) {
        process.emitWarning(`event store listener failed: ${String(error)}`);
      }
    }
  }

  close(): void {
    this.listeners.clear();
    this.stopPolling();
  }

  private startPolling(): void {
    this.lastVersion = this.dataVersion();
    this.timer = setInterval(() => this.poll(), this.pollMs);
    this.timer.unref();
  }

  private stopPolling(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private poll(): void {
    const version = this.dataVersion();
    if (version === this.lastVersion) return;
    this.lastVersion = version;
    this.notify();
  }
}
