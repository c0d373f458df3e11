/**
 * One writer per projection, fenced. A worker runs a projection only while it holds the projection's lease; every
 * new owner raises the lease's fencing token and stores it at once in the live checkpoint, so a checkpoint written
 * under an older token is refused. Before each bulk the owner checks its lease against its own monotonic clock and
 * renews it (conditional on its token) well before expiry: a worker paused past its lease (SIGSTOP, a long busy
 * event loop) finds out when it resumes and writes nothing more. Every bulk it writes is fenced by its token too
 * (`write`): refused once a newer owner recorded its own in the generation pointer, so a preempted owner that has not
 * yet renewed (its lease taken by a rebuild, say) adds no document, no leaf of the log, after the takeover. Documents
 * are also guarded by compare-and-set on the positions read (see batch.ts), so an in-flight bulk cannot overwrite a
 * newer state either. Whether another's lease has expired is judged by the taker's own watch of it (lease-watch.ts),
 * never by the time its holder wrote.
 */
import {
  FencedWriteError, type ControlDoc, type Filter, type GenerationStore, type ProjectedCollection, type ReadStore, type WriteFence, type WriteOp, type WriteOptions,
} from '../../ports/read-store.ts';
import {
  LeaseLostError, checkpointId, checkpointPrefix, generationsOf, leaseId, liveCheckpointOf, newCheckpoint, readCheckpoint, readControlDocs,
  type AppliedEvent, type CheckpointState, type HeadConfirmation, type HeadReadClock, type LeaseDoc,
} from './control-docs.ts';
import { recordLeaseToken } from './generations.ts';
import { LeaseWatch } from './lease-watch.ts';

export { LeaseLostError };

/**
 * Clocks in milliseconds: `monotonic` for every judgement of time, `wall` only for the times written for people to
 * read; `ticket`, when the process has freshness tickets, the latest it read (control-docs.ts, `readMoment`).
 */
export type LeaseClock = HeadReadClock;

export const SYSTEM_CLOCK: LeaseClock = { monotonic: () => performance.now(), wall: () => Date.now() };

interface LeaseOptions {
  /** How long a lease lasts without renewal; default 10 s. */
  ttlMs?: number;
  clock?: LeaseClock;
  /**
   * What this process has seen of the leases, which its own writes add to; without one, nothing: a lease held by
   * another is then never taken (unless preempted), only a free or released one.
   */
  watch?: LeaseWatch;
  /** Take the lease even from a live owner (a rebuild about to switch generations fences the live workers). */
  preempt?: boolean;
  /** Say in the lease that its owner keeps it between runs (LeaseDoc.standing). */
  standing?: boolean;
}

export const DEFAULT_LEASE_TTL_MS = 10_000;

export class ProjectionLease {
  #renewedAt: number;
  /** The lease's marker of liveness, raised by every write (LeaseDoc.renewals). */
  #renewals = 0;
  #released = false;
  /** The checkpoints this owner last stored, by generation. */
  readonly #checkpoints = new Map<number, CheckpointState>();

  private constructor(
    private readonly store: ReadStore,
    readonly projection: string,
    readonly owner: string,
    readonly token: number,
    /** The live generation when the lease was taken, and its checkpoint (carrying this lease's token). */
    readonly generation: number,
    readonly checkpoint: CheckpointState,
    private readonly ttlMs: number,
    private readonly clock: LeaseClock,
    private readonly standing: boolean,
    private readonly watch: LeaseWatch,
    acquiredAt: number,
  ) {
    this.#renewedAt = acquiredAt;
  }

  /**
   * Takes the lease of `projection` for `owner` if it is free, released, lapsed by this process's watch or already
   * `owner`'s (or always, with `preempt`), then raises the live checkpoint's token to the new one. Null when another
   * owner holds it.
   */
  static async acquire(
    store: ReadStore, projection: { name: string; collection: ProjectedCollection }, owner: string, options: LeaseOptions = {},
  ): Promise<ProjectionLease | null> {
    const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
    const clock = options.clock ?? SYSTEM_CLOCK;
    const watch = options.watch ?? new LeaseWatch();
    const acquiredAt = clock.monotonic();
    const docs = await readControlDocs(store);
    const held = docs.get(leaseId(projection.name)) as LeaseDoc | undefined;
    if (held && held.owner !== owner && !options.preempt && watch.remaining(projection.name, held, clock.monotonic(), ttlMs) > 0) return null;
    const token = highestToken(docs, projection.name, held) + 1;
    const standing = options.standing ?? false;
    const lease: LeaseDoc = {
      _id: leaseId(projection.name), projection: projection.name, owner, token, expires_at: clock.wall() + ttlMs, renewals: 0, ttl_ms: ttlMs,
      ...(standing ? { standing } : {}),
    };
    // On the marker read too: an owner renewing meanwhile keeps its lease.
    // None stored: any lease stored meanwhile has a token, so this insert then fails as the race it lost.
    const condition = held
      ? { token: held.token, expires_at: held.expires_at, renewals: held.renewals ?? { $exists: false } } : { token: { $exists: false } };
    if (!(await store.setControl(lease, condition, held === undefined))) return null;
    watch.see(projection.name, lease, clock.monotonic());
    // Before anything is fenced or written: from now on no switch made under an older token goes through.
    if (!(await recordLeaseToken(store, projection.name, token))) return null;

    const { generation, checkpoint: seen } = liveCheckpointOf(docs, projection);
    const checkpoint = await fenceCheckpoint(store, projection.name, generation, token, seen);
    if (!checkpoint) return null;
    return new ProjectionLease(store, projection.name, owner, token, generation, checkpoint, ttlMs, clock, standing, watch, acquiredAt);
  }

  /**
   * How long (ms, by `options.watch`) the lease of `projection` still stands, if a standing owner (who runs it on its
   * own signals) holds it now; null otherwise (no lease, not standing, released or lapsed).
   */
  static async standingFor(store: ReadStore, projection: string, options: LeaseOptions = {}): Promise<number | null> {
    const held = (await readControlDocs(store)).get(leaseId(projection)) as LeaseDoc | undefined;
    if (held?.standing !== true) return null;
    const clock = options.clock ?? SYSTEM_CLOCK;
    const left = (options.watch ?? new LeaseWatch()).remaining(projection, held, clock.monotonic(), options.ttlMs ?? DEFAULT_LEASE_TTL_MS);
    return left > 0 ? left : null;
  }

  /** The checkpoint of the live generation as this owner last stored it (or found it when taking the lease). */
  get current(): CheckpointState {
    return this.#checkpoints.get(this.generation) ?? this.checkpoint;
  }

  /**
   * Renews the lease once a third of it has passed on this worker's own clock (`always`: now, to be sure it is still
   * held before a step that must not follow a takeover); throws when it was lost.
   */
  async ensure(always = false): Promise<void> {
    if (this.#released) throw new LeaseLostError(this.projection, 'released');
    const now = this.clock.monotonic();
    if (!always && now - this.#renewedAt < this.ttlMs / 3) return;
    const renewed = { ...this.#written(this.clock.wall() + this.ttlMs), ...(this.standing ? { standing: true } : {}) };
    if (!(await this.store.setControl(renewed, { owner: this.owner, token: this.token }, false))) {
      throw new LeaseLostError(this.projection, `token ${this.token} was superseded`);
    }
    this.watch.see(this.projection, renewed, this.clock.monotonic());
    this.#renewedAt = now;
  }

  /**
   * What every write of this owner into `generation` is conditioned on (see `WriteOptions.fence`): its token, and
   * the checkpoint it last stored there when it knows it. Documents written over a read store put back to an older
   * copy would mix what the copy lacks with what comes after, and the projection again from the copy's checkpoint
   * would then skip them as newer.
   */
  fence(generation: number): WriteFence {
    const stored = this.#checkpoints.get(generation) ?? (generation === this.generation ? this.checkpoint : undefined);
    return {
      projection: this.projection, token: this.token,
      ...(stored ? { checkpoint: { id: checkpointId(this.projection, generation), position: stored.position } } : {}),
    };
  }

  /** Writes `ops` into `target` under this lease's token; throws `LeaseLostError` once a newer owner took over. */
  async write(target: GenerationStore, ops: WriteOp[], options: WriteOptions = {}): Promise<void> {
    try {
      await target.write(ops, { ...options, fence: this.fence(target.generation) });
    } catch (error) {
      if (error instanceof FencedWriteError) throw new LeaseLostError(this.projection, error.message);
      throw error;
    }
  }

  /** The lease document this owner writes next, with a new marker. */
  #written(expiresAt: number): LeaseDoc {
    this.#renewals += 1;
    return {
      _id: leaseId(this.projection), projection: this.projection, owner: this.owner, token: this.token, expires_at: expiresAt,
      renewals: this.#renewals, ttl_ms: this.ttlMs,
    };
  }

  /**
   * Stores `position` as the checkpoint of `generation`, if no newer owner raised its token; with `confirmed`, the
   * head read that this position covers (the read models' freshness, see control-docs.ts). `onWritten`: as soon as
   * readers can see it, maybe before it is known to stand (`ReadStore.setControl`). `applied`: the event at
   * `position`; without it, the one recorded stays only while the position does.
   */
  async saveCheckpoint(
    position: number, generation = this.generation, confirmed?: HeadConfirmation, onWritten?: () => void, applied?: AppliedEvent,
  ): Promise<void> {
    await this.#changeCheckpoint(generation, ({ applied: recorded, ...stored }) => {
      const event = applied ?? (position === stored.position ? recorded : undefined);
      return {
        ...stored, position, updated_at: new Date(this.clock.wall()).toISOString(), ...(confirmed ? { confirmed } : {}), ...(event ? { applied: event } : {}),
      };
    }, onWritten);
  }

  /** Parks the projection on the event at `position` that it cannot apply (recorded for every process to see). */
  async park(position: number, reason: string): Promise<void> {
    await this.#changeCheckpoint(this.generation, (stored) => ({ ...stored, status: 'parked', parked: { position, reason } }));
  }

  /** Opens the checkpoint of a generation being built under this lease (a rebuild's next generation). */
  async startGeneration(generation: number, position: number): Promise<void> {
    const checkpoint = { ...newCheckpoint(this.projection, generation, this.token, position), updated_at: new Date(this.clock.wall()).toISOString() };
    if (!(await this.store.setControl(checkpoint, { token: { $lt: this.token } }, true))) {
      throw new LeaseLostError(this.projection, `generation ${generation} has a newer owner`);
    }
  }

  /**
   * Lets the next owner take the lease at once. False when a newer owner had taken it already: this owner was fenced
   * meanwhile (paused past its lease), which its caller says.
   */
  async release(): Promise<boolean> {
    if (this.#released) return true;
    this.#released = true;
    const released = this.#written(0);
    if (!(await this.store.setControl(released, { owner: this.owner, token: this.token }, false))) return false;
    this.watch.see(this.projection, released, this.clock.monotonic());
    return true;
  }

  async #changeCheckpoint(generation: number, change: (stored: CheckpointState) => CheckpointState, onWritten?: () => void): Promise<void> {
    const stored = this.#checkpoints.get(generation) ?? (generation === this.generation ? this.checkpoint : await this.#readCheckpoint(generation));
    const next = change(stored);
    // On the state it last stored too, not its token alone: a read store put back to an older copy (a restore)
    // under this owner may hold this very token in a checkpoint behind it, whose documents lack what it applied
    // since; its position written over them would say they reflect it.
    if (!(await this.store.setControl(next, { ...checkpointCondition(stored), token: this.token }, false, onWritten))) {
      const found = await readCheckpoint(this.store, this.projection, generation);
      throw new LeaseLostError(this.projection, found?.token === this.token
        ? `the checkpoint of generation ${generation} is at ${found.position}, not where token ${this.token} stored it (${stored.position})`
        : `the checkpoint of generation ${generation} has a newer owner than token ${this.token}`);
    }
    this.#checkpoints.set(generation, next);
  }

  async #readCheckpoint(generation: number): Promise<CheckpointState> {
    const stored = await readCheckpoint(this.store, this.projection, generation);
    if (!stored) throw new LeaseLostError(this.projection, `generation ${generation} has no checkpoint`);
    return stored;
  }
}

/**
 * The highest token of the projection's lease, of all its checkpoints and recorded in the pointer: a new owner's token is above every one
 * ever fenced in, even where an engine whose conditional updates are not atomic across processes (FerretDB) let a
 * stale release take the lease document back to an older token.
 */
function highestToken(docs: Map<string, ControlDoc>, projection: string, held: LeaseDoc | undefined): number {
  let highest = Math.max(held?.token ?? 0, generationsOf(docs)?.tokens?.[projection] ?? 0);
  for (const doc of docs.values()) {
    const { token } = doc as Partial<CheckpointState>;
    if (doc._id.startsWith(checkpointPrefix(projection)) && typeof token === 'number') highest = Math.max(highest, token);
  }
  return highest;
}

/** Raises the token of a checkpoint (creating it, at position 0, when absent); null when a newer owner has it. */
async function fenceCheckpoint(
  store: ReadStore, projection: string, generation: number, token: number, seen: CheckpointState | undefined,
): Promise<CheckpointState | null> {
  let stored = seen;
  for (;;) {
    if (stored && stored.token >= token) return null;
    const fenced: CheckpointState = stored ? { ...stored, token } : newCheckpoint(projection, generation, token);
    // On the whole state read, not the token alone: the previous owner may still move its checkpoint under its own
    // token until it sees the new one, and a fence written over that would take the checkpoint back. Its confirmation
    // too: an idle owner confirms the same position again every second, and an older confirmation put back reads, to
    // every API process, as one that happened since its last poll (read-model-clock.ts): fresher than it is.
    const condition = stored ? checkpointCondition(stored) : { token: { $exists: false } };
    if (await store.setControl(fenced, condition, stored === undefined)) return fenced;
    stored = await readCheckpoint(store, projection, generation);
  }
}

/** What a checkpoint is changed on: the whole state read or stored (its token, position, status and confirmation). */
function checkpointCondition(stored: CheckpointState): Filter {
  return { token: stored.token, position: stored.position, status: stored.status, 'confirmed.at': stored.confirmed?.at ?? null };
}
